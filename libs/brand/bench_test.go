package brand_test

import (
	"regexp"
	"testing"

	"chartd.dev/libs/brand"
	"chartd.dev/libs/brand/brandtest"
)

func BenchmarkExtract(b *testing.B) {
	s := brandtest.TypicalSite()
	size := len(s.HTML)
	for _, d := range s.Stylesheets {
		size += len(d.Body)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := brand.Extract(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLinks(b *testing.B) {
	s := brandtest.TypicalSite()
	b.ReportAllocs()
	for b.Loop() {
		brand.Links(s.URL, s.HTML)
	}
}

// TestTypicalSite checks the benchmark page gives a sensible answer, so the
// benchmark measures real work.
func TestTypicalSite(t *testing.T) {
	s := brandtest.TypicalSite()
	if len(s.HTML) < 100<<10 || len(s.Stylesheets[0].Body) < 200<<10 {
		t.Fatalf("page too small: %d, %d", len(s.HTML), len(s.Stylesheets[0].Body))
	}
	res, err := brand.Extract(s)
	if err != nil {
		t.Fatal(err)
	}
	hex := regexp.MustCompile(`^#[0-9A-F]{6}$`)
	for _, c := range res.Colors {
		if !hex.MatchString(c) {
			t.Errorf("colour %q is not #RRGGBB", c)
		}
	}
	if res.Colors[0] != "#635BFF" {
		t.Errorf("got %v", res.Colors)
	}
}
