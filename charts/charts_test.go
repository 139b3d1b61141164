package charts

import (
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func mustLoad(t testing.TB) *Catalog {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestLoad(t *testing.T) {
	c := mustLoad(t)
	if got := len(c.Types()); got != 10 {
		t.Fatalf("Load gave %d types, want 10", got)
	}
}

func TestTypesAreTheContractsTen(t *testing.T) {
	c := mustLoad(t)
	var names []string
	for _, ty := range c.Types() {
		names = append(names, ty.Type)
		if ty.Label == "" || ty.UseFor == "" || ty.Guide == "" {
			t.Errorf("%s: label, use_for and guide must be set", ty.Type)
		}
		if strings.Count(ty.UseFor, ". ") > 0 || !strings.HasSuffix(ty.UseFor, ".") {
			t.Errorf("%s: use_for should be one sentence: %q", ty.Type, ty.UseFor)
		}
		if len(ty.Guide) < 300 {
			t.Errorf("%s: guide is only %d characters; it should be a full paragraph", ty.Type, len(ty.Guide))
		}
	}
	if !slices.Equal(names, SpecTypes()) {
		t.Fatalf("types = %v, want %v", names, SpecTypes())
	}
	if _, ok := c.Type("area"); ok {
		t.Error(`Type("area") found a type the contract does not have`)
	}
}

func TestRoles(t *testing.T) {
	type role struct {
		name                     string
		numeric, required, multi bool
	}
	tests := map[string][]role{
		"bar":       {{"category", false, true, false}, {"values", true, true, true}},
		"line":      {{"x", false, true, false}, {"values", true, true, true}},
		"pie":       {{"label", false, true, false}, {"value", true, true, false}},
		"scatter":   {{"x", true, true, false}, {"y", true, true, false}, {"size", true, false, false}, {"group", false, false, false}},
		"histogram": {{"value", true, true, false}},
		"boxplot":   {{"group", false, false, false}, {"value", true, true, false}},
		"dotplot":   {{"category", false, true, false}, {"values", true, true, true}},
		"sankey":    {{"source", false, true, false}, {"target", false, true, false}, {"value", true, true, false}},
		"radar":     {{"axis", false, true, false}, {"values", true, true, true}},
		"heatmap":   {{"x", false, false, false}, {"y", false, true, false}, {"value", true, true, true}},
	}
	c := mustLoad(t)
	for typ, want := range tests {
		t.Run(typ, func(t *testing.T) {
			ty, ok := c.Type(typ)
			if !ok {
				t.Fatalf("type %s missing", typ)
			}
			var got []role
			for _, r := range ty.Roles {
				got = append(got, role{r.Role, r.Numeric, r.Required, r.Multi})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("roles = %+v, want %+v", got, want)
			}
		})
	}
	line, _ := c.Type("line")
	x, _ := line.Role("x")
	if !slices.Equal(x.Kinds, []string{"date", "number", "text"}) {
		t.Errorf("line x kinds = %v, want [date number text]", x.Kinds)
	}
	if got := x.Describe(); got != "x: X axis (date or number), required" {
		t.Errorf("Describe = %q", got)
	}
}

// TestPublicJSON pins the JSON answered by the reference endpoints to the contract's fields.
func TestPublicJSON(t *testing.T) {
	c := mustLoad(t)
	bar, _ := c.Type("bar")
	ex := c.Sample("bar")
	pal := c.DefaultPalette()
	tests := []struct {
		name string
		v    any
		keys []string
	}{
		{"chart type", bar, []string{"guide", "label", "roles", "type", "use_for"}},
		{"role", bar.Roles[1], []string{"label", "numeric", "required", "role"}},
		{"example", ex, []string{"description", "id", "label", "type"}},
		{"palette", pal, []string{"colors", "id", "light", "name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, tt.keys) {
				t.Fatalf("JSON keys = %v, want %v (%s)", got, tt.keys, b)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	type opt struct {
		name   string
		kind   OptionKind
		values string
		def    any
	}
	tests := map[string][]opt{
		"bar":       {{"orientation", KindEnum, "auto,vertical,horizontal", "auto"}, {"stack", KindEnum, "none,stacked,percent", "none"}},
		"line":      {{"curve", KindEnum, "linear,smooth,step", "linear"}, {"markers", KindBool, "", false}},
		"pie":       {{"donut", KindNumber, "", 0.0}},
		"scatter":   {{"pointSize", KindNumber, "", 4.0}, {"opacity", KindNumber, "", 0.8}},
		"histogram": {{"bins", KindInteger, "", 0.0}},
		"boxplot":   {{"orientation", KindEnum, "auto,vertical,horizontal", "auto"}},
		"dotplot":   {{"orientation", KindEnum, "horizontal,vertical", "horizontal"}},
		"sankey":    {{"nodeSort", KindEnum, "auto,alphabetical,value", "auto"}},
		"radar":     {{"fill", KindBool, "", true}},
		"heatmap":   {{"colorScale", KindEnum, "sequential,diverging", "sequential"}},
	}
	c := mustLoad(t)
	for typ, want := range tests {
		t.Run(typ, func(t *testing.T) {
			ty, _ := c.Type(typ)
			var got []opt
			for _, o := range ty.Options {
				got = append(got, opt{o.Name, o.Kind, strings.Join(o.Values, ","), o.Default})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("options = %+v, want %+v", got, want)
			}
			defaults := ty.DefaultOptions()
			if err := ty.ValidateOptions(defaults); err != nil {
				t.Fatalf("defaults do not validate: %v", err)
			}
			if len(defaults) != len(want) {
				t.Fatalf("DefaultOptions has %d entries, want %d", len(defaults), len(want))
			}
		})
	}
}

func TestValidateOptions(t *testing.T) {
	c := mustLoad(t)
	tests := []struct {
		typ     string
		opts    map[string]any
		wantErr string // empty: valid
	}{
		{"bar", map[string]any{"orientation": "horizontal", "stack": "percent"}, ""},
		{"bar", map[string]any{"orientation": "diagonal"}, `option "orientation": "diagonal" is not allowed; use one of auto, vertical, horizontal`},
		{"bar", map[string]any{"curve": "smooth"}, `bar chart has no option "curve"; its options are orientation, stack`},
		{"line", map[string]any{"markers": true}, ""},
		{"line", map[string]any{"markers": "yes"}, `use true or false`},
		{"pie", map[string]any{"donut": 0.9}, ""},
		{"pie", map[string]any{"donut": 0.95}, `use a number from 0 to 0.9`},
		{"pie", map[string]any{"donut": "0.5"}, `"0.5" is not allowed`},
		{"histogram", map[string]any{"bins": 0.0}, ""},
		{"histogram", map[string]any{"bins": 2}, ""},
		{"histogram", map[string]any{"bins": json.Number("100")}, ""},
		{"histogram", map[string]any{"bins": 1.0}, `use an integer from 2 to 100, or 0`},
		{"histogram", map[string]any{"bins": 101.0}, `101 is not allowed`},
		{"histogram", map[string]any{"bins": 12.5}, `12.5 is not allowed`},
		{"scatter", map[string]any{"opacity": 0.05, "pointSize": 20}, ""},
		{"scatter", map[string]any{"opacity": 0.01}, `option "opacity"`},
		{"heatmap", map[string]any{"colorScale": "diverging"}, ""},
		{"radar", map[string]any{"fill": nil}, `null is not allowed`},
		{"sankey", nil, ""},
	}
	for _, tt := range tests {
		ty, _ := c.Type(tt.typ)
		err := ty.ValidateOptions(tt.opts)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s %v: unexpected error %v", tt.typ, tt.opts, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s %v: error %v, want one containing %q", tt.typ, tt.opts, err, tt.wantErr)
		}
	}
}

func TestExamplesFitTheirTypes(t *testing.T) {
	c := mustLoad(t)
	all := c.Examples("")
	if len(all) < 20 {
		t.Fatalf("%d examples, want at least 20", len(all))
	}
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.ID] {
			t.Errorf("example id %s used twice", e.ID)
		}
		seen[e.ID] = true
	}
	for _, ty := range c.Types() {
		t.Run(ty.Type, func(t *testing.T) {
			exs := c.Examples(ty.Type)
			if len(exs) < 2 {
				t.Fatalf("%d examples, want at least 2", len(exs))
			}
			sample := c.Sample(ty.Type)
			if sample.Type != ty.Type || !slices.ContainsFunc(exs, func(e Example) bool { return e.ID == sample.ID }) {
				t.Fatalf("sample %q is not one of the type's examples", sample.ID)
			}
			for _, e := range exs {
				if e.Type != ty.Type {
					t.Errorf("Examples(%q) returned a %s example", ty.Type, e.Type)
				}
				checkExampleData(t, ty, e)
			}
		})
	}
}

// minRows are the data sizes that make each type's examples convincing.
func minRows(typ string) int {
	switch typ {
	case "histogram":
		return 100
	case "scatter":
		return 30
	case "boxplot":
		return 50
	case "heatmap":
		return 12
	}
	return 3
}

func checkExampleData(t *testing.T, ty ChartType, e Example) {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(e.Data())).ReadAll()
	if err != nil {
		t.Fatalf("%s: CSV does not parse: %v", e.ID, err)
	}
	header, rows := records[0], records[1:]
	if len(header) < ty.RequiredRoles() {
		t.Errorf("%s: %d columns, want at least %d for the required roles", e.ID, len(header), ty.RequiredRoles())
	}
	if len(rows) < minRows(ty.Type) {
		t.Errorf("%s: %d rows, want at least %d", e.ID, len(rows), minRows(ty.Type))
	}
	if e.Title == "" || e.Label == "" || e.Description == "" {
		t.Errorf("%s: title, label and description must be set", e.ID)
	}
	if err := ty.ValidateOptions(e.Options); err != nil {
		t.Errorf("%s: %v", e.ID, err)
	}
	for _, r := range ty.Roles {
		ids, ok := e.Mapping[r.Role]
		if !ok {
			if r.Required {
				t.Errorf("%s: required role %s not mapped", e.ID, r.Role)
			}
			continue
		}
		if !r.Multi && len(ids) != 1 {
			t.Errorf("%s: role %s takes one column, mapped to %v", e.ID, r.Role, ids)
		}
		for _, id := range ids {
			i, err := strconv.Atoi(strings.TrimPrefix(id, "c"))
			if err != nil || i < 1 || i > len(header) {
				t.Errorf("%s: role %s maps to %q, not a column", e.ID, r.Role, id)
				continue
			}
			if !r.Numeric {
				continue
			}
			for n, row := range rows {
				if _, err := strconv.ParseFloat(row[i-1], 64); err != nil {
					t.Errorf("%s: role %s column %s row %d is %q, not a number", e.ID, r.Role, id, n+1, row[i-1])
					break
				}
			}
		}
	}
	switch ty.Type {
	case "boxplot":
		groups := map[string]int{}
		for _, row := range rows {
			groups[row[0]]++
		}
		for g, n := range groups {
			if n < 10 {
				t.Errorf("%s: group %s has %d values, want at least 10", e.ID, g, n)
			}
		}
	case "heatmap":
		cells := map[[2]string]bool{}
		for _, row := range rows {
			k := [2]string{row[0], row[1]}
			if cells[k] {
				t.Errorf("%s: cell %v listed twice", e.ID, k)
			}
			cells[k] = true
		}
	}
}

