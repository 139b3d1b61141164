package docsite

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSearchRanksTheRelevantSectionFirst(t *testing.T) {
	s := newSite(t)
	cases := []struct {
		q     string
		first []string // any of these titles first
		word  string   // the snippet shows this word
	}{
		{"invalid_request", []string{"Errors, plans and limits › invalid_request"}, "invalid_request"},
		{"topN", []string{"Steps › topN"}, "topN"},
		{"rate limit", []string{"Errors, plans and limits › rate_limited", "Errors, plans and limits › Rate-limit headers"}, "Rate"},
		{"api key revoke", []string{"Authentication › Revoking a key"}, "revoke"},
		{"RATE_LIMITED", []string{"Errors, plans and limits › rate_limited"}, "limit"},
		{"too_large", []string{"Errors, plans and limits › too_large"}, "413"},
		{"pie slices", []string{"Chart types › pie"}, "slices"},
		{"setTitle", []string{"Ops › Text"}, "setTitle"},
		{"setFooter", []string{"Ops › Text"}, "setFooter"},
		{"chart source byline", []string{"Ops › Text"}, "byline"},
		{"dateBucket week", []string{"Steps › dateBucket"}, "week"},
		{"sankey", []string{"Chart types › sankey"}, "sankey"},
	}
	for _, tc := range cases {
		t.Run(tc.q, func(t *testing.T) {
			rs := s.Search(tc.q, 5)
			if len(rs) == 0 {
				t.Fatal("no results")
			}
			if !slices.Contains(tc.first, rs[0].Title) {
				titles := make([]string, len(rs))
				for i, r := range rs {
					titles[i] = r.Title
				}
				t.Errorf("first %q, want one of %q; all: %q", rs[0].Title, tc.first, titles)
			}
			if !strings.Contains(strings.ToLower(rs[0].Text), strings.ToLower(tc.word)) {
				t.Errorf("snippet lacks %q: %s", tc.word, rs[0].Text)
			}
			for _, r := range rs {
				if n := utf8.RuneCountInString(r.Text); n > SnippetLen+2 || n < 40 {
					t.Errorf("snippet of %d characters: %s", n, r.Text)
				}
				if !utf8.ValidString(r.Text) || !strings.HasPrefix(r.URL, testDocsURL+"/") {
					t.Errorf("result %+v", r)
				}
				if strings.ContainsAny(r.Text, "`|") || strings.Contains(r.Text, "](") {
					t.Errorf("snippet holds Markdown: %s", r.Text)
				}
			}
		})
	}
}

func TestSearchLimitsAndEmptyQueries(t *testing.T) {
	s := newSite(t)
	if got := s.Search("chart", 3); len(got) != 3 {
		t.Errorf("n=3 gave %d results", len(got))
	}
	for _, q := range []string{"", "   ", "the and of", "zzqxj"} {
		if got := s.Search(q, 5); got == nil || len(got) != 0 {
			t.Errorf("Search(%q) = %v, want an empty list", q, got)
		}
	}
	if got := s.Search("chart", 0); len(got) != 0 {
		t.Errorf("n=0 gave %d results", len(got))
	}
	if err := CheckQuery("  \t"); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("CheckQuery(blank) = %v", err)
	}
	if err := CheckQuery("rate"); err != nil {
		t.Errorf("CheckQuery(rate) = %v", err)
	}
	long := strings.Repeat("limit ", 10000)
	if got := s.Search(long, 2); len(got) == 0 {
		t.Error("a long query found nothing")
	}
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"invalid_request", []string{"invalid_request", "invalid", "request"}},
		{"setTitle", []string{"settitle", "set", "titl"}},
		{"topN", []string{"topn", "top", "n"}},
		{"X-RateLimit-Limit", []string{"x-ratelimit-limit", "x", "ratelimit", "rat", "limit", "limit"}},
		{"Revoking the keys, revoked and revoke", []string{"revok", "key", "revok", "revok"}},
		{"c2 and HTTPServer", []string{"c2", "httpserver", "http", "server"}},
		{"libraries classes", []string{"library", "class"}},
		{"-_- __x__ b-", []string{"x", "b"}},
		{"Größe über", []string{"größe", "über"}},
	}
	for _, tc := range cases {
		var got []string
		tokenize(tc.in, func(term string, start, end int) {
			got = append(got, term)
			if start < 0 || end > len(tc.in) || start >= end {
				t.Errorf("%q: span %d..%d", tc.in, start, end)
			}
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	got := plainText("Some **bold** `code` and [a link](../x/).\n\n- item one\n1. first\n\n| A | B |\n| --- | :-: |\n| x | y |\n\n```\n{\"op\": \"setTitle\"}\n```\n### Sub\n> quote")
	want := `Some bold code and a link. item one first A · B x · y {"op": "setTitle"} Sub quote`
	if got != want {
		t.Errorf("plainText =\n%q\nwant\n%q", got, want)
	}
}

func TestCutWords(t *testing.T) {
	text := strings.Repeat("word ", 100)
	got := cutWords(text, 52, 50)
	if !strings.HasPrefix(got, "…word") || !strings.HasSuffix(got, "word…") || utf8.RuneCountInString(got) > 52 {
		t.Errorf("cutWords = %q", got)
	}
	if got := cutWords("short text", 0, 200); got != "short text" {
		t.Errorf("cutWords(short) = %q", got)
	}
	multi := strings.Repeat("ü", 300)
	if got := cutWords(multi, 101, 50); !utf8.ValidString(got) {
		t.Errorf("cut inside a rune: %q", got)
	}
}

func FuzzTokenizeAndSnippet(f *testing.F) {
	for _, s := range []string{"invalid_request", "X-RateLimit-Limit", "Größe-über_ß", "a-b_c-", "\xff\xfe", "topN setTitle"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		idf := map[string]float64{}
		var tokens []docToken
		tokenize(s, func(term string, start, end int) {
			if term == "" || start < 0 || end > len(s) || start >= end {
				t.Fatalf("term %q span %d..%d of %d bytes", term, start, end, len(s))
			}
			idf[term] = 1
			tokens = append(tokens, docToken{term, start})
		})
		sn := snippet(s, tokens, idf)
		if utf8.ValidString(s) && !utf8.ValidString(sn) {
			t.Fatalf("snippet %q of valid text is not valid UTF-8", sn)
		}
		if len(sn) > SnippetLen+8 {
			t.Fatalf("snippet of %d bytes", len(sn))
		}
	})
}

func BenchmarkSearch(b *testing.B) {
	s := newSite(b)
	queries := []string{"invalid_request", "topN", "rate limit", "api key revoke", "how do I make bars horizontal", "brand palette pro plan"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Search(queries[i%len(queries)], 10)
		i++
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		newSite(b)
	}
}
