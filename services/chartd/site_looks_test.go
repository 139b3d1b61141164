package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSiteEditorLooks (issue 34): the editor's Highlight boxes, Small
// multiples menus and Theme menu save as setHighlight, setFacet and
// setTheme, show what is saved after a reload, and axe stays clean.
func TestSiteEditorLooks(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "looks@example.com")
	id := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "bar", name: "Looks",
		data: "Region,Month,Sales\nNorth,Jan,10\nNorth,Feb,12\nSouth,Jan,7\nSouth,Feb,9\n",
		ops: [{op: "setMapping", mapping: {category: "c2", values: ["c3"]}}, {op: "setTitle", title: {text: "Sales"}}]}).then(j => j.chart.id)`, apiFromPage))
	do(t, ctx, "open the editor", chromedp.Navigate(in.url+"/charts/"+id))
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
	axeCheck(t, ctx, "the editor with highlight, small multiples and theme")

	before := eval[int](t, ctx, `window.chartdEditor.previews`)
	do(t, ctx, "tick Feb, facet by Region, go dark",
		chromedp.Click(chromedp.CSS(`[data-hl-key="Feb"]`)),
		chromedp.SetValue(chromedp.ID("facet-column"), "c1"),
		chromedp.SetValue(chromedp.ID("facet-scales"), "free"),
		chromedp.SetValue(chromedp.ID("theme"), "dark"),
		chromedp.Click(chromedp.ID("apply")))
	poll(t, ctx, "the save", `document.getElementById("apply-status").textContent === "Saved."`)
	poll(t, ctx, "the new preview", fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
	var saved struct {
		State struct {
			Highlight struct{ Categories []string }   `json:"highlight"`
			Facet     struct{ Column, Scales string } `json:"facet"`
			Theme     string                          `json:"theme"`
		}
	}
	if err := json.Unmarshal([]byte(eval[string](t, ctx, fmt.Sprintf(`fetch("/api/v1/charts/%s").then(r => r.text())`, id))), &saved); err != nil {
		t.Fatal(err)
	}
	st := saved.State
	if len(st.Highlight.Categories) != 1 || st.Highlight.Categories[0] != "Feb" || st.Facet.Column != "c1" || st.Facet.Scales != "free" || st.Theme != "dark" {
		t.Fatalf("saved highlight %+v, facet %+v, theme %q", st.Highlight, st.Facet, st.Theme)
	}
	do(t, ctx, "reload", chromedp.Reload())
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
	got := eval[string](t, ctx, `[document.querySelector('[data-hl-key="Feb"]').checked, document.getElementById("facet-column").value, document.getElementById("facet-scales").value, document.getElementById("theme").value].join(",")`)
	if got != "true,c1,free,dark" {
		t.Errorf("after reload the form shows %s, want true,c1,free,dark", got)
	}
}