func TestExampleLookups(t *testing.T) {
	c := mustLoad(t)
	e, ok := c.Example("bar-gdp-by-country")
	if !ok || e.Type != "bar" || !strings.HasPrefix(e.Data(), "Country,GDP 2023 (USD trillion)\n") {
		t.Fatalf("Example(bar-gdp-by-country) = %+v, %v", e, ok)
	}
	if string(e.Steps[0]) != `{"type":"sort","column":"c2","direction":"desc"}` {
		t.Errorf("steps = %s", e.Steps[0])
	}
	if !slices.Equal(e.Mapping["values"], []string{"c2"}) || !slices.Equal(e.Mapping["category"], []string{"c1"}) {
		t.Errorf("mapping = %v", e.Mapping)
	}
	if _, ok := c.Example("nope"); ok {
		t.Error(`Example("nope") found something`)
	}
	if got := c.Examples("nope"); got == nil || len(got) != 0 {
		t.Errorf(`Examples("nope") = %v, want an empty non-nil list`, got)
	}
	if got := c.Sample("nope"); got.ID != "" {
		t.Errorf(`Sample("nope") = %q, want the zero Example`, got.ID)
	}
	total := 0
	for _, ty := range SpecTypes() {
		total += len(c.Examples(ty))
	}
	if total != len(c.Examples("")) {
		t.Errorf("per-type examples add up to %d, all examples are %d", total, len(c.Examples("")))
	}
}

