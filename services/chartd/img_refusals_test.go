package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestImageRefusalsUniform asks /img for addresses no link can have
// (no dot, empty parts, more segments, other methods) and for a link
// with a flipped signature: every answer is the one 404, with the same
// message, never the internal-address 401.
func TestImageRefusalsUniform(t *testing.T) {
	in := startAll(t)
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
	link := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg"}).URL
	lc := newLinkClient(t, "")
	want, ok := linkRefusal(t, "a tampered link", lc.open(t, editQuery(t, link, setParam("sig", flipChar(paramOf(t, link, "sig"), 3)))))
	if !ok {
		t.Fatal("a tampered link is not refused with the 404")
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/img/abc"},
		{"GET", "/img/" + ch.ID},
		{"GET", "/img/" + ch.ID + "."},
		{"GET", "/img/.png"},
		{"GET", "/img/"},
		{"GET", "/img/a/b.png"},
		{"GET", "/img/" + ch.ID + ".png/x"},
		{"POST", "/img/" + ch.ID + ".png"},
		{"DELETE", "/img/abc"},
	} {
		req, _ := http.NewRequest(tt.method, in.url+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got, ok := linkRefusal(t, tt.method+" "+tt.path, answer{status: resp.StatusCode, header: resp.Header, body: body})
		if ok && got != want {
			t.Errorf("%s %s says %q, want the one refusal %q", tt.method, tt.path, got, want)
		}
		if strings.Contains(string(body), "internal") {
			t.Errorf("%s %s speaks of an internal address: %s", tt.method, tt.path, body)
		}
	}
}
