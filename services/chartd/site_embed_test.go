package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"chartd.dev/libs/chartspec"
)

// opWords finds what the editor must never show a person: JSON, op names
// (setTitle), API operation names (get_chart) and field paths (ops[0]).
var opWords = regexp.MustCompile(`[{}]|"op"|\b(?:set|add|update|remove|clear)[A-Z]\w*|\b(?:get|set|query|list|render|create)_[a-z_]+\b|ops\[`)

// axeScript is axe-core from npm (tools/axe: npm ci there installs it).
func axeScript(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", "tools", "axe", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("axe-core: %v (run npm ci in tools/axe)", err)
	}
	return string(b)
}

// axeCheck injects axe-core into the page and fails on every serious or
// critical violation.
func axeCheck(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	do(t, ctx, "inject axe-core", chromedp.Evaluate[chromedp.Void](axeScript(t)))
	var res struct {
		Passes  int
		Serious []any
	}
	out := eval[string](t, ctx, `axe.run(document).then(r => JSON.stringify({passes: r.passes.length, serious: r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}))}))`)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Passes < 10 {
		t.Fatalf("axe on %s did not run: %v %s", what, err, out)
	}
	if len(res.Serious) > 0 {
		t.Errorf("axe on %s: serious or critical violations: %s", what, out)
	}
}

// downloadDir lets the browser save downloads into a directory of the test.
func downloadDir(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	do(t, ctx, "allow downloads", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true),
		})
		return err
	}))
	return dir
}

// clickDownload clicks a download button and answers the file the browser
// saved, waiting on the browser's download events.
func clickDownload(t *testing.T, ctx context.Context, dir, button string) []byte {
	t.Helper()
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	do(t, ctx, "click "+button, chromedp.Click(chromedp.ID(button)))
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download of %s: %v", button, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			b, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			if err != nil {
				t.Fatal(err)
			}
			return b
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("the download of %s was cancelled", button)
		}
	}
	t.Fatalf("no download from %s", button)
	return nil
}

func pngWidth(t *testing.T, what string, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG (%d bytes, %.20q): %v", what, len(b), b, err)
	}
	return img.Bounds().Dx()
}

var svgWidth = regexp.MustCompile(`^<svg [^>]*\bwidth="([0-9.]+)"`)

