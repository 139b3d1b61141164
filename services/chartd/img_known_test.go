package main

import (
	"context"
	"testing"
	"time"
)

// TestImageLinkKnownAnswers runs the chartd binary with -metrics-addr and
// counts its SVG drawings (chartd_render_draws_total) while a CDN edge
// asks one live link again: a matching If-None-Match and a repeat without
// one are answered from what the process knows, drawing nothing; an edit
// of the chart shows its new picture on the very next request (a live
// link shows each edit at once); a revoked signing key's link turns 404
// within the signing-key TTL (1 s here; the revocation message makes it
// at once) although its answer was known.
func TestImageLinkKnownAnswers(t *testing.T) {
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr, maddr := freeAddr(t), freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	startProcess(t, bin, addr, "-target=all", "-data-dir", dir, "-public-url", in.url, "-metrics-addr", maddr,
		"-log-level", "warn", "-render.browsers=1", "-render.start-timeout=5m", "-render.signing-key-ttl=1s")
	waitURL(t, in.url+"/readyz", nil, nil)
	draws := func() float64 {
		t.Helper()
		f := scrapeURL(t, "http://"+maddr+"/metrics")["chartd_render_draws_total"]
		if f == nil || len(f.Metric) == 0 {
			t.Fatal("/metrics has no chartd_render_draws_total")
		}
		return f.Metric[0].GetCounter().GetValue()
	}

	pro := newClient(t, in.url, key)
	ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
	link := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg"}).URL
	web := newLinkClient(t, "")
	first := web.open(t, link)
	expectImage(t, "the first open", first, "svg")
	etag := first.header.Get("ETag")

	before := draws()
	for _, tc := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"If-None-Match of the picture", []string{"If-None-Match", etag}, 304},
		{"If-None-Match again", []string{"If-None-Match", etag}, 304},
		{"If-None-Match among others, weak", []string{"If-None-Match", `"other", W/` + etag}, 304},
		{"a repeat without If-None-Match", nil, 200},
		{"If-None-Match of another picture", []string{"If-None-Match", `"0123"`}, 200},
	} {
		a := web.open(t, link, tc.hdr...)
		if a.status != tc.status || a.header.Get("ETag") != etag {
			t.Fatalf("%s: answer %d ETag %s, want %d ETag %s", tc.name, a.status, a.header.Get("ETag"), tc.status, etag)
		}
		if tc.status == 200 && string(a.body) != string(first.body) {
			t.Errorf("%s: the body differs from the first answer's", tc.name)
		}
		if tc.status == 304 && a.header.Get("Cache-Control") != first.header.Get("Cache-Control") {
			t.Errorf("%s: Cache-Control %q, want the 200's %q", tc.name, a.header.Get("Cache-Control"), first.header.Get("Cache-Control"))
		}
	}
	if after := draws(); after != before {
		t.Errorf("answers known to the process drew %v charts, want 0", after-before)
	}

	applyOps(t, pro, ch.ID, setTitleOp("Edited"))
	edited := web.open(t, link, "If-None-Match", etag)
	expectImage(t, "the first open after an edit, with the old ETag", edited, "svg")
	if edited.header.Get("ETag") == etag || string(edited.body) == string(first.body) {
		t.Fatalf("after an edit the link still answers the old picture (ETag %s)", etag)
	}
	if a := web.open(t, link, "If-None-Match", edited.header.Get("ETag")); a.status != 304 {
		t.Fatalf("the edited picture's ETag: answer %d, want 304", a.status)
	}

	st := in.open(t)
	err := st.RevokeSigningKey(context.Background(), accountOf(t, in, key), paramOf(t, link, "kid"))
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for {
		a := web.open(t, link, "If-None-Match", edited.header.Get("ETag"))
		if a.status == 404 {
			linkRefusal(t, "the revoked key's link", a)
			break
		}
		if a.status != 304 {
			t.Fatalf("the link while its key is revoked: answer %d %.200s", a.status, a.body)
		}
		// 1 s of key TTL, and slack for a loaded machine.
		if time.Since(revoked) > 5*time.Second {
			t.Fatalf("the revoked key's link still answers 304 %v after the revocation (key TTL 1 s)", time.Since(revoked))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
