package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"chartd.dev/charts"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/store"
)

// sectionOf cuts a page's HTML from the heading with id to the next
// level-2 heading.
func sectionOf(page, id string) string {
	at := strings.Index(page, `<h2 id="`+id+`"`)
	if at < 0 {
		return ""
	}
	rest := page[at+1:]
	if end := strings.Index(rest, "<h2 "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

var exampleItem = regexp.MustCompile(`(?s)<li><code>([a-z0-9-]+)</code>(.*?)</li>`)

// TestDocsPictures: every chart type and every example on
// /docs/chart-types/ has its picture, an inline SVG the service drew,
// and the style ops on /docs/ops/ a before/after pair; one font block per
// page carries the faces, and the page's CSP lets it load them.
func TestDocsPictures(t *testing.T) { docsPicturesScenario(t, startAll(t)) }

// TestDocsPicturesSplit: in split mode the gateway, without fonts of its
// own, shows the pictures the render service drew, and the try-it box
// draws through it.
func TestDocsPicturesSplit(t *testing.T) { docsPicturesScenario(t, startSplit(t)) }

func docsPicturesScenario(t *testing.T, in instance) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := newBrowserClient(t, in.url)
	p := c.get("/docs/chart-types/")
	if p.status != http.StatusOK {
		t.Fatalf("chart types page: %d", p.status)
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "font-src data:") {
		t.Errorf("CSP %q does not let the pictures' fonts load", csp)
	}
	if n := strings.Count(p.body, "@font-face"); n == 0 {
		t.Error("the page carries no font faces for its pictures")
	}
	for _, ct := range cat.Types() {
		sec := sectionOf(p.body, ct.Type)
		if sec == "" {
			t.Errorf("type %s: no section", ct.Type)
			continue
		}
		head, _, _ := strings.Cut(sec, "<p>")
		if !strings.Contains(head, `<figure class="type-picture"><svg`) {
			t.Errorf("type %s: no picture under its heading", ct.Type)
		}
		items := map[string]string{}
		for _, m := range exampleItem.FindAllStringSubmatch(sec, -1) {
			items[m[1]] = m[2]
		}
		for _, ex := range cat.Examples(ct.Type) {
			item, ok := items[ex.ID]
			if !ok {
				t.Errorf("example %s: not listed", ex.ID)
				continue
			}
			if !strings.Contains(item, "<svg") || !strings.Contains(item, "</svg>") || !strings.Contains(item, `role="img"`) {
				t.Errorf("example %s: no picture", ex.ID)
			}
		}
	}
	ops := c.get("/docs/ops/")
	for _, op := range []string{"setPalette", "setLabels", "setVariants", "setFooter"} {
		m := regexp.MustCompile(`(?s)<li><code>` + op + `</code>(.*?)</li>`).FindStringSubmatch(ops.body)
		if m == nil || strings.Count(m[1], "<svg") != 2 || !strings.Contains(m[1], "Before") || !strings.Contains(m[1], "After") {
			t.Errorf("op %s: no before/after pair", op)
		}
	}
	if strings.Count(ops.body, `aria-hidden="true" focusable="false"`) != 1 {
		t.Error("the ops page carries its font block not exactly once")
	}
	t.Logf("chart types page %d bytes, ops page %d bytes (pictures and one font block included)", len(p.body), len(ops.body))
	home := c.get("/")
	if n := strings.Count(home.body, `<svg xmlns`); n != 3 {
		t.Errorf("the home page shows %d pictures, want 3", n)
	}
	if css := c.get("/home/fonts.css"); css.status != http.StatusOK || !strings.Contains(css.body, "@font-face") || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") {
		t.Errorf("/home/fonts.css: %d %s", css.status, css.header.Get("Content-Type"))
	}
	req, _ := http.NewRequest(http.MethodPost, in.url+"/try", strings.NewReader(`{"type":"line","data":"Year,Rain\n2020,3\n2021,5\n2022,4\n"}`))
	req.Header.Set("Content-Type", "application/json")
	tried := c.send(req)
	var ans struct{ SVG, Description string }
	answer{body: []byte(tried.body)}.json(t, &ans)
	if tried.status != http.StatusOK || !strings.Contains(ans.SVG, "@font-face") || !strings.Contains(ans.Description, "Rain") {
		t.Errorf("try: %d %.300s", tried.status, tried.body)
	}
	if tried.header.Get(quota.HeaderRemaining) != "19" {
		t.Errorf("try: %s %q, want 19 of 20", quota.HeaderRemaining, tried.header.Get(quota.HeaderRemaining))
	}
	bad, _ := http.NewRequest(http.MethodPost, in.url+"/try", strings.NewReader(`{"type":"pie","data":"just words"}`))
	if p := c.send(bad); p.status != http.StatusBadRequest || !strings.Contains(p.body, "cannot be drawn") {
		t.Errorf("try with data that cannot be drawn: %d %.300s", p.status, p.body)
	}
}

