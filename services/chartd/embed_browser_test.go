package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// embedFrame is an isolated world in the embed's frame of the host page,
// where the test reads the frame's DOM across origins.
func embedFrame(t *testing.T, ctx context.Context) runtime.ExecutionContextID {
	t.Helper()
	tree, err := chromedp.Call(ctx, cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatalf("frame tree: %v", err)
	}
	if len(tree.FrameTree.ChildFrames) != 1 {
		t.Fatalf("the host page has %d frames, want the embed's", len(tree.FrameTree.ChildFrames))
	}
	w, err := chromedp.Call(ctx, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: tree.FrameTree.ChildFrames[0].Frame.ID, WorldName: "embed-test"})
	if err != nil {
		t.Fatalf("a world in the embed's frame: %v", err)
	}
	return w.ExecutionContextID
}

// evalIn evaluates expr in the frame's world.
func evalIn[T any](t *testing.T, ctx context.Context, world runtime.ExecutionContextID, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, await, func(p *runtime.EvaluateParams) { p.ContextID = world }))
	if err != nil {
		t.Fatalf("evaluate in the frame %.300s: %v", expr, err)
	}
	return v
}

// pollIn waits until cond holds in the frame's world.
func pollIn(t *testing.T, ctx context.Context, world runtime.ExecutionContextID, what, cond string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((ok, fail) => { const t0 = Date.now(); (function check() {
		let v = false; try { v = !!(`+cond+`); } catch (e) {}
		if (v) return ok(true); if (Date.now() - t0 > 30000) return fail(new Error("timed out")); setTimeout(check, 20); })(); })`,
		await, func(p *runtime.EvaluateParams) { p.ContextID = world })); err != nil {
		t.Fatalf("waiting in the frame for %s (%s): %v", what, cond, err)
	}
}

// hostPage serves a page of another origin that carries the embed code
// in a column w px wide (/?w=…).
func hostPage(t *testing.T, snippet string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		width, _ := strconv.Atoi(r.URL.Query().Get("w"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>A news story</title></head>
<body style="margin:0"><main><h1>A news story</h1><div id="slot" style="width:%dpx">%s</div><p>The story goes on.</p></main></body></html>`, width, snippet)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// the frame's checks, as JavaScript run in its world
const (
	jsSVG    = `document.querySelector("#chart svg")`
	jsScale  = `(s => s.getBoundingClientRect().width / s.viewBox.baseVal.width)(` + jsSVG + `)`
	jsTexts  = `[...` + jsSVG + `.querySelectorAll("text")].filter(e => e.textContent.trim() !== "" && !e.closest("[aria-hidden=true]"))`
	jsSmall  = `(k => ` + jsTexts + `.map(e => ({t: e.textContent, px: parseFloat(getComputedStyle(e).fontSize) * k})).filter(e => e.px < 10.95))(` + jsScale + `)`
	jsCrowds = `(r => { const out = []; for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
		const a = r[i].b, b = r[j].b, w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
		if (w > 1 && h > 1) out.push(r[i].t + " / " + r[j].t); } return out; })(` + jsTexts + `.filter(e => !e.closest("[transform*=rotate]")).map(e => ({t: e.textContent, b: e.getBoundingClientRect()})))`
	jsMarks = `JSON.parse(document.querySelector("#chart metadata[id$='marks']").textContent)`
)