// TestSiteEditorDownloadAndEmbed walks the editor's Download and Embed in a
// real browser: PNG 1× and 2× and SVG of the saved chart through the
// buttons, errors beside the button, the embed code with an alt text
// override opened in a browser context without a session, the heading and
// palette after a reload, checks and notices in the site's words, the
// title question on replacing data, and axe on the editor.
func TestSiteEditorDownloadAndEmbed(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "embed@example.com")
	// A sample chart: type alone draws the type's sample data.
	id := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "bar", name: "Sample bars",
		ops: [{op: "setTitle", title: {text: "Sample sales by country"}}, {op: "setPalette", palette: "okabe-ito"}]}).then(j => j.chart.id)`, apiFromPage))

	do(t, ctx, "open the editor", chromedp.Navigate(in.url+"/charts/"+id))
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)

	t.Run("heading and palette after reload", func(t *testing.T) {
		if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Sample sales by country" {
			t.Errorf("heading %q, want the chart's title", h)
		}
		if p := eval[string](t, ctx, `document.getElementById("palette").value`); p != "okabe-ito" {
			t.Errorf("palette menu shows %q, want okabe-ito", p)
		}
		// Another palette, saved and reloaded.
		before := eval[int](t, ctx, `window.chartdEditor.previews`)
		do(t, ctx, "choose a palette", chromedp.SetValue(chromedp.ID("palette"), "tableau-10"), chromedp.Click(chromedp.ID("apply")))
		poll(t, ctx, "the save", `document.getElementById("apply-status").textContent === "Saved."`)
		poll(t, ctx, "the new preview", fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
		do(t, ctx, "reload", chromedp.Reload())
		poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
		if p := eval[string](t, ctx, `document.getElementById("palette").value`); p != "tableau-10" {
			t.Errorf("after reload the palette menu shows %q, want tableau-10", p)
		}
	})

	t.Run("download", func(t *testing.T) {
		dir := downloadDir(t, ctx)
		w := map[string]int{}
		for _, b := range []string{"dl-png", "dl-png2"} {
			w[b] = pngWidth(t, b, clickDownload(t, ctx, dir, b))
		}
		svg := clickDownload(t, ctx, dir, "dl-svg")
		m := svgWidth.FindSubmatch(svg)
		if m == nil {
			t.Fatalf("the SVG download is not an SVG: %.200q", svg)
		}
		if w["dl-png"] <= 0 || string(m[1]) != fmt.Sprint(w["dl-png"]) || w["dl-png2"] != 2*w["dl-png"] {
			t.Errorf("widths: PNG %d, PNG 2× %d, SVG %s; want the SVG's width, and twice it", w["dl-png"], w["dl-png2"], m[1])
		}
		// The button drew the saved chart through render_chart.
		if u := eval[string](t, ctx, `window.chartdEditor.download.url`); u != "/api/v1/charts/"+id+"/render.svg" {
			t.Errorf("the SVG came from %s", u)
		}
		if s := eval[string](t, ctx, `document.getElementById("dl-status").textContent`); !strings.Contains(s, "Downloaded Sample bars.svg") {
			t.Errorf("download status %q", s)
		}
	})

	t.Run("embed", func(t *testing.T) {
		do(t, ctx, "make the embed code", chromedp.Click(chromedp.ID("make-link")), chromedp.WaitVisible(chromedp.ID("embed-html")))
		poll(t, ctx, "the code", `document.getElementById("embed-html").textContent.startsWith("<img ")`)
		auto := eval[string](t, ctx, `document.getElementById("alt-auto").textContent`)
		if !strings.HasPrefix(auto, "Sample sales by country. Bar chart of") {
			t.Errorf("generated alt text %q: want the title and the chart's description", auto)
		}
		code := eval[string](t, ctx, `document.getElementById("embed-html").textContent`)
		if !strings.Contains(code, fmt.Sprintf(`alt="%s"`, strings.ReplaceAll(auto, `"`, "&quot;"))) {
			t.Errorf("embed code without the description as alt: %s", code)
		}
		do(t, ctx, "write alt text", chromedp.SendKeys(chromedp.ID("alt-text"), `Bars of "sales" & more`))
		poll(t, ctx, "the code with the alt text", `document.getElementById("embed-html").textContent.includes('alt="Bars of &quot;sales&quot; &amp; more"')`)
		code = eval[string](t, ctx, `document.getElementById("embed-html").textContent`)
		link := eval[string](t, ctx, `document.getElementById("embed-link").textContent`)
		md := eval[string](t, ctx, `document.getElementById("embed-md").textContent`)
		if md != `![Bars of "sales" & more](`+link+`)` {
			t.Errorf("markdown %q", md)
		}
		m := regexp.MustCompile(`^<img src="([^"]+)" srcset="([^" ]+) 1x, ([^" ]+) 2x" width="(\d+)" height="(\d+)" alt="[^"]*">$`).FindStringSubmatch(code)
		if m == nil {
			t.Fatalf("embed code %s", code)
		}
		src, x2 := strings.ReplaceAll(m[1], "&amp;", "&"), strings.ReplaceAll(m[3], "&amp;", "&")
		if src != link || !strings.Contains(x2, "scale=2") || !strings.Contains(src, "scale=1") {
			t.Errorf("links: src %s, 2× %s, plain %s", src, x2, link)
		}
		kid := regexp.MustCompile(`kid=([^&]+)`)
		if k1, k2 := kid.FindStringSubmatch(src), kid.FindStringSubmatch(x2); k1 == nil || k2 == nil || k1[1] != k2[1] {
			t.Errorf("the 1× and 2× links are signed with different keys: %s, %s", src, x2)
		}
		// The copy button copies the code as shown.
		do(t, ctx, "copy", chromedp.Evaluate[chromedp.Void](`window.__copied = null; navigator.clipboard.writeText = s => { window.__copied = s; return Promise.resolve(); }`),
			chromedp.Click(chromedp.CSS(`button[data-copy="embed-html"]`)))
		poll(t, ctx, "the copied code", `window.__copied !== null`)
		copied := eval[string](t, ctx, `window.__copied`)
		if copied != code {
			t.Errorf("copied %q, shown %q", copied, code)
		}

		// Beside it, the responsive embed's code and its preview at a
		// phone's, a tablet's and a desktop's width.
		poll(t, ctx, "the responsive embed code", `document.getElementById("embed-frame").textContent.startsWith("<iframe ")`)
		if frame := eval[string](t, ctx, `document.getElementById("embed-frame").textContent`); !strings.Contains(frame, `src="`+in.url+`/embed/`+id+`?kid=`) ||
			!strings.HasSuffix(frame, `<script async src="`+in.url+`/embed.js"></script>`) {
			t.Errorf("responsive embed code %s", frame)
		}
		for _, w := range []string{"360", "768", "1200"} {
			do(t, ctx, "preview at "+w, chromedp.Click(chromedp.CSS(`input[name="embed-width"][value="`+w+`"]`)))
			poll(t, ctx, "the preview at "+w, `(f => f && f.dataset.width === "`+w+`" && f.style.height !== "" &&
				Math.abs(f.getBoundingClientRect().width - Math.min(`+w+`, document.getElementById("embed-preview").clientWidth)) < 1.5)(document.querySelector("#embed-preview iframe"))`)
		}

		axeCheck(t, ctx, "the editor with the embed code")
		do(t, ctx, "phone", chromedp.EmulateViewport(360, 740))
		if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
			t.Errorf("the editor with the embed code is %d px wide on a 360 px phone", w)
		}
		do(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900))

		// A fresh browser context: no cookie, no session.
		fresh, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
		defer cancel()
		do(t, fresh, "open a page of the site without a session", chromedp.Navigate(in.url+"/signin"))
		if eval[bool](t, fresh, `fetch("/api/v1/account").then(r => r.ok)`) {
			t.Fatal("the fresh context has a session")
		}
		do(t, fresh, "put the embed code in the page", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const d = document.createElement("div"); d.id = "embedded"; d.innerHTML = %q; document.body.prepend(d); })()`, copied)))
		poll(t, fresh, "the embedded image", `(i => i.complete && i.naturalWidth > 0)(document.querySelector("#embedded img"))`)
		if w := eval[int](t, fresh, `document.querySelector("#embedded img").naturalWidth`); fmt.Sprint(w) != m[4] {
			t.Errorf("the embedded image is %d px wide, the code says %s", w, m[4])
		}
		for _, u := range []string{src, x2} {
			resp, err := http.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			want := 1
			if u == x2 {
				want = 2
			}
			if w := pngWidth(t, u, b.Bytes()); fmt.Sprint(w/want) != m[4] || w%want != 0 {
				t.Errorf("%s is %d px wide, want %d × %s", u, w, want, m[4])
			}
		}
	})

	t.Run("checks speak to people", func(t *testing.T) {
		// No title: missing-title; a pie of eight slices: pie-too-many-slices.
		pie := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "pie", name: "Slices",
			data: "Fruit,Kg\nA,9\nB,8\nC,7\nD,6\nE,5\nF,4\nG,3\nH,2\n"}).then(j => j.chart.id)`, apiFromPage))
		do(t, ctx, "open the pie", chromedp.Navigate(in.url+"/charts/"+pie))
		poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
		for _, lint := range []string{chartspec.CheckMissingTitle, chartspec.CheckPieTooManySlices} {
			if !eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('#lint li[data-lint=%q]')`, lint)) {
				t.Errorf("no %s in the Checks panel", lint)
			}
		}
		panel := eval[string](t, ctx, `document.getElementById("lint").innerText`)
		if opWords.MatchString(panel) {
			t.Errorf("the Checks panel shows API words: %q", opWords.FindString(panel))
		}
		if !strings.Contains(panel, "This pie has 8 slices") || !strings.Contains(panel, "Keep the 5 largest") || !strings.Contains(panel, "Go to Title") {
			t.Errorf("Checks panel:\n%s", panel)
		}
		// A fix saves itself only: an edit not yet saved stays in the form
		// and in the preview, still unsaved.
		do(t, ctx, "type a subtitle, unsaved", chromedp.SendKeys(chromedp.ID("subtitle"), "Kilograms sold"))
		poll(t, ctx, "the subtitle previewed", `window.chartdEditor.svg.text().then(s => s.includes("Kilograms sold"))`)
		do(t, ctx, "apply the fix", chromedp.Click(chromedp.CSS(`#lint li[data-lint="pie-too-many-slices"] button.fix`)))
		poll(t, ctx, "the fix applied", `document.getElementById("lint-status").textContent === "Fix applied." && !document.querySelector('#lint li[data-lint="pie-too-many-slices"]')`)
		poll(t, ctx, "the unsaved subtitle kept", `document.getElementById("subtitle").value === "Kilograms sold" && document.getElementById("preview-msg").textContent.includes("Unsaved") &&
			window.chartdEditor.svg.text().then(s => s.includes("Kilograms sold") && s.includes("Other"))`)
		var saved struct {
			State struct {
				Steps []map[string]any
				Style struct{ Subtitle *struct{ Text string } }
			}
		}
		if err := json.Unmarshal([]byte(eval[string](t, ctx, fmt.Sprintf(`fetch("/api/v1/charts/%s").then(r => r.text())`, pie))), &saved); err != nil {
			t.Fatal(err)
		}
		if len(saved.State.Steps) != 1 || saved.State.Steps[0]["type"] != "topN" || (saved.State.Style.Subtitle != nil && saved.State.Style.Subtitle.Text != "") {
			t.Fatalf("after the fix the chart has steps %v and subtitle %+v", saved.State.Steps, saved.State.Style.Subtitle)
		}
		do(t, ctx, "drop the unsaved subtitle", chromedp.Evaluate[chromedp.Void](`(s => { s.value = ""; s.dispatchEvent(new Event("input", {bubbles: true})) })(document.getElementById("subtitle"))`))
		poll(t, ctx, "nothing unsaved", `document.getElementById("preview-msg").textContent === ""`)
		do(t, ctx, "go to the title", chromedp.Click(chromedp.CSS(`#lint li[data-lint="missing-title"] button`)))
		poll(t, ctx, "the title field focused", `document.activeElement === document.getElementById("title")`)
		axeCheck(t, ctx, "the editor with checks")

		// Every lint check has the site's words.
		ids := eval[[]string](t, ctx, `window.chartdWords.lintIDs`)
		for _, c := range chartspec.Checks() {
			if !slices.Contains(ids, c.ID) {
				t.Errorf("lint check %s has no words on the site", c.ID)
			}
		}
	})

	t.Run("refusals and notices in the site's words", func(t *testing.T) {
		tests := []struct{ call, want string }{
			{`error({code: "invalid_ops", message: 'ops[0].palette: no preset palette "x"; the presets are okabe-ito (Okabe-Ito), or "brand" for the account\'s brand palette'})`, `Palette: No preset palette "x".`},
			{`error({code: "render_limit_reached", message: "daily renders used up; see get_account"})`, "You have drawn as many charts today"},
			{`error({code: "invalid_request", message: 'data: send {"data": "..."} with set_data'})`, "That change cannot be made to this chart."},
			{`error(new TypeError("Failed to fetch"))`, "The server could not be reached."},
			{`error(new Error("the server answered 502"))`, "The server answered 502."},
			{`notice({code: "roles_repicked", message: "the new data lacks some of the chart's columns by name, so its roles were picked again; check them with get_chart"})`, "were picked again. Look at the preview."},
			{`notice({code: "mixed_values", message: 'column Kg was read as text: row 3 holds "x", which is not a number'})`, `Column Kg was read as text: row 3 holds "x", which is not a number.`},
			{`lint({id: "no-such-check", message: 'Something odd. Fix it with {"op":"setTitle"}.'})`, "Something odd."},
			// columns by name, never by id; no field name in front
			{`error({code: "invalid_ops", message: 'ops[0].mapping.values: c1 (Country) is a text column; values takes number columns: c2 (Sales)'})`, "Country is a text column. Values takes number columns: Sales."},
			{`error({code: "invalid_request", message: 'kind: column "Team" (c2) cannot be read as numbers: row 1 holds "North", which is not a number'})`, `Column "Team" cannot be read as numbers: row 1 holds "North", which is not a number.`},
			{`notice({code: "mixed_values", message: 'column "Sales" (c2) was read as text: row 3 holds "n/a", which is not a number'})`, `Column "Sales" was read as text: row 3 holds "n/a", which is not a number.`},
		}
		for _, tt := range tests {
			got := eval[string](t, ctx, `(r => typeof r === "string" ? r : r.text)(window.chartdWords.`+tt.call+`)`)
			if !strings.Contains(got, tt.want) || opWords.MatchString(got) {
				t.Errorf("%s = %q, want %q and no API words", tt.call, got, tt.want)
			}
		}
	})

	t.Run("replacing a sample's data asks about its title", func(t *testing.T) {
		do(t, ctx, "open the sample", chromedp.Navigate(in.url+"/charts/"+id))
		poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
		before := eval[int](t, ctx, `window.chartdEditor.previews`)
		do(t, ctx, "paste data", chromedp.SetValue(chromedp.ID("csv"), "Planet,Moons\nMars,2\nJupiter,95\n"), chromedp.Click(chromedp.ID("set-data")),
			chromedp.WaitVisible(chromedp.ID("title-ask")))
		if eval[int](t, ctx, `window.chartdEditor.previews`) != before || eval[bool](t, ctx, `document.getElementById("data-table").textContent.includes("Jupiter")`) {
			t.Fatal("the data was replaced before the title question was answered")
		}
		if !eval[bool](t, ctx, `document.activeElement === document.getElementById("title-keep") && document.getElementById("title-ask").textContent.includes("Sample sales by country")`) {
			t.Error("the question does not name the title or has no focus")
		}
		axeCheck(t, ctx, "the editor asking about the title")
		do(t, ctx, "clear the title", chromedp.Click(chromedp.ID("title-clear")))
		poll(t, ctx, "the new data and no title", `document.getElementById("data-table").textContent.includes("Jupiter") && document.getElementById("title").value === "" && document.getElementById("data-status").textContent.startsWith("Data replaced")`)
		poll(t, ctx, "the preview without the old title", `window.chartdEditor.svg.text().then(s => s.includes("Jupiter") && !s.includes("Sample sales"))`)
		if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Sample bars" {
			t.Errorf("heading %q without a title, want the name", h)
		}
		notices := eval[string](t, ctx, `document.getElementById("notices").innerText`)
		if opWords.MatchString(notices) {
			t.Errorf("notices show API words: %q", notices)
		}
	})

	t.Run("errors beside the button", func(t *testing.T) {
		// The chart deleted elsewhere: the download is refused.
		if !eval[bool](t, ctx, fmt.Sprintf(`fetch("/api/v1/charts/%s", {method: "DELETE", headers: {"X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content}}).then(r => r.ok)`, id)) {
			t.Fatal("delete the chart behind the editor")
		}
		do(t, ctx, "download", chromedp.Click(chromedp.ID("dl-png")))
		poll(t, ctx, "the refusal beside the button", `document.getElementById("dl-status").className === "error"`)
		msg := eval[string](t, ctx, `document.getElementById("dl-status").textContent`)
		if msg != "This chart is no longer there; it may have been deleted elsewhere." {
			t.Errorf("download refusal %q", msg)
		}
		if s := eval[string](t, ctx, `document.getElementById("status").textContent`); s != "" {
			t.Errorf("the page's status line says %q; the refusal belongs beside the button", s)
		}
		// The status line sits right after the buttons.
		if !eval[bool](t, ctx, `document.getElementById("dl-svg").parentElement.nextElementSibling === document.getElementById("dl-status")`) {
			t.Error("the download status is not beside the buttons")
		}
	})
}

