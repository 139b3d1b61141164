package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSiteEditorNotes: the editor's Notes panel adds a note where a
// click on the preview points (the bar named nearest the click), the
// Reference lines panel adds a mean line, both are listed with labelled
// remove buttons, a remove takes one away, and axe finds nothing serious.
func TestSiteEditorNotes(t *testing.T) {
	in := startAll(t)
	axe := axeSource(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "notes@example.com")
	id := makeChart(t, ctx, `{type: "bar", data: "Month,Visitors\nJan,62\nFeb,58\nMar,71\nApr,90\n"}`)
	openEditor(t, ctx, in.url, id)
	poll(t, ctx, "the notes panel", `document.getElementById("note-x").options.length === 4`)

	// a click on the preview over the third bar picks Mar
	do(t, ctx, "click the preview", chromedp.Evaluate[chromedp.Void](`(() => {
		const img = document.getElementById("preview"), r = img.getBoundingClientRect();
		img.dispatchEvent(new MouseEvent("click", {bubbles: true, clientX: r.left + r.width * 0.62, clientY: r.top + r.height * 0.5}));
	})()`))
	poll(t, ctx, "the click's category", `document.getElementById("note-x").value === "Mar"`)
	do(t, ctx, "type the note", chromedp.SetValue(chromedp.ID("note-text"), "Spring sale"), chromedp.Click("#note-add"))
	poll(t, ctx, "the note in the list", `document.querySelectorAll("#notes-list li").length === 1`)
	do(t, ctx, "a mean line", chromedp.SetValue(chromedp.ID("line-at"), "mean"), chromedp.Click("#line-add"))
	poll(t, ctx, "the line in the list", `document.querySelectorAll("#lines-list li").length === 1`)
	got := eval[string](t, ctx, `(`+apiFromPage+`)("GET", "/charts/`+id+`").then(j => JSON.stringify(j.state.annotations))`)
	if want := `[{"type":"note","text":"Spring sale","x":"Mar","series":"c2"},{"type":"line","axis":"y","value":"mean"}]`; got != want {
		t.Fatalf("annotations after the panels: %s, want %s", got, want)
	}
	poll(t, ctx, "the note in the preview", `window.chartdEditor.svg && window.chartdEditor.svg.text().then(s => s.includes(">Spring sale<") && s.includes(">Mean 70.3<"))`)
	labels := eval[string](t, ctx, `[...document.querySelectorAll("#story button[aria-label]")].map(b => b.getAttribute("aria-label")).join("|")`)
	if !strings.Contains(labels, "Remove note “Spring sale” at Mar") || !strings.Contains(labels, "Remove line at mean") {
		t.Errorf("remove buttons labelled %q", labels)
	}
	checkAxe(t, ctx, axe, "the editor with notes")
	do(t, ctx, "remove the note", chromedp.Click(`#notes-list button`))
	poll(t, ctx, "the note gone", `document.querySelectorAll("#notes-list li").length === 0 && document.querySelectorAll("#lines-list li").length === 1`)
}