// TestSiteChartsList: the chart list of an account with 120 charts made
// in the store searches titles, sorts by change, pages past 50 and shows
// no other account's chart; the page passes axe.
func TestSiteChartsList(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	csrf := c.signUp("lister@example.com")
	made := c.api("POST", "/charts", `{"type":"bar","name":"Seed"}`, csrf)
	var seed struct{ Chart struct{ ID string } }
	answer{body: []byte(made.body)}.json(t, &seed)
	if made.status != http.StatusCreated {
		t.Fatalf("seed chart %d %s", made.status, made.body)
	}
	st := in.open(t)
	defer st.Close()
	ctx := context.Background()
	user, err := st.FindUserByEmail(ctx, "lister@example.com")
	if err != nil {
		t.Fatal(err)
	}
	acct := struct{ ID string }{user.AccountID}
	full, err := st.GetChartWithData(ctx, acct.ID, seed.Chart.ID)
	if err != nil {
		t.Fatal(err)
	}
	// 120 charts, oldest first: "Apple 000" … every third a pear.
	for i := range 120 {
		fruit := "Apple"
		if i%3 == 0 {
			fruit = "Pear"
		}
		ch := store.Chart{AccountID: acct.ID, Name: fmt.Sprintf("%s %03d", fruit, i), Type: full.Type, Spec: full.Spec, Data: full.Data}
		if _, err := st.CreateChart(ctx, ch, 0); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	other := newClient(t, in.url, in.newAccount(t, "pro"))
	if a := other.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "name": "Apple of another account"}); a.status >= 300 {
		t.Fatalf("other account's chart: %d %s", a.status, a.body)
	}
	names := regexp.MustCompile(`<span class="name">([^<]*)</span>`)
	list := func(path string) ([]string, page) {
		t.Helper()
		p := c.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", path, p.status, p.body)
		}
		var out []string
		for _, m := range names.FindAllStringSubmatch(p.body, -1) {
			out = append(out, m[1])
		}
		return out, p
	}
	cases := []struct {
		path        string
		n           int
		first, last string
		prev, next  bool
	}{
		{"/charts", 50, "Apple 119", "Apple 070", false, true},
		{"/charts?page=2", 50, "Pear 069", "Apple 020", true, true},
		{"/charts?page=3", 21, "Apple 019", "Seed", true, false},
		{"/charts?sort=oldest", 50, "Seed", "Pear 048", false, true},
		{"/charts?sort=oldest&page=3", 21, "Pear 099", "Apple 119", true, false},
		{"/charts?q=pear", 40, "Pear 117", "Pear 000", false, false},
		{"/charts?q=APPLE", 50, "Apple 119", "Apple 046", false, true},
		{"/charts?q=apple&page=2", 30, "Apple 044", "Apple 001", true, false},
		{"/charts?q=apple&sort=oldest&page=2", 30, "Apple 076", "Apple 119", true, false},
	}
	for _, tc := range cases {
		got, p := list(tc.path)
		if len(got) != tc.n || got[0] != tc.first || got[len(got)-1] != tc.last {
			t.Errorf("%s: %d charts %q … %q, want %d %q … %q", tc.path, len(got), first(got), last(got), tc.n, tc.first, tc.last)
		}
		if strings.Contains(p.body, `rel="prev"`) != tc.prev || strings.Contains(p.body, `rel="next"`) != tc.next {
			t.Errorf("%s: prev link %v next %v, want %v %v", tc.path, strings.Contains(p.body, `rel="prev"`), strings.Contains(p.body, `rel="next"`), tc.prev, tc.next)
		}
		if strings.Contains(p.body, "another account") {
			t.Errorf("%s shows another account's chart", tc.path)
		}
	}
	if _, p := list("/charts?q=apple&sort=oldest"); !strings.Contains(p.body, `href="/charts?page=2&amp;q=apple&amp;sort=oldest"`) {
		t.Errorf("the next link does not keep the search and the order")
	}
	if _, p := list("/charts?q=kiwi"); !strings.Contains(p.body, "No chart title holds") {
		t.Errorf("a search without matches says so")
	}
	for _, bad := range []string{"/charts?sort=name", "/charts?page=0", "/charts?page=x"} {
		if p := c.get(bad); p.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, p.status)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// TestSiteHomeTry walks the home page in a real browser: the example
