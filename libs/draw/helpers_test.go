package draw

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/fontstack"
)

// testFonts loads the installed font stack once for all tests.
var testFonts = sync.OnceValues(func() (*Fonts, error) {
	st, err := fontstack.Find()
	if err != nil {
		return nil, err
	}
	return LoadFonts(st)
})

func fonts(t testing.TB) *Fonts {
	t.Helper()
	f, err := testFonts()
	if err != nil {
		t.Fatalf("load fonts: %v", err)
	}
	return f
}

// txt, num and dates build table columns; ids follow the c1, c2, … rule.
func txt(id, name string, vals ...string) *dataset.Column {
	return &dataset.Column{ID: id, Name: name, Kind: dataset.Text, Text: vals}
}

func num(id, name string, vals ...float64) *dataset.Column {
	return &dataset.Column{ID: id, Name: name, Kind: dataset.Number, Num: vals}
}

// dates reads ISO dates ("2024-01-31", "2024-01", "2024") at the given unit.
func dates(id, name, unit string, vals ...string) *dataset.Column {
	c := &dataset.Column{ID: id, Name: name, Kind: dataset.Date, DateUnit: unit}
	for _, v := range vals {
		if v == "" {
			c.Num = append(c.Num, math.NaN())
			continue
		}
		var tm time.Time
		var err error
		for _, layout := range []string{"2006-01-02T15:04", "2006-01-02", "2006-01", "2006"} {
			if tm, err = time.Parse(layout, v); err == nil {
				break
			}
		}
		if err != nil {
			panic("bad test date " + v)
		}
		c.Num = append(c.Num, float64(tm.UnixMilli()))
	}
	return c
}

func table(cols ...*dataset.Column) *dataset.Table {
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c.Num), len(c.Text))
	}
	return &dataset.Table{Columns: cols, Rows: rows}
}

// nan is a blank number cell.
var nan = math.NaN()

// testSpec is a new chart's spec with the default style and the catalog's
// default options, then opts and mapping on top.
func testSpec(typ string, opts map[string]any, mapping chartspec.Mapping) *chartspec.Spec {
	s := &chartspec.Spec{Type: typ, Options: map[string]any{}, Mapping: mapping, Style: chartspec.DefaultStyle(defaultPalette())}
	for k, v := range opts {
		s.Options[k] = v
	}
	if s.Mapping == nil {
		s.Mapping = chartspec.Mapping{}
	}
	return s
}

// rng is a fixed-seed generator so generated test data never changes.
func rng() *rand.Rand { return rand.New(rand.NewPCG(7, 11)) }

// countries are category labels for bar-like tests.
func countries(n int) []string {
	base := []string{"Germany", "France", "Italy", "Spain", "Poland", "Netherlands", "Belgium", "Sweden", "Austria", "Denmark",
		"Finland", "Portugal", "Greece", "Ireland", "Czechia", "Hungary", "Romania", "Bulgaria", "Croatia", "Slovakia",
		"Slovenia", "Lithuania", "Latvia", "Estonia", "Luxembourg", "Malta", "Cyprus", "Norway", "Iceland", "Switzerland",
		"Serbia", "Albania", "Montenegro", "Kosovo", "Bosnia", "Moldova", "Ukraine", "Georgia", "Armenia", "Turkey"}
	out := make([]string, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}

// series makes n values around base with some spread.
func series(r *rand.Rand, n int, base, spread float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Round(base + spread*(r.Float64()*2-1))
	}
	return out
}

func ptr(v float64) *float64 { return &v }

// caseAdder answers the add function the golden case lists share: it
// draws with f and appends to cases, applying each edit to the input.
func caseAdder(f *Fonts, cases *[]goldenCase) func(name string, s *chartspec.Spec, t *dataset.Table, edit ...func(*Input)) {
	return func(name string, s *chartspec.Spec, t *dataset.Table, edit ...func(*Input)) {
		in := Input{Spec: s, Table: t, Fonts: f}
		for _, e := range edit {
			e(&in)
		}
		*cases = append(*cases, goldenCase{name, in})
	}
}

// style is a golden case edit that changes the spec's style.
func style(fn func(*chartspec.Style)) func(*Input) { return func(in *Input) { fn(&in.Spec.Style) } }
