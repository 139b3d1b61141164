package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabbable marks every control a keyboard user must reach on the page
// (visible, enabled, not taken out of the tab order; of a radio group
// only the one Tab stops at) with data-kbd, and answers how many.
const tabbable = `(() => {
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])';
  const seen = new Set();
  let n = 0;
  document.querySelectorAll("[data-kbd]").forEach(e => e.removeAttribute("data-kbd"));
  for (const e of document.querySelectorAll(sel)) {
    if (e.disabled || e.closest("[hidden], [inert]") || !e.getClientRects().length || getComputedStyle(e).visibility === "hidden") continue;
    if (e.type === "radio") {
      if (seen.has(e.name)) continue;
      const group = [...document.getElementsByName(e.name)];
      const stop = group.find(r => r.checked) || group[0];
      seen.add(e.name);
      stop.dataset.kbd = String(n++);
      continue;
    }
    e.dataset.kbd = String(n++);
  }
  return n;
})()`

// keyboardPass walks the page with Tab only, from the top: every control
// is reached, each shows where the focus is (an outline or a ring), and
// focus never sticks.
func keyboardPass(t *testing.T, c context.Context, page string) {
	t.Helper()
	n := eval[int](t, c, tabbable)
	if n == 0 {
		t.Fatalf("%s: no control to reach", page)
	}
	do(t, c, "start at the top", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`))
	reached := map[string]bool{}
	var order []string
	for i := 0; i < n+3 && len(reached) < n; i++ {
		do(t, c, "press Tab", chromedp.KeyEvent(kb.Tab))
		at := eval[string](t, c, `(e => !e || e === document.body ? "" : (e.dataset.kbd || "?") + "|" + (e.id || e.tagName.toLowerCase() + ":" + (e.textContent || e.name || "").trim().slice(0, 30)) + "|" +
			((s => s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0 || s.boxShadow !== "none")(getComputedStyle(e))))(document.activeElement)`)
		if at == "" {
			continue
		}
		parts := strings.SplitN(at, "|", 3)
		order = append(order, parts[1])
		if parts[2] != "true" {
			t.Errorf("%s: %s has the focus but shows no focus ring", page, parts[1])
		}
		if parts[0] != "?" {
			reached[parts[0]] = true
		}
	}
	if len(reached) < n {
		missed := eval[[]string](t, c, fmt.Sprintf(`[...document.querySelectorAll("[data-kbd]")].filter(e => !%s.includes(e.dataset.kbd)).map(e => e.id || e.outerHTML.slice(0, 80))`, jsList(reached)))
		t.Errorf("%s: Tab reached %d of %d controls; never reached: %q (order: %q)", page, len(reached), n, missed, order)
		return
	}
	t.Logf("%s: Tab reached all %d controls, each with a focus ring", page, n)
}

// jsList writes the keys of a set as a JavaScript array of strings.
func jsList(set map[string]bool) string {
	var b []string
	for k := range set {
		b = append(b, fmt.Sprintf("%q", k))
	}
	return "[" + strings.Join(b, ",") + "]"
}

// TestSiteKeyboardEveryPage opens every page of the site, signed out and
// signed in, and on each runs axe-core (no serious or critical
// violation) and a keyboard-only pass (every control reached with Tab,
// each showing its focus).
func TestSiteKeyboardEveryPage(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	visit := func(path, ready string) {
		t.Helper()
		do(t, ctx, "open "+path, chromedp.Navigate(in.url+path))
		poll(t, ctx, path+" loaded", `document.readyState === "complete"`+ready)
		axeCheck(t, ctx, path)
		keyboardPass(t, ctx, path)
	}
	for _, p := range []string{"/", "/signin", "/signup", "/signup/confirm?token=x", "/docs/", "/docs/chart-types/", "/docs/steps/"} {
		visit(p, "")
	}
	signUpInBrowser(t, ctx, in.url, "keys@example.com")
	id := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "line", name: "Keys"}).then(j => j.chart.id)`, apiFromPage))
	visit("/account", "")
	visit("/charts", "")
	visit("/charts/new", ` && window.chartdNew && window.chartdNew.ready`)
	visit("/charts/"+id, ` && window.chartdEditor && window.chartdEditor.ready && window.chartdEditor.previews > 0`)
	visit("/charts/no-such-chart", "")

	// The consent page of an app asking for access.
	cb := newCallback(t)
	clientID := registerClient(t, in.url, "Keyboard App", cb.url)
	q := url.Values{"client_id": {clientID}, "redirect_uri": {cb.url}, "response_type": {"code"}, "scope": {"charts:read"},
		"state": {"s"}, "code_challenge": {sha256Base64(strings.Repeat("v3rifier-", 6))}, "code_challenge_method": {"S256"}}
	visit("/oauth/authorize?"+q.Encode(), ` && !!document.getElementById("consent-allow")`)
}