// TestSiteAccountKeysRedirectAfterPost creates a key through the form: the
// answer is a redirect to the account page, which shows the key once; a
// reload (GET) shows it no more, and GET /account/keys is the account page.
func TestSiteAccountKeysRedirectAfterPost(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	csrf := c.signUp("keys@example.com")

	noFollow := *c.http
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest(http.MethodPost, in.url+"/account/keys", strings.NewReader(url.Values{"csrf": {csrf}, "name": {"ci"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account#api-keys" {
		t.Fatalf("create key: %d to %q, want 303 to /account#api-keys", resp.StatusCode, resp.Header.Get("Location"))
	}
	var flash *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "chartd_flash" {
			flash = ck
		}
	}
	if flash == nil || !flash.HttpOnly || flash.Path != "/account" {
		t.Fatalf("the flash cookie: %+v", flash)
	}
	if raw, _ := base64.RawURLEncoding.DecodeString(flash.Value); strings.Contains(string(raw), "chd_") || strings.Contains(flash.Value, "chd_") {
		t.Fatal("the new key is stored in the browser in the clear")
	}
	// Another session given the cookie, and a forged one, show nothing.
	other := newBrowserClient(t, in.url)
	other.signUp("other-keys@example.com")
	forged, _ := json.Marshal(map[string]string{"k": "chd_forged", "e": "Your account is locked; call +1 555"})
	for name, value := range map[string]string{"another session's": flash.Value, "forged": base64.RawURLEncoding.EncodeToString(forged)} {
		u, _ := url.Parse(in.url + "/account")
		other.http.Jar.SetCookies(u, []*http.Cookie{{Name: "chartd_flash", Value: value, Path: "/account"}})
		if p := other.get("/account"); p.status != http.StatusOK || strings.Contains(p.body, "new-key") || strings.Contains(p.body, "locked") {
			t.Fatalf("%s flash was shown: %d", name, p.status)
		}
	}
	first := c.get("/account")
	key := regexp.MustCompile(`<code id="new-key">(chd_[^<]+)</code>`).FindStringSubmatch(first.body)
	if first.status != http.StatusOK || key == nil {
		t.Fatalf("the account page after the redirect does not show the new key: %d\n%.1500s", first.status, first.body)
	}
	if a := newClient(t, in.url, key[1]).do("GET", "/api/v1/account", nil); a.status != http.StatusOK {
		t.Fatalf("the new key: %d %s", a.status, a.body)
	}
	tests := []struct{ name, path string }{
		{"reload", "/account"},
		{"the form's address", "/account/keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := c.get(tt.path)
			if p.status != http.StatusOK || pathOf(p.url) != "/account" || !strings.Contains(p.body, `id="api-keys"`) {
				t.Fatalf("GET %s: %d at %s", tt.path, p.status, p.url)
			}
			if strings.Contains(p.body, key[1]) || strings.Contains(p.body, "new-key") {
				t.Fatalf("GET %s shows the key again", tt.path)
			}
		})
	}
	// A key without a name: the reason, once, after a redirect too.
	p := c.post("/account/keys", url.Values{"csrf": {csrf}, "name": {"  "}})
	if p.status != http.StatusOK || pathOf(p.url) != "/account" || !strings.Contains(p.body, "Name the key") {
		t.Fatalf("key without a name: %d at %s", p.status, p.url)
	}
	if p := c.get("/account"); strings.Contains(p.body, "Name the key") {
		t.Fatal("the refusal is shown again on reload")
	}
}

// pathOf is the path of an address.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Path
}

