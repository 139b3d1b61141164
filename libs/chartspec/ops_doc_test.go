package chartspec

import (
	"regexp"
	"slices"
	"testing"
)

// docOpLine is a bullet of the ops page that says what one op is for:
// "- `setTitle`: sets the chart's drawn title, …".
var docOpLine = regexp.MustCompile("(?m)^- `([A-Za-z]+)`:")

// opsDocDiff compares the ops a page describes with the op catalog's
// names: undocumented ops are in the catalog and not on the page, unknown
// ones on the page and not in the catalog.
func opsDocDiff(names []string, markdown string) (undocumented, unknown []string) {
	var onPage []string
	for _, m := range docOpLine.FindAllStringSubmatch(markdown, -1) {
		onPage = append(onPage, m[1])
	}
	for _, n := range names {
		if !slices.Contains(onPage, n) {
			undocumented = append(undocumented, n)
		}
	}
	for _, n := range onPage {
		if !slices.Contains(names, n) {
			unknown = append(unknown, n)
		}
	}
	return undocumented, unknown
}

// TestOpsPageNamesEveryOp holds charts/docs/ops.md (served at /docs/ops/
// and searched by lookup_docs) to the op catalog both ways: a new op needs
// its line on the page, and a removed or renamed op loses it.
func TestOpsPageNamesEveryOp(t *testing.T) {
	f := newFixture(t)
	page, ok := f.cat.Page("ops")
	if !ok {
		t.Fatal("no ops page in the catalog (charts/docs/ops.md)")
	}
	undocumented, unknown := opsDocDiff(f.ops.Names(), page.Markdown)
	if len(undocumented) > 0 {
		t.Errorf("ops in the catalog that charts/docs/ops.md does not describe: %v", undocumented)
	}
	if len(unknown) > 0 {
		t.Errorf("ops charts/docs/ops.md describes that the catalog does not have: %v", unknown)
	}
}

// TestOpsDocDiff shows the comparison above catches an op missing from the
// page and an op the page names that does not exist.
func TestOpsDocDiff(t *testing.T) {
	names := []string{"setTitle", "setSize"}
	for _, tc := range []struct {
		name                          string
		page                          string
		wantUndocumented, wantUnknown []string
	}{
		{name: "both", page: "# Ops\n\n- `setTitle`: a.\n- `setSize`: b.\n"},
		{name: "missing", page: "# Ops\n\n- `setTitle`: a.\n", wantUndocumented: []string{"setSize"}},
		{name: "unknown", page: "- `setTitle`: a.\n- `setSize`: b.\n- `setFont`: c.\n", wantUnknown: []string{"setFont"}},
		{name: "mention is not a line", page: "- `setTitle`: a, unlike `setSize`.\n", wantUndocumented: []string{"setSize"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			undocumented, unknown := opsDocDiff(names, tc.page)
			if !slices.Equal(undocumented, tc.wantUndocumented) || !slices.Equal(unknown, tc.wantUnknown) {
				t.Errorf("undocumented %v unknown %v, want %v and %v", undocumented, unknown, tc.wantUndocumented, tc.wantUnknown)
			}
		})
	}
}