// TestAccessorsReturnCopies makes sure callers cannot change the shared catalog.
func TestAccessorsReturnCopies(t *testing.T) {
	c := mustLoad(t)
	bar, _ := c.Type("bar")
	bar.Roles[0].Role = "changed"
	bar.Roles[0].Kinds[0] = "changed"
	bar.Options[0].Values[0] = "changed"
	e, _ := c.Example("bar-gdp-by-country")
	e.Options["orientation"] = "changed"
	e.Mapping["values"][0] = "c9"
	e.Steps[0][0] = 'X'
	p, _ := c.Palette("default")
	p.Colors[0] = "#000000"
	c.Palettes()[0].Colors[1] = "#000000"
	c.Types()[0].Roles[1].Label = "changed"

	bar2, _ := c.Type("bar")
	e2, _ := c.Example("bar-gdp-by-country")
	p2 := c.DefaultPalette()
	switch {
	case bar2.Roles[0].Role != "category", bar2.Roles[0].Kinds[0] != "text", bar2.Options[0].Values[0] != "auto", bar2.Roles[1].Label == "changed":
		t.Error("changing a returned ChartType changed the catalog")
	case e2.Options["orientation"] != "vertical", e2.Mapping["values"][0] != "c2", e2.Steps[0][0] != '{':
		t.Error("changing a returned Example changed the catalog")
	case p2.Colors[0] == "#000000", p2.Colors[1] == "#000000":
		t.Error("changing a returned Palette changed the catalog")
	}
}

