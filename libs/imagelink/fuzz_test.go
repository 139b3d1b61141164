package imagelink

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzVerify mutates the host, path and query of valid links. Properties:
//   - Parse refuses only with ErrInvalid and never panics;
//   - whatever Parse accepts is something Sign makes: signing the parsed Link
//     again gives the same path, the same parameters (in any order) and the
//     same canonical string, so the signature covers every byte that matters;
//   - whatever verifies under the test secret carries exactly the sig Sign
//     gives, so nothing unsigned is ever accepted.
func FuzzVerify(f *testing.F) {
	seeds := []struct {
		host string
		l    Link
	}{
		{testHost, baseLink()},
		{"127.0.0.1:8080", Link{ChartID: testChart, Format: "svg", KID: "k1", Scale: 1, Width: 640, Height: 480, Transparent: true}},
		{"[::1]:8443", Link{ChartID: testChart, Format: "png", KID: testKID, Scale: 4, Expires: 1_760_000_000}},
		{testHost, Link{ChartID: testChart, Format: "png", KID: testKID, Scale: 2, Width: 4000, Height: 100,
			Expires: 1, Data: []byte("a,b\n1,2\n"), DataFormat: "csv"}},
		{testHost, Link{ChartID: "ffffffff-0000-4000-8000-000000000000", Format: "png", KID: "_-", Scale: 1, Data: []byte{0xff}}},
	}
	for _, s := range seeds {
		path, query := mustSign(f, s.host, s.l, testSecret)
		f.Add(s.host, path, query)
	}
	f.Add(testHost, "/img/"+testChart+".png", "kid=k&scale=1&sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, host, path, query string) {
		r, err := Parse(host, path, query)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			if r.Verify(testSecret) {
				t.Fatal("a refused Request verifies")
			}
			return
		}
		signed, err := Sign(host, r.Link, testSecret)
		if err != nil {
			t.Fatalf("Parse accepted a link Sign refuses: %v\n%s %s?%s", err, host, path, query)
		}
		spath, squery, _ := strings.Cut(signed, "?")
		if spath != path {
			t.Fatalf("path %q accepted, Sign writes %q", path, spath)
		}
		got, want := strings.Split(query, "&"), strings.Split(squery, "&")
		gotSig := dropSig(&got)
		wantSig := dropSig(&want)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("query %q accepted, Sign writes %q", query, squery)
		}
		again, err := Parse(host, spath, squery)
		if err != nil {
			t.Fatalf("Sign's own link refused: %v", err)
		}
		if string(again.canonical()) != string(r.canonical()) {
			t.Fatalf("canonical strings differ:\n%q\n%q", r.canonical(), again.canonical())
		}
		if r.Verify(testSecret) != (gotSig == wantSig) {
			t.Fatalf("Verify = %v with sig %q, Sign gives %q", r.Verify(testSecret), gotSig, wantSig)
		}
	})
}

// dropSig removes the sig parameter from parts and returns its value.
func dropSig(parts *[]string) string {
	for i, p := range *parts {
		if v, ok := strings.CutPrefix(p, "sig="); ok {
			*parts = slices.Delete(*parts, i, i+1)
			return v
		}
	}
	return ""
}
