package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// cspWatch counts the page's Content-Security-Policy refusals as the
// browser reports them on its console.
type cspWatch struct {
	mu   sync.Mutex
	seen []string
	// more is signalled on each refusal seen.
	more chan struct{}
}

// watchCSP starts counting the refusals of the browser's page.
func watchCSP(t *testing.T, ctx context.Context) *cspWatch {
	t.Helper()
	w := &cspWatch{more: make(chan struct{}, 1)}
	err := chromedp.Listen(ctx, func(ev any) {
		e, ok := ev.(*log.EventEntryAdded)
		if !ok || (e.Entry.Source != log.EntrySourceSecurity && !strings.Contains(e.Entry.Text, "Content Security Policy")) {
			return
		}
		w.mu.Lock()
		w.seen = append(w.seen, e.Entry.Text)
		w.mu.Unlock()
		select {
		case w.more <- struct{}{}:
		default:
		}
	})
	if err != nil {
		t.Fatalf("listen to the page: %v", err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("watch the console: %v", err)
	}
	return w
}

// reports answers the refusals seen so far.
func (w *cspWatch) reports() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// await waits until n refusals were seen and answers them all.
func (w *cspWatch) await(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	for {
		if got := w.reports(); len(got) >= n {
			return got
		}
		select {
		case <-w.more:
		case <-ctx.Done():
			t.Fatalf("waiting for %d CSP refusals: %v; seen %q", n, ctx.Err(), w.reports())
		}
	}
}

// openEditor opens chart id in the editor and waits until it is ready.
func openEditor(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	do(t, ctx, "open the editor", chromedp.Navigate(base+"/charts/"+id))
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
}

// makeChart makes a chart through the API from the signed-in page and
// answers its id; body is the create_chart body as JavaScript.
func makeChart(t *testing.T, ctx context.Context, body string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", %s).then(j => j.chart ? j.chart.id : JSON.stringify(j))`, apiFromPage, body))
}

// previewAfter types into a field of the editor and waits for the preview
// that shows it.
func previewAfter(t *testing.T, ctx context.Context, field, value string) {
	t.Helper()
	before := eval[int](t, ctx, `window.chartdEditor.previews`)
	do(t, ctx, "type into "+field, chromedp.SetValue(chromedp.ID(field), value),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById(%q).dispatchEvent(new Event("input", {bubbles: true}))`, field)))
	poll(t, ctx, "the preview after "+field, fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
}

// save presses Save and waits until the editor says it is saved.
func save(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, "save", chromedp.Evaluate[chromedp.Void](`document.getElementById("apply-status").textContent = ""`), chromedp.Click(chromedp.ID("apply")))
	poll(t, ctx, "the save", `document.getElementById("apply-status").textContent === "Saved."`)
}

// chartName reads a chart's name through the API.
func chartName(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`(%s)("GET", "/charts/%s").then(j => j.chart.name)`, apiFromPage, id))
}

// axesShownJS says whether the editor shows its Axes box.
const axesShownJS = `document.getElementById("x-title").closest("fieldset").offsetParent !== null`

// TestSiteEditorRoughEdges walks the editor as a new user would (issue
// 31): previews draw without CSP refusals; the name follows the title
// until the chart is renamed on purpose; the series swatches follow the
// palette chosen; only the controls a chart type draws with are shown;
// a long table shows its first rows and offers the rest.
func TestSiteEditorRoughEdges(t *testing.T) {
	in := startAll(t)
	// signedIn is a browser of its own for each part, signed in as a new
	// person: no part waits on another's page (an unsaved edit keeps a
	// page from closing) or on its time.
	signedIn := func(t *testing.T) context.Context {
		ctx := newBrowser(t)
		signUpInBrowser(t, ctx, in.url, strings.NewReplacer(" ", "-", "/", "-").Replace(strings.ToLower(t.Name()))+"@example.com")
		return ctx
	}

	t.Run("previews without CSP reports", func(t *testing.T) {
		ctx := signedIn(t)
		id := makeChart(t, ctx, `{type: "bar", ops: [{op: "setTitle", title: {text: "Sales by country"}}]}`)
		csp := watchCSP(t, ctx)
		openEditor(t, ctx, in.url, id)
		for i := range 3 {
			previewAfter(t, ctx, "subtitle", fmt.Sprintf("Edit %d", i))
		}
		poll(t, ctx, "the alt text of the last preview", `document.getElementById("alt-auto").textContent.startsWith("Sales by country. Bar chart")`)
		// A refusal the page provokes on purpose is seen, after any the
		// previews made (the browser reports them in order): the watch works.
		do(t, ctx, "provoke a refusal", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.createElement("style"); s.textContent = "p{}"; document.head.appendChild(s); })()`))
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		got := csp.await(t, wctx, 1)
		if previews := got[:len(got)-1]; len(previews) > 0 {
			t.Errorf("%d CSP refusals during 4 previews, want 0: %q", len(previews), previews)
		}
	})

	t.Run("name follows the title", func(t *testing.T) {
		ctx := signedIn(t)
		id := makeChart(t, ctx, `{type: "bar", ops: [{op: "setTitle", title: {text: "Sales 2025"}}]}`)
		if n := chartName(t, ctx, id); n != "Sales 2025" {
			t.Fatalf("a new chart's name %q, want its title", n)
		}
		openEditor(t, ctx, in.url, id)
		do(t, ctx, "retitle", chromedp.SetValue(chromedp.ID("title"), "Sales 2026"))
		save(t, ctx)
		if n := chartName(t, ctx, id); n != "Sales 2026" {
			t.Errorf("after a new title the name is %q, want Sales 2026", n)
		}
		if v := eval[string](t, ctx, `document.getElementById("rename").value`); v != "Sales 2026" {
			t.Errorf("the name field shows %q", v)
		}
		if p := eval[string](t, ctx, `fetch("/charts").then(r => r.text())`); !strings.Contains(p, ">Sales 2026</span>") {
			t.Errorf("the chart list does not name the chart Sales 2026")
		}
		// Renamed on purpose, the name stays.
		do(t, ctx, "rename", chromedp.SetValue(chromedp.ID("rename"), "Q4 board deck"), chromedp.Click(`#rename-form button[type=submit]`))
		poll(t, ctx, "the rename", `document.getElementById("status").textContent === "Renamed."`)
		do(t, ctx, "retitle again", chromedp.SetValue(chromedp.ID("title"), "Sales 2027"))
		save(t, ctx)
		if n := chartName(t, ctx, id); n != "Q4 board deck" {
			t.Errorf("a chart renamed on purpose was renamed to %q by its title", n)
		}
	})

	t.Run("swatches follow the palette", func(t *testing.T) {
		ctx := signedIn(t)
		id := makeChart(t, ctx, `{type: "bar", data: "Country,Sales,Costs\nA,5,3\nB,7,4\n", ops: [{op: "setPalette", palette: "okabe-ito"}]}`)
		openEditor(t, ctx, in.url, id)
		colours := `[...document.querySelectorAll("[data-series]")].map(i => i.value.toUpperCase()).join(",")`
		pal := func(id string) string {
			return eval[string](t, ctx, fmt.Sprintf(`(%s)("GET", "/palettes").then(j => j.palettes.find(p => p.id === %q).colors.slice(0, 2).join(",").toUpperCase())`, apiFromPage, id))
		}
		if got, want := eval[string](t, ctx, colours), pal("okabe-ito"); got != want {
			t.Fatalf("swatches %s, want the saved palette's %s", got, want)
		}
		do(t, ctx, "choose a palette", chromedp.SetValue(chromedp.ID("palette"), "tableau-10"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("palette").dispatchEvent(new Event("change", {bubbles: true}))`))
		if got, want := eval[string](t, ctx, colours), pal("tableau-10"); got != want {
			t.Errorf("before Save the swatches show %s, want the chosen palette's %s", got, want)
		}
		screenshot(t, ctx, "editor-palette.png")
		// A swatch the person set keeps their colour across palettes.
		do(t, ctx, "set a colour", chromedp.Evaluate[chromedp.Void](`(() => { const i = document.querySelectorAll("[data-series]")[1]; i.value = "#123456"; i.dispatchEvent(new Event("input", {bubbles: true})); })()`))
		do(t, ctx, "choose another palette", chromedp.SetValue(chromedp.ID("palette"), "dark2"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("palette").dispatchEvent(new Event("change", {bubbles: true}))`))
		if got, want := eval[string](t, ctx, colours), strings.Split(pal("dark2"), ",")[0]+",#123456"; got != want {
			t.Errorf("swatches %s, want %s", got, want)
		}
		save(t, ctx)
		if got, want := eval[string](t, ctx, colours), strings.Split(pal("dark2"), ",")[0]+",#123456"; got != want {
			t.Errorf("after Save the swatches show %s, want %s", got, want)
		}
	})

	t.Run("controls by type", func(t *testing.T) {
		ctx := signedIn(t)
		// What libs/draw reads of each type (see the editor's controls):
		// the axis fields shown and the columns that colour a series.
		tests := []struct {
			typ      string
			axes     []string
			swatches int
		}{
			{"bar", []string{"x-title", "y-title", "y-range", "y-log"}, 0},
			{"line", []string{"x-title", "y-title", "y-range", "y-log"}, 0},
			{"pie", nil, 0},
			{"scatter", []string{"x-title", "y-title", "y-range", "y-log"}, 0},
			{"histogram", []string{"x-title", "y-title", "y-range"}, 1},
			{"boxplot", []string{"x-title", "y-title", "y-range", "y-log"}, 1},
			{"dotplot", []string{"x-title", "y-title", "y-range", "y-log"}, 0},
			{"sankey", nil, 0},
			{"radar", nil, 0},
			{"heatmap", []string{"x-title", "y-title"}, 1},
		}
		for _, tt := range tests {
			t.Run(tt.typ, func(t *testing.T) {
				id := makeChart(t, ctx, fmt.Sprintf(`{type: %q}`, tt.typ))
				openEditor(t, ctx, in.url, id)
				// the sample's own series count for the types with several
				want := tt.swatches
				switch tt.typ {
				case "bar", "line", "dotplot", "radar":
					want = eval[int](t, ctx, fmt.Sprintf(`(%s)("GET", "/charts/%s").then(j => [].concat(j.state.mapping.values).length)`, apiFromPage, id))
				case "scatter":
					want = eval[int](t, ctx, fmt.Sprintf(`(%s)("GET", "/charts/%s").then(j => j.state.mapping.group ? 0 : 1)`, apiFromPage, id))
				case "boxplot":
					if !eval[bool](t, ctx, fmt.Sprintf(`(%s)("GET", "/charts/%s").then(j => !!j.state.mapping.group)`, apiFromPage, id)) {
						tt.axes = tt.axes[1:]
					}
				}
				shown := eval[[]string](t, ctx, `[["x-title", "x-title"], ["y-title", "y-title"], ["y-range", "y-min"], ["y-range", "y-max"], ["y-log", "y-log"]]
					.filter(([, id]) => document.getElementById(id).offsetParent !== null).map(([name]) => name).filter((n, i, a) => a.indexOf(n) === i)`)
				if !slices.Equal(shown, tt.axes) && !(len(shown) == 0 && len(tt.axes) == 0) {
					t.Errorf("axis fields shown %v, want %v", shown, tt.axes)
				}
				if axesBox := eval[bool](t, ctx, axesShownJS); axesBox != (len(tt.axes) > 0) {
					t.Errorf("the Axes box shown: %v, want %v", axesBox, len(tt.axes) > 0)
				}
				if n := eval[int](t, ctx, `[...document.querySelectorAll("[data-series]")].filter(e => e.offsetParent !== null).length`); n != want {
					t.Errorf("%d series swatches shown, want %d", n, want)
				}
				if tt.typ == "pie" {
					screenshot(t, ctx, "editor-pie.png")
					axeCheck(t, ctx, "the editor of a pie chart")
				}
			})
		}
		// Choosing another type before Save shows that type's fields.
		id := makeChart(t, ctx, `{type: "bar"}`)
		openEditor(t, ctx, in.url, id)
		do(t, ctx, "choose pie", chromedp.SetValue(chromedp.ID("type"), "pie"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("type").dispatchEvent(new Event("change", {bubbles: true}))`))
		if eval[bool](t, ctx, axesShownJS) {
			t.Error("the Axes box stays shown after choosing pie")
		}
	})

	t.Run("long table", func(t *testing.T) {
		ctx := signedIn(t)
		var b strings.Builder
		b.WriteString("Day,Visits\n")
		for i := range 300 {
			fmt.Fprintf(&b, "D%03d,%d\n", i, i%17)
		}
		id := makeChart(t, ctx, fmt.Sprintf(`{type: "line", data: %q}`, b.String()))
		openEditor(t, ctx, in.url, id)
		rows := `document.querySelectorAll("#data-table tbody tr").length`
		gap := `document.getElementById("dl-png").getBoundingClientRect().top - document.getElementById("data-h").getBoundingClientRect().top`
		if n := eval[int](t, ctx, rows); n > 20 {
			t.Errorf("the table shows %d rows at first, want the first few", n)
		}
		// Download sits a table of a few rows below the Data heading
		// (about 700 px), not 300 rows below (over 9,000).
		if d := eval[float64](t, ctx, gap); d > 1200 {
			t.Errorf("Download is %.0f px below the Data heading", d)
		}
		if s := eval[string](t, ctx, `document.getElementById("rows-all").textContent`); s != "Show all 300 rows" {
			t.Errorf("the button says %q", s)
		}
		screenshot(t, ctx, "editor-first-rows.png")
		if clip := eval[string](t, ctx, `(b => b.scrollHeight + "/" + b.clientHeight)(document.getElementById("data-scroll"))`); func() bool {
			var sh, ch int
			fmt.Sscanf(clip, "%d/%d", &sh, &ch)
			return sh > ch+1
		}() {
			t.Errorf("the first rows scroll in their box (scroll/client height %s): some are hidden", clip)
		}
		do(t, ctx, "show all", chromedp.Click(chromedp.ID("rows-all")))
		if n := eval[int](t, ctx, rows); n != 300 {
			t.Errorf("after Show all the table shows %d rows", n)
		}
		if d := eval[float64](t, ctx, gap); d > 1200 {
			t.Errorf("with all rows Download is %.0f px below the Data heading, want the rows in a box of their own", d)
		}
		screenshot(t, ctx, "editor-all-rows.png")
		axeCheck(t, ctx, "the editor with all rows")
		do(t, ctx, "show the first rows", chromedp.Click(chromedp.ID("rows-all")))
		if n := eval[int](t, ctx, rows); n > 20 {
			t.Errorf("after Show the first rows the table shows %d rows", n)
		}
		// The pages a new person sees first, as they look.
		for _, pg := range []struct{ path, name string }{{"/charts/new?welcome=1", "new-welcome.png"}, {"/account", "account.png"}, {"/charts", "charts.png"}, {"/", "home.png"}} {
			do(t, ctx, "open "+pg.path, chromedp.Navigate(in.url+pg.path))
			poll(t, ctx, pg.path, `document.readyState === "complete"`)
			screenshot(t, ctx, pg.name)
			axeCheck(t, ctx, pg.path)
		}
	})
}

// TestSiteNewUserPages checks the server's pages a new person sees
// (issue 31): sign-up lands on New chart with a welcome; the home page's
// try-it menu and the chart cards name types as the editor does; the
// account page says nothing of resets of a full bucket and offers to
// create a signing key when there is none.
func TestSiteNewUserPages(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	p := c.confirm(c.startSignUp("newcomer@example.com"))
	csrf := csrfOf(t, p)

	t.Run("sign-up lands on New chart", func(t *testing.T) {
		if p.status != http.StatusOK || pathOf(p.url) != "/charts/new" || !strings.Contains(p.body, `id="welcome"`) || !strings.Contains(p.body, "Welcome to chartd") {
			t.Fatalf("after sign-up: %d at %s:\n%.600s", p.status, p.url, p.body)
		}
		if q := c.get("/charts/new"); strings.Contains(q.body, `id="welcome"`) {
			t.Error("New chart welcomes on every visit")
		}
	})

	t.Run("type names", func(t *testing.T) {
		home := c.get("/")
		opts := regexp.MustCompile(`<option value="(\w+)"[^>]*>([^<]*)</option>`).FindAllStringSubmatch(sectionOf(home.body, "try-heading"), -1)
		want := map[string]string{"bar": "Bar chart", "sankey": "Sankey diagram", "boxplot": "Box plot", "heatmap": "Heatmap"}
		got := map[string]string{}
		for _, o := range opts {
			got[o[1]] = o[2]
		}
		if len(opts) != 10 {
			t.Errorf("the try-it menu has %d types, want 10: %v", len(opts), got)
		}
		for typ, name := range want {
			if got[typ] != name {
				t.Errorf("the try-it menu names %s %q, want %q", typ, got[typ], name)
			}
		}
		if a := c.api("POST", "/charts", `{"type":"sankey","name":"Flows"}`, csrf); a.status != http.StatusCreated {
			t.Fatalf("create: %d %s", a.status, a.body)
		}
		list := c.get("/charts")
		if !strings.Contains(list.body, "Sankey diagram · changed") || strings.Contains(list.body, ">sankey ·") {
			t.Errorf("the chart card does not say Sankey diagram:\n%.3000s", list.body)
		}
	})

	t.Run("account wording", func(t *testing.T) {
		acct := c.get("/account")
		if strings.Contains(acct.body, "resets in 0 s") {
			t.Error(`the account page says "resets in 0 s"`)
		}
		if !strings.Contains(acct.body, "Create a signing key") || strings.Contains(acct.body, "Rotate signing key") {
			t.Errorf("with no signing key the account page offers:\n%s", sectionOf(acct.body, "signing-keys"))
		}
		// An image link makes a signing key: now it rotates.
		var made struct{ Chart struct{ ID string } }
		a := c.api("POST", "/charts", `{"type":"bar"}`, csrf)
		answer{body: []byte(a.body)}.json(t, &made)
		if l := c.api("POST", "/image-urls", fmt.Sprintf(`{"id":%q,"format":"png"}`, made.Chart.ID), csrf); l.status != http.StatusOK && l.status != http.StatusCreated {
			t.Fatalf("image link: %d %s", l.status, l.body)
		}
		acct = c.get("/account")
		if strings.Contains(acct.body, "Create a signing key") || !strings.Contains(acct.body, "Rotate signing key") {
			t.Errorf("with a signing key the account page offers:\n%s", sectionOf(acct.body, "signing-keys"))
		}
		// Requests were made this minute: the bucket says when it is full again.
		if !regexp.MustCompile(`Requests this minute: [1-9]\d* of \d+ requests[\s\S]*?resets in \d+ s`).MatchString(acct.body) {
			t.Errorf("after requests the bar says no reset:\n%s", sectionOf(acct.body, "usage-h"))
		}
	})
}
