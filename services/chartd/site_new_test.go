package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/xuri/excelize/v2"
)

// axeSource reads axe-core for the accessibility checks (npm ci --prefix
// tools/axe installs it); a missing copy fails the test.
func axeSource(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", "tools", "axe", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("axe-core is not installed at %s: run npm ci --prefix tools/axe (%v)", p, err)
	}
	return string(b)
}

// checkAxe runs axe-core on the page in ctx and fails on any serious or
// critical violation.
func checkAxe(t *testing.T, ctx context.Context, axe, what string) {
	t.Helper()
	if !eval[bool](t, ctx, `typeof window.axe === "object"`) {
		do(t, ctx, "inject axe", chromedp.Evaluate[chromedp.Void](axe))
	}
	found := eval[[]string](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => v.impact + " " + v.id + ": " + v.help + " at " + v.nodes.map(n => n.target.join(" ")).join(", ")))`)
	for _, v := range found {
		t.Errorf("axe on %s: %s", what, v)
	}
}

// writeWorkbook writes an XLSX of two sheets: Sales (first) and Costs.
func writeWorkbook(t *testing.T) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Sales"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewSheet("Costs"); err != nil {
		t.Fatal(err)
	}
	sheets := map[string][][]any{
		"Sales": {{"Region", "Units"}, {"North", 120}, {"South", 95}, {"East", 143}, {"West", 88}},
		"Costs": {{"Quarter", "Rent", "Staff"}, {"Q1", 10.5, 40}, {"Q2", 11, 42}, {"Q3", 11, 45}},
	}
	for name, rows := range sheets {
		for i, row := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "figures.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// screenshot saves the page as PNG in $CHARTD_SCREENSHOTS, when set (the
// README tour's pictures).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("CHARTD_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chartState reads a chart's type, title and mapping with the session.
func chartState(t *testing.T, ctx context.Context, id string) (typ, title string, mapping map[string]any, columns []string) {
	t.Helper()
	raw := eval[string](t, ctx, fmt.Sprintf(`fetch("/api/v1/charts/%s").then(r => r.text())`, id))
	var g struct {
		State struct {
			Type    string
			Mapping map[string]any
			Columns []struct{ Name string }
			Style   struct {
				Title struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(raw), &g); err != nil {
		t.Fatalf("get chart %s: %v: %s", id, err, raw)
	}
	for _, c := range g.State.Columns {
		columns = append(columns, c.Name)
	}
	return g.State.Type, g.State.Style.Title.Text, g.State.Mapping, columns
}

// editorID waits for the editor and answers the chart's id.
func editorID(t *testing.T, ctx context.Context) string {
	t.Helper()
	do(t, ctx, "the editor page", chromedp.WaitVisible(chromedp.ID("editor")))
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
	return eval[string](t, ctx, `document.getElementById("editor").getAttribute("data-id")`)
}

// TestNewChartBrowser walks the new-chart page in a real browser against
// the real servers: a chart from pasted CSV (the data as read, swapped
// and back, every type drawn, a role changed), from an uploaded XLSX
// (first sheet, then another), from an example and as a copy; then the
// editor's live preview redraws each edit before Save, keeps focus, and
// the saved chart survives a reload. axe finds nothing serious on the
// new page or the editor.
func TestNewChartBrowser(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	axe := axeSource(t)
	signUpInBrowser(t, ctx, in.url, "maker@example.com")
	do(t, ctx, "open New chart from the chart list",
		chromedp.Navigate(in.url+"/charts"),
		chromedp.Click(chromedp.ID("new-chart")),
		chromedp.WaitVisible(chromedp.ID("paste")),
	)
	poll(t, ctx, "the new-chart page", `location.pathname === "/charts/new" && window.chartdNew && window.chartdNew.ready`)
	if !eval[bool](t, ctx, `[...document.querySelectorAll("nav a")].some(a => a.getAttribute("href") === "/charts/new")`) {
		t.Error("the navigation has no New chart link")
	}
	checkAxe(t, ctx, axe, "the new-chart page")
	allowance := `fetch("/api/v1/account").then(r => r.json()).then(a => a.renders.left + "/" + a.image_renders.left)`
	left := eval[string](t, ctx, allowance)

	var pastedID string
	t.Run("pasted CSV", func(t *testing.T) {
		do(t, ctx, "paste CSV",
			chromedp.SetValue(chromedp.ID("paste"), "Country,Sales,Profit\nNorway,120,30\nSweden,95,12\nDenmark,143,40\nFinland,88,9\n"),
			chromedp.Click(chromedp.ID("use-paste")),
		)
		poll(t, ctx, "the data drawn as every type", `window.chartdNew.sketches === 1`)
		kinds := eval[[]string](t, ctx, `[...document.querySelectorAll("#parsed th")].map(th => th.firstChild.textContent + ":" + th.getAttribute("data-kind"))`)
		if strings.Join(kinds, " ") != "Country:text Sales:number Profit:number" {
			t.Fatalf("the data step shows %v", kinds)
		}
		poll(t, ctx, "ten pictures drawn", `document.querySelectorAll("#types input[type=radio]").length === 10 &&
			[...document.querySelectorAll("#types label")].every(l => l.querySelector(".why") || (l.querySelector("img").complete && l.querySelector("img").naturalWidth > 0))`)
		if n := eval[int](t, ctx, `[...document.querySelectorAll("#types img")].filter(i => i.naturalWidth > 0).length`); n < 5 {
			t.Fatalf("only %d of ten types drew this data", n)
		}
		if !eval[bool](t, ctx, `document.getElementById("type-bar").checked`) {
			t.Fatal("bar is not the first type picked for category and numbers")
		}
		checkAxe(t, ctx, axe, "the new-chart page with data and types")
		checks := eval[[]string](t, ctx, `[...document.querySelectorAll("#checks li")].map(li => li.textContent)`)
		if len(checks) == 0 {
			t.Fatal("the chosen type shows no checks")
		}
		t.Logf("checks of the bar chart: %q", checks)
		if page := eval[string](t, ctx, `document.getElementById("newchart").textContent`); strings.Contains(page, `{"op"`) || strings.Contains(page, "get_chart") || regexp.MustCompile(`\(c[0-9]+\)`).MatchString(page) {
			t.Fatalf("the page speaks to the API, not to people:\n%s", page)
		}
		screenshot(t, ctx, "site-new-chart.png")

		do(t, ctx, "swap rows and columns", chromedp.Click(chromedp.ID("transpose")))
		poll(t, ctx, "the swapped data drawn", `window.chartdNew.sketches === 2`)
		head := eval[[]string](t, ctx, `[...document.querySelectorAll("#parsed th")].map(th => th.firstChild.textContent)`)
		if strings.Join(head, ",") != "Country,Norway,Sweden,Denmark,Finland" || eval[string](t, ctx, `document.getElementById("transpose").getAttribute("aria-pressed")`) != "true" {
			t.Fatalf("swapped header %v", head)
		}
		do(t, ctx, "swap back", chromedp.Click(chromedp.ID("transpose")))
		poll(t, ctx, "the data as pasted again", `window.chartdNew.sketches === 3 && document.querySelectorAll("#parsed th").length === 3`)

		// The keyboard moves between types; the roles follow the type.
		do(t, ctx, "pick line with the keyboard", chromedp.Focus(chromedp.ID("type-bar")), chromedp.KeyEvent(kb.ArrowRight))
		poll(t, ctx, "line picked", `document.getElementById("type-line").checked && document.activeElement.id === "type-line" && !!document.getElementById("role-x")`)
		do(t, ctx, "back to bar", chromedp.KeyEvent(kb.ArrowLeft))
		poll(t, ctx, "bar picked", `document.getElementById("type-bar").checked && !!document.getElementById("role-category")`)

		// Roles as the API chose them, changed: Profit left out.
		if !eval[bool](t, ctx, `[...document.querySelectorAll('input[data-role="values"]')].every(c => c.checked)`) {
			t.Fatal("the bar's values are not both number columns as the API chose")
		}
		drawn := eval[int](t, ctx, `window.chartdNew.drawn`)
		do(t, ctx, "leave Profit out", chromedp.Click(chromedp.CSS(`input[data-role="values"][value="c3"]`)))
		poll(t, ctx, "bar redrawn with Sales only", fmt.Sprintf(`window.chartdNew.drawn > %d`, drawn))

		do(t, ctx, "type a title", chromedp.SendKeys(chromedp.ID("new-title"), "Nordic sales"))
		poll(t, ctx, "the title check answered", `![...document.querySelectorAll("#checks li")].some(li => li.textContent.includes("no title"))`)
		do(t, ctx, "create",
			chromedp.Click(chromedp.ID("create")),
		)
		pastedID = editorID(t, ctx)
		typ, title, mapping, _ := chartState(t, ctx, pastedID)
		if typ != "bar" || title != "Nordic sales" || fmt.Sprint(mapping["values"]) != "[c2]" || mapping["category"] != "c1" {
			t.Fatalf("created %s titled %q with mapping %v", typ, title, mapping)
		}
		if name := eval[string](t, ctx, `document.getElementById("chart-name").textContent`); name != "Nordic sales" {
			t.Fatalf("created chart named %q", name)
		}
	})

	t.Run("live preview before save", func(t *testing.T) {
		do(t, ctx, "open the editor", chromedp.Navigate(in.url+"/charts/"+pastedID))
		editorID(t, ctx)
		checkAxe(t, ctx, axe, "the editor")
		before := eval[int](t, ctx, `window.chartdEditor.previews`)
		do(t, ctx, "type a title", chromedp.Evaluate[chromedp.Void](`document.getElementById("title").value = ""`), chromedp.SendKeys(chromedp.ID("title"), "Live title"))
		poll(t, ctx, "the preview with the typed title", fmt.Sprintf(`window.chartdEditor.previews > %d && document.getElementById("preview-msg").textContent.includes("Unsaved")`, before))
		poll(t, ctx, "the last keystroke drawn", `window.chartdEditor.svg.text().then(s => s.includes("Live title"))`)
		if !eval[bool](t, ctx, `window.chartdEditor.svg.text().then(s => s.includes("@font-face"))`) {
			t.Error("the preview SVG does not embed its fonts")
		}
		if id := eval[string](t, ctx, `document.activeElement.id`); id != "title" {
			t.Fatalf("focus moved to %q after the redraw", id)
		}
		var ms []float64
		for i, typ := range []string{"line", "bar", "line"} {
			before = eval[int](t, ctx, `window.chartdEditor.previews`)
			do(t, ctx, "change the type", chromedp.Focus(chromedp.ID("type")),
				chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("type"))`, typ)))
			poll(t, ctx, "the preview as "+typ, fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
			want := map[string]string{"line": "Line chart", "bar": "Bar chart"}[typ]
			poll(t, ctx, "a "+typ+" drawn", fmt.Sprintf(`window.chartdEditor.svg.text().then(s => s.includes(%q))`, want))
			ms = append(ms, eval[float64](t, ctx, `window.chartdEditor.lastPreviewMs`))
			if id := eval[string](t, ctx, `document.activeElement.id`); id != "type" {
				t.Fatalf("edit %d: focus moved to %q after the redraw", i, id)
			}
		}
		t.Logf("live preview, edit → new picture shown (100 ms debounce included): %.0f ms", ms)
		for _, m := range ms {
			if m > 1500 {
				t.Errorf("a live preview took %.0f ms", m)
			}
		}
		// The footer and the palette are drawn before Save too.
		do(t, ctx, "write a footer note", chromedp.SendKeys(chromedp.ID("footer-notes"), "Preliminary figures"))
		poll(t, ctx, "the preview with the note", `window.chartdEditor.svg.text().then(s => s.includes("Preliminary figures"))`)
		pal := eval[string](t, ctx, `[...document.getElementById("palette").options].map(o => o.value).filter(v => v && v !== "brand" && v !== document.getElementById("palette").value)[0]`)
		first := strings.ToLower(eval[string](t, ctx, fmt.Sprintf(`fetch("/api/v1/palettes").then(r => r.json()).then(j => j.palettes.find(p => p.id === %q).colors[0])`, pal)))
		if eval[bool](t, ctx, fmt.Sprintf(`window.chartdEditor.svg.text().then(s => s.toLowerCase().includes(%q))`, first)) {
			t.Fatalf("the preview already uses %s, the first colour of palette %s", first, pal)
		}
		do(t, ctx, "pick a palette", chromedp.Focus(chromedp.ID("palette")),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("palette"))`, pal)))
		poll(t, ctx, "the preview in the palette's colours", fmt.Sprintf(`window.chartdEditor.svg.text().then(s => s.toLowerCase().includes(%q) && s.includes("Preliminary figures"))`, first))
		if id := eval[string](t, ctx, `document.activeElement.id`); id != "palette" {
			t.Fatalf("focus moved to %q after the palette redraw", id)
		}
		if typ, title, _, _ := chartState(t, ctx, pastedID); typ != "bar" || title == "Live title" {
			t.Fatalf("the edits were saved before Save: %s %q", typ, title)
		}
		if !eval[bool](t, ctx, `(() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented })()`) {
			t.Error("leaving with unsaved edits is not guarded")
		}
		before = eval[int](t, ctx, `window.chartdEditor.previews`)
		do(t, ctx, "save", chromedp.Click(chromedp.ID("apply")))
		poll(t, ctx, "saved", fmt.Sprintf(`window.chartdEditor.previews > %d && document.getElementById("apply-status").textContent === "Saved." && document.getElementById("preview-msg").textContent === ""`, before))
		if typ, title, _, _ := chartState(t, ctx, pastedID); typ != "line" || title != "Live title" {
			t.Fatalf("saved chart: %s %q", typ, title)
		}
		do(t, ctx, "reload", chromedp.Reload())
		editorID(t, ctx)
		if v := eval[string](t, ctx, `document.getElementById("title").value + "|" + document.getElementById("type").value`); v != "Live title|line" {
			t.Fatalf("after reload the form shows %q", v)
		}
		poll(t, ctx, "the saved preview", fmt.Sprintf(`window.chartdEditor.svg.text().then(s => s.includes("Live title") && s.includes("Line chart") && s.includes("Preliminary figures") && s.toLowerCase().includes(%q))`, first))
		if got := eval[string](t, ctx, `document.getElementById("palette").value + "|" + document.getElementById("footer-notes").value`); got != pal+"|Preliminary figures" {
			t.Fatalf("after reload the palette and note read %q", got)
		}
		if got := eval[string](t, ctx, allowance); got != left {
			t.Fatalf("type pictures and live previews counted renders: renders/image renders left %s → %s", left, got)
		}
		screenshot(t, ctx, "site-editor.png")
	})

	t.Run("uploaded XLSX", func(t *testing.T) {
		book := writeWorkbook(t)
		do(t, ctx, "open", chromedp.Navigate(in.url+"/charts/new"))
		poll(t, ctx, "the new-chart page", `window.chartdNew && window.chartdNew.ready`)
		do(t, ctx, "upload the workbook", chromedp.SetUploadFiles(chromedp.ID("file"), []string{book}))
		poll(t, ctx, "the first sheet drawn", `window.chartdNew.sketches === 1`)
		kinds := eval[[]string](t, ctx, `[...document.querySelectorAll("#parsed th")].map(th => th.firstChild.textContent + ":" + th.getAttribute("data-kind"))`)
		if strings.Join(kinds, " ") != "Region:text Units:number" || eval[bool](t, ctx, `document.getElementById("sheet-row").hidden`) {
			t.Fatalf("first sheet read as %v (sheet picker shown: %v)", kinds, !eval[bool](t, ctx, `document.getElementById("sheet-row").hidden`))
		}
		do(t, ctx, "pick the Costs sheet", chromedp.Evaluate[chromedp.Void](`(s => { s.value = "Costs"; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("sheet"))`))
		poll(t, ctx, "the Costs sheet drawn", `window.chartdNew.sketches === 2 && document.querySelector("#parsed th").firstChild.textContent === "Quarter"`)
		do(t, ctx, "create", chromedp.Click(chromedp.ID("create")))
		id := editorID(t, ctx)
		if _, _, _, cols := chartState(t, ctx, id); strings.Join(cols, ",") != "Quarter,Rent,Staff" {
			t.Fatalf("chart from the Costs sheet has columns %v", cols)
		}

		do(t, ctx, "open", chromedp.Navigate(in.url+"/charts/new"))
		poll(t, ctx, "the new-chart page", `window.chartdNew && window.chartdNew.ready`)
		bad := filepath.Join(t.TempDir(), "notes.xlsx")
		if err := os.WriteFile(bad, []byte("this is not a workbook"), 0o600); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, "upload a file that is not a workbook", chromedp.SetUploadFiles(chromedp.ID("file"), []string{bad}))
		poll(t, ctx, "the refusal beside the upload", `document.getElementById("file-msg").className.includes("error") && document.getElementById("file-msg").textContent.includes("cannot be read as an Excel workbook")`)

		rows := filepath.Join(t.TempDir(), "rows.json")
		if err := os.WriteFile(rows, []byte(`[{"City":"Oslo","Rain":763},{"City":"Bergen","Rain":2250}]`), 0o600); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, "upload JSON rows", chromedp.SetUploadFiles(chromedp.ID("file"), []string{rows}))
		poll(t, ctx, "the JSON rows read", `window.chartdNew.reads === 1 && [...document.querySelectorAll("#parsed th")].map(th => th.getAttribute("data-kind")).join() === "text,number"`)
	})

	t.Run("a column's kind changed", func(t *testing.T) {
		do(t, ctx, "open", chromedp.Navigate(in.url+"/charts/new"))
		poll(t, ctx, "the new-chart page", `window.chartdNew && window.chartdNew.ready`)
		do(t, ctx, "paste CSV with years",
			chromedp.SetValue(chromedp.ID("paste"), "Year,Team,Goals\n2021,North,5\n2022,North,7\n2023,South,6\n"),
			chromedp.Click(chromedp.ID("use-paste")),
		)
		poll(t, ctx, "the data drawn", `window.chartdNew.sketches === 1`)
		kinds := `[...document.querySelectorAll("#parsed th")].map(th => th.getAttribute("data-kind") + "/" + th.querySelector("select.kind").value).join()`
		if got := eval[string](t, ctx, kinds); got != "date/date,text/text,number/number" {
			t.Fatalf("kinds as read: %s", got)
		}
		// A text column cannot be numbers: the refusal says why, beside
		// the table, and the kind stays as it was.
		do(t, ctx, "read Team as numbers", chromedp.Focus(chromedp.ID("kind-c2")),
			chromedp.Evaluate[chromedp.Void](`(s => { s.value = "number"; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("kind-c2"))`))
		poll(t, ctx, "the refusal", `document.getElementById("data-msg").className.includes("error") && document.getElementById("data-msg").textContent.includes("row 1 holds \"North\"")`)
		if got := eval[string](t, ctx, `document.getElementById("kind-c2").value + " " + document.getElementById("data-msg").textContent`); !strings.HasPrefix(got, "text ") || strings.Contains(got, "(c2)") {
			t.Fatalf("after the refusal: %q", got)
		}
		// Years read as text become categories; the types are drawn again.
		do(t, ctx, "read Year as text", chromedp.Focus(chromedp.ID("kind-c1")),
			chromedp.Evaluate[chromedp.Void](`(s => { s.value = "text"; s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("kind-c1"))`))
		poll(t, ctx, "the data drawn again", `window.chartdNew.sketches === 2 && document.querySelector("#parsed th").getAttribute("data-kind") === "text"`)
		if id := eval[string](t, ctx, `document.activeElement.id`); id != "kind-c1" {
			t.Fatalf("focus moved to %q after the kind changed", id)
		}
		checkAxe(t, ctx, axe, "the new-chart page with a kind changed")
		do(t, ctx, "pick bar", chromedp.Click(chromedp.ID("type-bar")))
		poll(t, ctx, "bar roles", `!!document.getElementById("role-category")`)
		do(t, ctx, "create", chromedp.Click(chromedp.ID("create")))
		id := editorID(t, ctx)
		var st struct {
			State struct {
				Steps   []map[string]any
				Mapping map[string]any
				Columns []struct{ ID, Kind string } `json:"columnsAfterSteps"`
			}
		}
		raw := eval[string](t, ctx, fmt.Sprintf(`fetch("/api/v1/charts/%s").then(r => r.text())`, id))
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.State.Steps) != 1 || st.State.Steps[0]["type"] != "kind" || st.State.Steps[0]["column"] != "c1" || st.State.Steps[0]["kind"] != "text" {
			t.Fatalf("the chart's steps: %v", st.State.Steps)
		}
		if st.State.Columns[0].Kind != "text" || st.State.Mapping["category"] != "c1" {
			t.Fatalf("columns after steps %v, mapping %v", st.State.Columns, st.State.Mapping)
		}
	})

	t.Run("example and copy", func(t *testing.T) {
		do(t, ctx, "open", chromedp.Navigate(in.url+"/charts/new"))
		poll(t, ctx, "the new-chart page", `window.chartdNew && window.chartdNew.ready && document.getElementById("example").options.length > 5`)
		example := eval[string](t, ctx, `document.getElementById("example").options[2].value`)
		do(t, ctx, "start from an example", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById("example").value = %q`, example)), chromedp.Click(chromedp.ID("use-example")))
		exID := editorID(t, ctx)
		if exID == pastedID {
			t.Fatal("the example opened an old chart")
		}
		do(t, ctx, "open", chromedp.Navigate(in.url+"/charts/new?from="+pastedID))
		poll(t, ctx, "the new-chart page", `window.chartdNew && window.chartdNew.ready`)
		do(t, ctx, "copy a chart", chromedp.Click(chromedp.ID("use-dup")))
		editorID(t, ctx)
		// the heading shows the chart's title (copied too); the name is the
		// page's title: the source's name followed its new title when saved
		poll(t, ctx, "the copy's name", `document.title === "Copy of Live title · chartd"`)
		if heading := eval[string](t, ctx, `document.getElementById("chart-name").textContent`); heading != "Live title" {
			t.Fatalf("the copy's heading reads %q, want its copied title", heading)
		}
	})

	t.Run("sign out", func(t *testing.T) {
		do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)))
		poll(t, ctx, "signed out", `location.pathname === "/" && ![...document.querySelectorAll("form")].some(f => f.getAttribute("action") === "/signout")`)
		do(t, ctx, "open the editor again", chromedp.Navigate(in.url+"/charts/"+pastedID))
		poll(t, ctx, "the sign-in page", `location.pathname === "/signin" && !!document.getElementById("password")`)
		if st := eval[int](t, ctx, `fetch("/api/v1/charts").then(r => r.status)`); st != http.StatusUnauthorized {
			t.Fatalf("the API answers %d to the signed-out browser", st)
		}
	})
}
