package charts

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
)

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkType(b *testing.B) {
	c := mustLoad(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := c.Type("scatter"); !ok {
			b.Fatal("missing")
		}
	}
}

func BenchmarkExamplesFiltered(b *testing.B) {
	c := mustLoad(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(c.Examples("heatmap")) == 0 {
			b.Fatal("none")
		}
	}
}

func BenchmarkSample(b *testing.B) {
	c := mustLoad(b)
	b.ReportAllocs()
	for b.Loop() {
		if c.Sample("bar").Data() == "" {
			b.Fatal("no data")
		}
	}
}

func BenchmarkValidateOptions(b *testing.B) {
	c := mustLoad(b)
	ty, _ := c.Type("scatter")
	opts := map[string]any{"pointSize": 6.0, "opacity": 0.5}
	b.ReportAllocs()
	for b.Loop() {
		if err := ty.ValidateOptions(opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSectionsLimitsPage(b *testing.B) {
	c := mustLoad(b)
	p, _ := c.Page("limits")
	b.ReportAllocs()
	for b.Loop() {
		if len(p.Sections()) < 12 {
			b.Fatal("too few sections")
		}
	}
}

// FuzzSections checks that splitting any Markdown never panics, keeps every
// non-fence character of the body, and gives anchors of allowed characters only.
func FuzzSections(f *testing.F) {
	for _, s := range []string{"# T\n\nIntro\n## A\nx\n", "## a\n```\n## b\n```\n", "~~~\n## x", "# \n##  \n## #\n", "\r\n## A\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		secs := Page{Title: "T", Markdown: md}.Sections()
		for i, s := range secs {
			for _, r := range s.Anchor {
				if !(r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					t.Fatalf("anchor %q has %q", s.Anchor, r)
				}
			}
			if i > 0 && s.Anchor != Anchor(s.Title) {
				t.Fatalf("section %d anchor %q is not Anchor(%q)", i, s.Anchor, s.Title)
			}
			if s.Markdown != strings.TrimSpace(s.Markdown) {
				t.Fatalf("section body %q is not trimmed", s.Markdown)
			}
			if !strings.Contains(md, s.Markdown) && !strings.Contains(strings.ReplaceAll(md, "\r", ""), strings.ReplaceAll(s.Markdown, "\r", "")) {
				t.Fatalf("section body %q is not part of the page", s.Markdown)
			}
		}
	})
}

// FuzzCheckStep checks that any step JSON is either accepted with a valid
// shape or refused with an error, never a panic.
func FuzzCheckStep(f *testing.F) {
	for _, s := range []string{`{"type":"sort","column":"c2","direction":"desc"}`, `{"type":"topN","n":5}`, `{"type":"filter","column":"c1","operator":"in","value":["a"]}`, `[]`, `null`, `{"type":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := checkStep(json.RawMessage(s), 3); err == nil {
			var m map[string]any
			if json.Unmarshal([]byte(s), &m) != nil || m["type"] == nil {
				t.Fatalf("accepted %q, which is not a step object", s)
			}
		}
	})
}