// TestSiteFavicon checks the icon: linked from every page, served as SVG
// with cache headers, and 304 for a browser that has it.
func TestSiteFavicon(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	home := c.get("/")
	if !strings.Contains(home.body, `<link rel="icon" href="/favicon.svg" type="image/svg+xml">`) {
		t.Fatalf("the layout does not link the icon:\n%.600s", home.body)
	}
	var etag string
	for _, path := range []string{"/favicon.svg", "/favicon.ico"} {
		p := c.get(path)
		if p.status != http.StatusOK || p.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(p.body, "<svg ") ||
			p.header.Get("Cache-Control") != "public, max-age=86400" || p.header.Get("ETag") == "" {
			t.Fatalf("%s: %d %v %.100s", path, p.status, p.header, p.body)
		}
		etag = p.header.Get("ETag")
	}
	req, _ := http.NewRequest(http.MethodGet, in.url+"/favicon.svg", nil)
	req.Header.Set("If-None-Match", etag)
	if p := c.send(req); p.status != http.StatusNotModified || p.body != "" {
		t.Fatalf("icon with its ETag: %d %q", p.status, p.body)
	}
}

// TestSiteConsentFailedExchangeNotConnected allows an app on the consent
// page twice: the consent whose code exchange fails is not listed under
// Connected apps; the one whose exchange succeeds is.
func TestSiteConsentFailedExchangeNotConnected(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	c.signUp("consent@example.com")
	cb := newCallback(t)
	clientID := registerClient(t, in.url, "Flaky App", cb.url)
	verifier := strings.Repeat("v3rifier-", 6)
	noFollow := *c.http
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	allow := func() string {
		q := url.Values{"client_id": {clientID}, "redirect_uri": {cb.url}, "response_type": {"code"}, "scope": {"charts:read"},
			"state": {"s"}, "code_challenge": {sha256Base64(verifier)}, "code_challenge_method": {"S256"}}
		page := c.get("/oauth/authorize?" + q.Encode())
		if page.status != http.StatusOK || !strings.Contains(page.body, "Flaky App") {
			t.Fatalf("consent page: %d %.500s", page.status, page.body)
		}
		q.Set("csrf", csrfOf(t, page))
		q.Set("decision", "allow")
		req, _ := http.NewRequest(http.MethodPost, in.url+"/oauth/authorize", strings.NewReader(q.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		to, err := url.Parse(r.Header.Get("Location"))
		if err != nil || to.Query().Get("code") == "" {
			t.Fatalf("allow: %d to %q", r.StatusCode, r.Header.Get("Location"))
		}
		return to.Query().Get("code")
	}
	exchange := func(code, verifier string) int {
		st, _ := postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID},
			"redirect_uri": {cb.url}, "code_verifier": {verifier}})
		return st
	}
	if st := exchange(allow(), strings.Repeat("x", 43)); st != http.StatusBadRequest {
		t.Fatalf("exchange with the wrong verifier: %d", st)
	}
	// A consent whose code never comes back is no connection either.
	allow()
	if p := c.get("/account"); strings.Contains(p.body, "Flaky App") || !strings.Contains(p.body, `id="no-apps"`) {
		t.Fatalf("the failed consents are listed under Connected apps:\n%s", p.body[strings.Index(p.body, `id="apps"`):])
	}
	if st := exchange(allow(), verifier); st != http.StatusOK {
		t.Fatalf("exchange: %d", st)
	}
	p := c.get("/account")
	if n := strings.Count(p.body, "<td>Flaky App</td>"); n != 1 {
		t.Fatalf("after a good exchange the app is listed %d times, want once:\n%s", n, p.body[strings.Index(p.body, `id="apps"`):])
	}
}