func TestPalettes(t *testing.T) {
	c := mustLoad(t)
	hex := regexp.MustCompile(`^#[0-9A-F]{6}$`)
	ps := c.Palettes()
	if len(ps) < 8 {
		t.Fatalf("%d palettes, want at least 8", len(ps))
	}
	if ps[0].ID != "default" || c.DefaultPalette().ID != "default" {
		t.Errorf("first palette is %q, want default", ps[0].ID)
	}
	ids := map[string]bool{}
	light := 0
	for _, p := range ps {
		if ids[p.ID] {
			t.Errorf("palette id %s used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Light {
			light++
		}
		if p.Name == "" || p.Description == "" {
			t.Errorf("%s: name and description must be set", p.ID)
		}
		for _, col := range p.Colors {
			if !hex.MatchString(col) {
				t.Errorf("%s: colour %q is not #RRGGBB upper-case", p.ID, col)
			}
		}
	}
	for _, id := range []string{"default", "okabe-ito", "tableau-10", "viridis", "grayscale", "ibm-colorblind"} {
		if !ids[id] {
			t.Errorf("palette %s missing", id)
		}
	}
	if light == 0 {
		t.Error("no light palette for dark backgrounds")
	}
	oi, _ := c.Palette("okabe-ito")
	if !slices.Contains(oi.Colors, "#E69F00") || !slices.Contains(oi.Colors, "#0072B2") {
		t.Errorf("okabe-ito colours = %v", oi.Colors)
	}
	if _, ok := c.Palette("nope"); ok {
		t.Error(`Palette("nope") found something`)
	}
}

func TestIsHexColor(t *testing.T) {
	tests := map[string]bool{"#A1B2C3": true, "#000000": true, "#a1b2c3": false, "#ABC": false, "A1B2C3F": false, "#GGGGGG": false, "": false, "#A1B2C3 ": false}
	for in, want := range tests {
		if got := IsHexColor(in); got != want {
			t.Errorf("IsHexColor(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPages(t *testing.T) {
	c := mustLoad(t)
	pages := c.Pages()
	var slugs []string
	for _, p := range pages {
		slugs = append(slugs, p.Slug)
		if p.Title == "" {
			t.Errorf("page %s has no title", p.Slug)
		}
		if len(p.Sections()) < 2 {
			t.Errorf("page %s has %d sections, want at least 2", p.Slug, len(p.Sections()))
		}
	}
	want := []string{"overview", "authentication", "brand-palette", "chart-types", "data-input", "embedding", "image-links", "limits", "ops", "steps"}
	if !slices.Equal(slugs, want) {
		t.Fatalf("pages = %v, want %v", slugs, want)
	}
	if _, ok := c.Page("nope"); ok {
		t.Error(`Page("nope") found something`)
	}
}

func TestLimitsPageHasEveryErrorCode(t *testing.T) {
	codes := map[string]string{
		"invalid_request": "400", "unauthorized": "401", "rate_limited": "429", "internal": "500",
		"not_found": "404", "invalid_ops": "400", "chart_limit_reached": "409", "conflict": "409",
		"too_large": "413", "render_limit_reached": "429", "image_limit_reached": "429", "forbidden_plan": "403",
	}
	c := mustLoad(t)
	p, ok := c.Page("limits")
	if !ok {
		t.Fatal("no limits page")
	}
	sections := map[string]Section{}
	for _, s := range p.Sections() {
		sections[s.Anchor] = s
	}
	for code, status := range codes {
		s, ok := sections[code]
		if !ok {
			t.Errorf("limits page has no section #%s", code)
			continue
		}
		if !strings.HasPrefix(s.Markdown, "HTTP "+status+".") {
			t.Errorf("section %s should start with its status HTTP %s.", code, status)
		}
		if !strings.Contains(s.Markdown, "What to do:") {
			t.Errorf("section %s does not say what to do", code)
		}
	}
	plans := sections["plans-and-limits"].Markdown
	for _, n := range []string{"120 per minute", "1,200 per minute", "500 per UTC day", "10,000 per UTC day", "| 25 |", "| 10,000 |", "100 per month", "1,000 per month", "5 MiB", "1,000,000 cells", "20 per day"} {
		if !strings.Contains(plans, n) {
			t.Errorf("plans section lacks %q", n)
		}
	}
}

// TestDocLinksResolve checks every relative link between pages points at an existing page and section.
func TestDocLinksResolve(t *testing.T) {
	c := mustLoad(t)
	link := regexp.MustCompile(`\]\(\.\./([a-z-]+)/(?:#([a-z0-9_-]+))?\)`)
	n := 0
	for _, p := range c.Pages() {
		for _, m := range link.FindAllStringSubmatch(p.Markdown, -1) {
			n++
			target, ok := c.Page(m[1])
			if !ok {
				t.Errorf("%s links to missing page %s", p.Slug, m[1])
				continue
			}
			if m[2] != "" && !hasSection(target, m[2]) {
				t.Errorf("%s links to missing section %s#%s", p.Slug, m[1], m[2])
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d links between pages; the pattern may be broken", n)
	}
}

func TestAnchor(t *testing.T) {
	tests := map[string]string{
		"invalid_request":     "invalid_request",
		"Plans and limits":    "plans-and-limits",
		"`render_chart`":      "render_chart",
		"  Colours & legend ": "colours--legend",
		"Okabe–Ito (safe!)":   "okabeito-safe",
		"Étape 2":             "étape-2",
		"???":                 "",
	}
	for in, want := range tests {
		if got := Anchor(in); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []Section
	}{
		{"intro and two sections", "# T\n\nIntro.\n\n## One\n\nA\n\n### Sub\n\nB\n## Two ##\nC\n",
			[]Section{{"", "T", "Intro."}, {"one", "One", "A\n\n### Sub\n\nB"}, {"two", "Two", "C"}}},
		{"no intro", "# T\n## A\nx\n", []Section{{"a", "A", "x"}}},
		{"heading in a code fence", "# T\n## A\n```\n## not a heading\n```\n## B\n",
			[]Section{{"a", "A", "```\n## not a heading\n```"}, {"b", "B", ""}}},
		{"tilde fence with a shorter closer inside", "# T\n## A\n~~~~\n~~~\n## still code\n~~~~\n",
			[]Section{{"a", "A", "~~~~\n~~~\n## still code\n~~~~"}}},
		{"leading blank lines and CRLF", "\n\r\n# T\r\n## A\r\nx\r\n", []Section{{"a", "A", "x"}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Page{Title: "T", Markdown: tt.md}.Sections()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Sections =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// catalogFS copies the embedded catalog so a test can break one file.
func catalogFS(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, path)
		m[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadRejectsBrokenCatalogs(t *testing.T) {
	edit := func(file, old, new string) func(t *testing.T, m fstest.MapFS) {
		return func(t *testing.T, m fstest.MapFS) {
			s := string(m[file].Data)
			if !strings.Contains(s, old) {
				t.Fatalf("%s does not contain %q", file, old)
			}
			m[file] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
		}
	}
	tests := []struct {
		name    string
		breakIt func(t *testing.T, m fstest.MapFS)
		wantErr string
	}{
		{"unknown field in types", edit("types.json", `"use_for"`, `"usefor"`), `unknown field "usefor"`},
		{"type out of order", edit("types.json", `"type": "bar"`, `"type": "area"`), `entry 0 is "area", want "bar"`},
		{"bad option default", edit("types.json", `"default": "auto", "description": "vertical draws`, `"default": "up", "description": "vertical draws`), `option "orientation": "up" is not allowed`},
		{"numeric role with text kind", edit("types.json", `"numeric": true, "required": false, "multi": false, "kinds": ["number"]`, `"numeric": true, "required": false, "multi": false, "kinds": ["text"]`), `numeric role takes number columns only`},
		{"missing sample", edit("types.json", `"sample": "pie-browser-share"`, `"sample": "pie-nothing"`), `type pie: sample example "pie-nothing" does not exist`},
		{"sample of another type", edit("types.json", `"sample": "pie-browser-share"`, `"sample": "bar-gdp-by-country"`), `is a bar example`},
		{"lower-case colour", edit("palettes.json", `"#2F6FDB"`, `"#2f6fdb"`), `colour "#2f6fdb" is not upper-case #RRGGBB`},
		{"duplicate palette", edit("palettes.json", `"id": "dark2"`, `"id": "okabe-ito"`), `palette id "okabe-ito" used twice`},
		{"default not first", edit("palettes.json", `"id": "default"`, `"id": "standard"`), `the first palette must be "default"`},
		{"duplicate example", edit("examples.json", `"id": "bar-developer-languages"`, `"id": "bar-gdp-by-country"`), `example id "bar-gdp-by-country" used twice`},
		{"mapping to a text column", edit("examples.json", `"mapping": {"category": "c1", "values": ["c2"]}`, `"mapping": {"category": "c2", "values": ["c1"]}`), `role "values" needs numbers but column c1 (Country)`},
		{"mapping to a missing column", edit("examples.json", `"mapping": {"label": "c1", "value": "c2"}`, `"mapping": {"label": "c1", "value": "c7"}`), `column "c7" does not exist; the data has c1 to c2`},
		{"single role given a list", edit("examples.json", `"mapping": {"label": "c1", "value": "c2"}`, `"mapping": {"label": "c1", "value": ["c2"]}`), `role "value" takes one column id`},
		{"required role unmapped", edit("examples.json", `"mapping": {"label": "c1", "value": "c2"}`, `"mapping": {"label": "c1"}`), `required role "value" is not mapped`},
		{"unknown role", edit("examples.json", `"mapping": {"label": "c1", "value": "c2"}`, `"mapping": {"label": "c1", "value": "c2", "size": "c2"}`), `pie chart has no role "size"`},
		{"bad step direction", edit("examples.json", `"direction": "desc"`, `"direction": "down"`), `direction must be one of asc, desc`},
		{"reshaping step", edit("examples.json", `{"type": "sort", "column": "c2", "direction": "desc"}`, `{"type": "aggregate", "groupBy": ["c1"], "measures": []}`), `step type "aggregate" is not allowed in examples`},
		{"step column out of range", edit("examples.json", `{"type": "sort", "column": "c2", "direction": "desc"}`, `{"type": "sort", "column": "c5", "direction": "desc"}`), `sort step: column "c5" does not exist`},
		{"bad example option", edit("examples.json", `"options": {"donut": 0.55}`, `"options": {"donut": 2}`), `option "donut": 2 is not allowed`},
		{"unknown palette", edit("examples.json", `"palette": "red-blue"`, `"palette": "rainbow"`), `unknown palette "rainbow"`},
		{"id not prefixed by type", edit("examples.json", `"id": "pie-household-budget"`, `"id": "household-budget"`), `start with "pie-"`},
		{"ragged CSV", edit("examples/bar-gdp-by-country.csv", "China,17.79", "China,17.79,extra"), `wrong number of fields`},
		{"duplicate CSV header", edit("examples/dotplot-team-survey.csv", "Team,Before,After", "Team,Before,Before"), `column name "Before" used twice`},
		{"missing CSV", func(t *testing.T, m fstest.MapFS) { delete(m, "examples/radar-player-skills.csv") }, `example radar-player-skills: read data`},
		{"orphan CSV", func(t *testing.T, m fstest.MapFS) {
			m["examples/bar-orphan.csv"] = &fstest.MapFile{Data: []byte("a,b\nx,1\n")}
		}, `examples/bar-orphan.csv belongs to no example`},
		{"page without title", edit("docs/steps.md", "# Steps\n", "Steps\n"), `docs/steps.md: the first line must be a "# " title`},
		{"duplicate anchor", edit("docs/steps.md", "## limit\n", "## sort\n"), `two sections have the anchor "sort"`},
		{"heading without anchor", edit("docs/steps.md", "## limit\n", "## ???\n"), `heading "???" gives an empty anchor`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := catalogFS(t)
			if _, err := load(m); err != nil {
				t.Fatalf("unbroken copy does not load: %v", err)
			}
			tt.breakIt(t, m)
			_, err := load(m)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("load error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
