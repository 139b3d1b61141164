package imagelink

import (
	"strings"
	"testing"
)

// TestThemeIsSigned: a link's theme round-trips inside the signature, so
// changing it breaks the link, and only light, dark and auto are read.
func TestThemeIsSigned(t *testing.T) {
	for _, theme := range []string{"", "light", "dark", "auto"} {
		l := baseLink()
		l.Theme = theme
		path, query := mustSign(t, testHost, l, testSecret)
		if theme != "" && !strings.Contains(query, "theme="+theme) {
			t.Errorf("theme %s not in the query %s", theme, query)
		}
		r, err := Parse(testHost, path, query)
		if err != nil || r.Link.Theme != theme || !r.Verify(testSecret) {
			t.Errorf("theme %q: parse %v, theme %q, verifies %v", theme, err, r.Link.Theme, err == nil && r.Verify(testSecret))
		}
	}
	l := baseLink()
	l.Theme = "dark"
	path, query := mustSign(t, testHost, l, testSecret)
	r, err := Parse(testHost, path, strings.Replace(query, "theme=dark", "theme=auto", 1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verify(testSecret) {
		t.Error("a link whose theme was changed still verifies")
	}
	if _, err := Parse(testHost, path, strings.Replace(query, "theme=dark", "theme=sepia", 1)); err == nil {
		t.Error("theme sepia parsed")
	}
	l.Theme = "sepia"
	if _, err := Sign(testHost, l, testSecret); err == nil {
		t.Error("theme sepia signed")
	}
}