// TestEmbedInAnotherOrigin: the embed code in a page of another origin,
// at 320, 640 and 1200 px: the picture fills the frame, the frame never
// scrolls, text is 11 px or more and never overlaps, hover and keyboard
// name the category and value, the data table is there, axe finds nothing
// serious and nothing is fetched from another host; an auto embed follows
// a dark setting; without script the PNG shows. It logs the resize
// redraw's p50 (goal: 50 ms or less on a quiet machine).
func TestEmbedInAnotherOrigin(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "free"))
	var csv strings.Builder
	csv.WriteString("Country,2024,2025\n")
	for i, name := range countries12 {
		fmt.Fprintf(&csv, "%s,%d,%d\n", name, 1200+i*310, 900+i*270)
	}
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": csv.String(),
		"ops": []any{setTitleOp("Exports of twelve countries, in millions of euros")}})
	e := createEmbed(t, c, ch.ID, map[string]any{"theme": "auto"})
	host := hostPage(t, e.HTML)
	ctx := newBrowser(t)

	for _, width := range []int{320, 640, 1200} {
		t.Run(strconv.Itoa(width)+" px", func(t *testing.T) {
			do(t, ctx, "the host page", chromedp.EmulateViewport(int64(width)+40, 900), chromedp.Navigate(host+"/?w="+strconv.Itoa(width)))
			poll(t, ctx, "the frame", `(f => f && f.getBoundingClientRect().width === `+strconv.Itoa(width)+`)(document.querySelector("iframe"))`)
			world := embedFrame(t, ctx)
			pollIn(t, ctx, world, "the picture at the frame's width", jsSVG+` && document.getElementById("chartd-embed").dataset.drawn`)
			// the host page sets the height the frame tells
			fitted := func(what string) {
				t.Helper()
				h := evalIn[float64](t, ctx, world, `document.documentElement.getBoundingClientRect().height`)
				poll(t, ctx, what, fmt.Sprintf(`Math.abs(document.querySelector("iframe").getBoundingClientRect().height - %v) < 1.5`, h))
			}
			fitted("the frame's height from its message")
			frameW := evalIn[float64](t, ctx, world, `document.documentElement.clientWidth`)
			if frameW != float64(width) {
				t.Errorf("the frame is %v px wide, want %d", frameW, width)
			}
			if w := evalIn[float64](t, ctx, world, jsSVG+`.getBoundingClientRect().width`); math.Abs(w-frameW) > 0.5 {
				t.Errorf("the picture is %v px wide in a %v px frame", w, frameW)
			}
			pollIn(t, ctx, world, "no scroll bar inside the frame", `document.documentElement.scrollHeight <= innerHeight + 1 && document.documentElement.scrollWidth <= innerWidth`)
			if small := evalIn[[]any](t, ctx, world, jsSmall); len(small) > 0 {
				t.Errorf("text under 11 px: %v", small)
			}
			if crowds := evalIn[[]any](t, ctx, world, jsCrowds); len(crowds) > 0 {
				t.Errorf("overlapping text: %v", crowds)
			}

			// hover the first mark
			var m []any
			if err := json.Unmarshal([]byte(evalIn[string](t, ctx, world, `JSON.stringify(`+jsMarks+`[0])`)), &m); err != nil || len(m) != 7 {
				t.Fatalf("the first mark: %v %v", m, err)
			}
			at := evalIn[[]float64](t, ctx, world, fmt.Sprintf(`(b => [b.left + (%v + %v / 2) * %s, b.top + (%v + %v / 2) * %s])(document.getElementById("chart").getBoundingClientRect())`, m[0], m[2], jsScale, m[1], m[3], jsScale))
			frame := eval[[]float64](t, ctx, `(b => [b.left, b.top])(document.querySelector("iframe").getBoundingClientRect())`)
			do(t, ctx, "hover the first mark", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, frame[0]+at[0], frame[1]+at[1]))
			want := fmt.Sprintf("%v · %v: %v", m[4], m[5], m[6])
			pollIn(t, ctx, world, "the tooltip", `!document.getElementById("tip").hidden && document.getElementById("tip").textContent === `+strconv.Quote(want))
			if !strings.Contains(want, countries12[0]) && !slices.ContainsFunc(countries12, func(s string) bool { return strings.Contains(want, s) }) {
				t.Errorf("the tooltip %q names no category", want)
			}
			do(t, ctx, "leave the chart", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1))

			// the keyboard: Tab into the frame, arrows along the marks
			eval[bool](t, ctx, `(document.activeElement && document.activeElement.blur(), true)`)
			do(t, ctx, "tab into the frame", chromedp.KeyEvent("\t"))
			pollIn(t, ctx, world, "the chart focused", `document.activeElement && document.activeElement.id === "chart"`)
			first := evalIn[string](t, ctx, world, `document.getElementById("live").textContent`)
			do(t, ctx, "the next mark", chromedp.KeyEvent(kb.ArrowRight))
			pollIn(t, ctx, world, "the next value announced", `document.getElementById("live").textContent !== `+strconv.Quote(first)+` && document.getElementById("live").textContent === document.getElementById("tip").textContent`)
			said := evalIn[string](t, ctx, world, `document.getElementById("live").textContent`)
			if !slices.ContainsFunc(countries12, func(s string) bool { return strings.HasPrefix(said, s+" · ") }) || !strings.Contains(said, ": ") {
				t.Errorf("the keyboard's tooltip %q does not name a category and a value", said)
			}

			// the data table: always in the page, shown by the Data button
			if n := evalIn[int](t, ctx, world, `document.querySelectorAll("#data table tbody tr").length`); n != len(countries12) {
				t.Errorf("the data table has %d rows, want %d", n, len(countries12))
			}
			evalIn[bool](t, ctx, world, `(document.getElementById("data-toggle").click(), true)`)
			pollIn(t, ctx, world, "the table shown", `!document.getElementById("data").classList.contains("sr") && document.getElementById("data").getBoundingClientRect().height > 50`)
			fitted("the frame grown with the table")
			pollIn(t, ctx, world, "no scroll bar with the table", `document.documentElement.scrollHeight <= innerHeight + 1`)

			// axe, in the frame
			evalIn[bool](t, ctx, world, axeScript(t)+"\n;true")
			out := evalIn[string](t, ctx, world, `axe.run(document).then(r => JSON.stringify({passes: r.passes.length, serious: r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}))}))`)
			var ax struct {
				Passes  int
				Serious []any
			}
			if err := json.Unmarshal([]byte(out), &ax); err != nil || ax.Passes < 5 {
				t.Fatalf("axe did not run in the frame: %v %s", err, out)
			}
			if len(ax.Serious) > 0 {
				t.Errorf("axe: serious or critical violations in the embed: %s", out)
			}

			// nothing from another host
			for _, u := range evalIn[[]string](t, ctx, world, `performance.getEntriesByType("resource").map(e => e.name)`) {
				if !strings.HasPrefix(u, in.url+"/") {
					t.Errorf("the frame fetched %s, off the site", u)
				}
			}
		})
	}

	t.Run("resize redraw", func(t *testing.T) {
		do(t, ctx, "the host page", chromedp.EmulateViewport(1240, 900), chromedp.Navigate(host+"/?w=640"))
		world := embedFrame(t, ctx)
		pollIn(t, ctx, world, "the picture", jsSVG+` && document.getElementById("chartd-embed").dataset.drawn === "640"`)
		for w := 400; w <= 1000; w += 40 {
			eval[bool](t, ctx, fmt.Sprintf(`(document.getElementById("slot").style.width = "%dpx", true)`, w))
			pollIn(t, ctx, world, "the picture at "+strconv.Itoa(w), `document.getElementById("chartd-embed").dataset.drawn === "`+strconv.Itoa(w)+`"`)
		}
		d := evalIn[[]float64](t, ctx, world, `performance.getEntriesByName("chartd-redraw").map(e => e.duration)`)
		if len(d) < 10 {
			t.Fatalf("%d redraws measured", len(d))
		}
		slices.Sort(d)
		t.Logf("resize redraw (request → new SVG in the DOM) over %d redraws: p50 %.1f ms, p90 %.1f ms (goal: p50 ≤ 50 ms on a quiet machine)", len(d), d[len(d)/2], d[len(d)*9/10])
	})

	t.Run("an auto embed follows a dark setting", func(t *testing.T) {
		look := func(scheme string) (string, string) {
			do(t, ctx, scheme, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
				return err
			}), chromedp.Navigate(host+"/?w=640"))
			world := embedFrame(t, ctx)
			pollIn(t, ctx, world, "the picture", jsSVG)
			return evalIn[string](t, ctx, world, `getComputedStyle(document.body).backgroundColor`),
				evalIn[string](t, ctx, world, `getComputedStyle(`+jsSVG+`.querySelector("rect")).fill`)
		}
		lightPage, lightChart := look("light")
		darkPage, darkChart := look("dark")
		look("") // back to the browser's own
		if lightPage == darkPage {
			t.Errorf("the page's background is %s, light or dark", lightPage)
		}
		if lightChart == darkChart {
			t.Errorf("the chart's background is %s, light or dark: the auto drawing does not flip", lightChart)
		}
	})

	t.Run("without script the PNG shows", func(t *testing.T) {
		off, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
		defer cancel()
		do(t, off, "turn script off", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}), chromedp.EmulateViewport(680, 900), chromedp.Navigate(host+"/?w=640"))
		world := embedFrame(t, off)
		pollIn(t, off, world, "the PNG", `(i => i && i.complete && i.naturalWidth > 0)(document.querySelector("img.fallback"))`)
		if n := evalIn[int](t, off, world, `document.querySelectorAll("#chart svg").length`); n != 0 {
			t.Errorf("without script the frame drew %d SVGs", n)
		}
	})
}

// countries12 are the categories of the embed's chart.
var countries12 = []string{"Germany", "France", "Italy", "Spain", "Poland", "Netherlands", "Belgium", "Sweden", "Austria", "Denmark", "Finland", "Portugal"}