// charts the service drew, the try-it box drawing pasted data without a
// session, its own allowance answering 429 with Retry-After past it (and
// the box saying so), and axe on /, /charts and /docs/chart-types/.
func TestSiteHomeTry(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	do(t, ctx, "open the home page", chromedp.Navigate(in.url+"/"))
	poll(t, ctx, "the page", `document.readyState === "complete"`)
	if n := eval[int](t, ctx, `document.querySelectorAll(".examples svg[role=img] title").length`); n != 3 {
		t.Errorf("the home page shows %d example charts, want 3", n)
	}
	if !eval[bool](t, ctx, `fetch("/home/fonts.css").then(r => r.text()).then(t => t.includes("@font-face") && t.includes("base64,"))`) {
		t.Error("the examples' fonts are not served")
	}
	poll(t, ctx, "the examples' fonts loaded", `document.fonts.status === "loaded" && [...document.fonts].some(f => f.status === "loaded")`)
	axeCheck(t, ctx, "the home page")

	do(t, ctx, "draw pasted data",
		chromedp.SetValue(chromedp.ID("try-type"), "bar"),
		chromedp.SetValue(chromedp.ID("try-data"), "Team,Goals\nReds,12\nBlues,9\nGreens,15\n"),
		chromedp.Click(chromedp.ID("try-draw")))
	poll(t, ctx, "the picture", `window.chartdTry.drawn === 1`)
	if w := eval[int](t, ctx, `document.getElementById("try-picture").naturalWidth`); w != 640 {
		t.Errorf("the picture is %d px wide, want 640", w)
	}
	if alt := eval[string](t, ctx, `document.getElementById("try-picture").alt`); !strings.Contains(alt, "Greens") {
		t.Errorf("alt text %q does not describe the data", alt)
	}
	if s := eval[string](t, ctx, `document.getElementById("try-status").textContent`); s != "Drawn." {
		t.Errorf("status %q", s)
	}
	axeCheck(t, ctx, "the home page with a drawing")

	// The allowance: 20 an hour per address; one is used.
	out := eval[string](t, ctx, `(async () => { const s = [];
		for (let i = 0; i < 20; i++) { const r = await fetch("/try", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({type: "pie", data: "a,b\nx,1\ny,2\n"})}); const j = await r.json();
			s.push(r.status + ":" + (r.headers.get("Retry-After") || "") + ":" + (j.error ? j.error.code : "")); }
		return s.join(" ") })()`)
	got := strings.Fields(out)
	for i, g := range got {
		want200 := i < 19
		if want200 && !strings.HasPrefix(g, "200::") {
			t.Errorf("try %d: %s, want 200 within the allowance", i+2, g)
		}
		if !want200 {
			parts := strings.Split(g, ":")
			if parts[0] != "429" || parts[1] == "" || parts[1] == "0" || parts[2] != "rate_limited" {
				t.Errorf("try %d: %s, want 429 rate_limited with Retry-After", i+2, g)
			}
		}
	}
	do(t, ctx, "draw once more", chromedp.Click(chromedp.ID("try-draw")))
	poll(t, ctx, "the refusal beside the button", `window.chartdTry.failed === 1`)
	if s := eval[string](t, ctx, `document.getElementById("try-status").textContent`); !strings.Contains(s, "try again in") || strings.Contains(s, "rate_limited") {
		t.Errorf("the box says %q past the allowance", s)
	}

	signUpInBrowser(t, ctx, in.url, "home@example.com")
	for _, name := range []string{"Apples", "Pears"} {
		eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "bar", name: %q}).then(j => j.chart.id)`, apiFromPage, name))
	}
	do(t, ctx, "search the chart list", chromedp.Navigate(in.url+"/charts"), chromedp.SetValue(chromedp.ID("chart-search"), "pear"),
		chromedp.Submit(chromedp.ID("chart-search")), chromedp.WaitVisible(chromedp.CSS(`.listbar a[href="/charts"]`)))
	poll(t, ctx, "the search result", `location.search.includes("q=pear") && document.querySelectorAll(".card").length === 1`)
	if v := eval[string](t, ctx, `document.getElementById("chart-search").value`); v != "pear" {
		t.Errorf("the search field shows %q after the search", v)
	}
	axeCheck(t, ctx, "the chart list")
	do(t, ctx, "open the chart types", chromedp.Navigate(in.url+"/docs/chart-types/"))
	poll(t, ctx, "the pictures", `document.readyState === "complete" && document.querySelectorAll("figure svg").length >= 30`)
	axeCheck(t, ctx, "the chart types page")
}

// TestPicturesDrawnAtStart: the docs' and home page's pictures are drawn
// when the process starts, before any page asks for them, so the first
// visitor of the chart types page gets them at once.
func TestPicturesDrawnAtStart(t *testing.T) {
	in := startAll(t)
	deadline := time.Now().Add(30 * time.Second)
	for !in.app.pictures.Has() {
		if time.Now().After(deadline) {
			t.Fatal("no picture drawn 30 s after start without a page asking")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	resp, err := http.Get(in.url + "/docs/chart-types/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if n := strings.Count(string(body), "<svg"); resp.StatusCode != http.StatusOK || n < 30 {
		t.Fatalf("the first chart types page: %d with %d pictures", resp.StatusCode, n)
	}
	t.Logf("the first chart types page, pictures drawn at start: %v", took)
}

// TestSiteHomeTryWithoutScript: with script turned off, the try-it box
// is a plain form: the post answers the home page with the picture, the
// data as sent and the type kept, or the reason beside the button; it
// counts against the same allowance.
func TestSiteHomeTryWithoutScript(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	do(t, ctx, "turn script off", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	do(t, ctx, "open the home page", chromedp.Navigate(in.url+"/"))
	// The example pictures load after the page and move the layout; a
	// click aimed before they did can miss the button. Enter on the
	// focused button is where no layout can move it.
	poll(t, ctx, "the page", `document.readyState === "complete" && [...document.images].every((i) => i.complete)`)
	do(t, ctx, "draw pasted data",
		chromedp.SetValue(chromedp.ID("try-type"), "pie"),
		chromedp.SetValue(chromedp.ID("try-data"), "Team,Goals\nReds,12\nBlues,9\nGreens,15\n"),
		chromedp.Focus(chromedp.ID("try-draw")), chromedp.KeyEvent(kb.Enter))
	poll(t, ctx, "the picture", `location.pathname === "/try" && document.getElementById("try-picture").complete && document.getElementById("try-picture").naturalWidth === 640`)
	got := eval[string](t, ctx, `[document.getElementById("try-status").textContent, document.getElementById("try-type").value, document.getElementById("try-data").value, document.getElementById("try-picture").alt].join("|")`)
	if parts := strings.Split(got, "|"); parts[0] != "Drawn." || parts[1] != "pie" || parts[2] != "Team,Goals\nReds,12\nBlues,9\nGreens,15\n" || !strings.Contains(parts[3], "Greens") {
		t.Fatalf("after the post the box shows %q", got)
	}

	do(t, ctx, "draw data that is not a table", chromedp.SetValue(chromedp.ID("try-data"), "just words"),
		chromedp.Focus(chromedp.ID("try-draw")), chromedp.KeyEvent(kb.Enter))
	poll(t, ctx, "the reason", `document.getElementById("try-result").hidden && document.getElementById("try-status").textContent.includes("cannot be drawn")`)

	// Script or not, it is the same allowance.
	left := 0
	for i := 0; i < 30; i++ {
		resp, err := http.PostForm(in.url+"/try", url.Values{"type": {"bar"}, "data": {"A,B\nx,1\n"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("post %d: %d", i, resp.StatusCode)
		}
		left++
	}
	if left >= 30 {
		t.Fatal("form posts are not counted")
	}
}
