package site

import (
	"net/http"
	"testing"
)

// TestSafeNext keeps sign-in's destination on this site: every target a
// browser could read as another host goes to the chart list instead.
func TestSafeNext(t *testing.T) {
	for _, tt := range []struct{ next, want string }{
		{"/charts/abc", "/charts/abc"},
		{"/oauth/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb", "/oauth/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"},
		{"/account#apps", "/account#apps"},
		{"", "/charts"},
		{"https://evil.example/", "/charts"},
		{"//evil.example/", "/charts"},
		{"/\\evil.example/", "/charts"},
		{"/\t/evil.example/", "/charts"},
		{"/\n/evil.example/", "/charts"},
		{"/\r/evil.example/", "/charts"},
		{"/\x00/evil.example/", "/charts"},
		{"/\x7f/evil.example/", "/charts"},
		{"/%2F/evil.example/", "/charts"},
		{"/a\\b", "/charts"},
		{"javascript:alert(1)", "/charts"},
		{"evil.example", "/charts"},
	} {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

// TestFromSite passes a form post only when the browser names a page of
// the site: its Origin, or its Referer when it sent no Origin. Neither,
// another origin, a look-alike host or Origin "null" is refused.
func TestFromSite(t *testing.T) {
	const origin = "https://charts.example.com"
	for _, tt := range []struct {
		name           string
		originHdr, ref string
		want           bool
	}{
		{"the site's origin", origin, "", true},
		{"the site's origin and page", origin, origin + "/signin", true},
		{"no origin, a page of the site", "", origin + "/signin?next=%2Fcharts", true},
		{"neither", "", "", false},
		{"another origin", "https://evil.example", origin + "/signin", false},
		{"origin null", "null", origin + "/signin", false},
		{"no origin, another site's page", "", "https://evil.example/signin", false},
		{"no origin, a look-alike host", "", "https://charts.example.com.evil.example/", false},
		{"no origin, the site on http", "", "http://charts.example.com/signin", false},
		{"no origin, another port", "", "https://charts.example.com:8443/signin", false},
		{"no origin, a path only", "", "/signin", false},
		{"no origin, a bad referer", "", "https://charts.example.com/%zz", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.originHdr != "" {
				h.Set("Origin", tt.originHdr)
			}
			if tt.ref != "" {
				h.Set("Referer", tt.ref)
			}
			if got := fromSite(origin, h); got != tt.want {
				t.Errorf("fromSite(Origin %q, Referer %q) = %v, want %v", tt.originHdr, tt.ref, got, tt.want)
			}
		})
	}
}
