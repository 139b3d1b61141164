package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
)

// wideText is CSV of cols number columns and rows rows.
func wideText(rows, cols int) string {
	var b strings.Builder
	for j := range cols {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "s%d", j+1)
	}
	for i := range rows {
		b.WriteByte('\n')
		for j := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", i+j)
		}
	}
	return b.String() + "\n"
}

// rawJSON is v as the raw `data` JSON value of a request.
func rawJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRequestColumnCap(t *testing.T) {
	objects := func(cols int) []map[string]int {
		row := map[string]int{}
		for j := range cols {
			row[fmt.Sprintf("k%05d", j)] = j
		}
		return []map[string]int{row, row}
	}
	arrays := func(cols int) [][]any {
		head, row := make([]any, cols), make([]any, cols)
		for j := range cols {
			head[j], row[j] = fmt.Sprintf("k%d", j), j
		}
		return [][]any{head, row}
	}
	tests := []struct {
		name     string
		raw      []byte
		format   string
		wantCols int // 0: refused as too_large
	}{
		{"CSV at the cap", rawJSON(t, wideText(2, MaxColumns)), "", MaxColumns},
		{"CSV one over the cap", rawJSON(t, wideText(2, MaxColumns+1)), "", 0},
		{"CSV header alone, 100,000 columns", rawJSON(t, strings.Repeat("a,", 99_999)+"a"), "csv", 0},
		{"TSV one over the cap", rawJSON(t, strings.ReplaceAll(wideText(1, MaxColumns+1), ",", "\t")), "tsv", 0},
		{"JSON objects at the cap", rawJSON(t, objects(MaxColumns)), "json", MaxColumns},
		{"JSON objects one over the cap", rawJSON(t, objects(MaxColumns+1)), "json", 0},
		{"JSON arrays one over the cap", rawJSON(t, arrays(MaxColumns+1)), "", 0},
		{"JSON text one over the cap", rawJSON(t, string(rawJSON(t, arrays(MaxColumns+1)))), "json", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, _, err := ParseRequest(tt.raw, tt.format)
			if tt.wantCols > 0 {
				if err != nil || len(tab.Columns) != tt.wantCols {
					t.Fatalf("ParseRequest: %v", err)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.TooLarge || !strings.Contains(ae.Message, fmt.Sprintf("the limit is %d columns", MaxColumns)) {
				t.Fatalf("ParseRequest answered %v, want too_large naming the limit", err)
			}
			// Data saved before the cap still loads.
			if tab, _, err := Parse(json.RawMessage(tt.raw), tt.format); err != nil || len(tab.Columns) <= MaxColumns {
				t.Fatalf("Parse of stored data: %v", err)
			}
		})
	}
}

func TestParseRequestStopsWhenTheCallerHasGone(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
	}{
		{"CSV rows", rawJSON(t, wideText(3*checkEvery, 3))},
		{"JSON rows", rawJSON(t, func() []map[string]int {
			rows := make([]map[string]int, 3*checkEvery)
			for i := range rows {
				rows[i] = map[string]int{"a": i, "b": -i}
			}
			return rows
		}())},
		{"wide columns", rawJSON(t, wideText(3, MaxColumns))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := ParseRequestContext(ctx, tt.raw, ""); !errors.Is(err, context.Canceled) {
				t.Fatalf("parse after the caller left answered %v, want context.Canceled", err)
			}
			if _, _, err := ParseRequestContext(context.Background(), tt.raw, ""); err != nil {
				t.Fatalf("parse: %v", err)
			}
		})
	}
}

// TestUniqueNamesManyDuplicates: a header naming one column 30,000 times
// gets 30,000 distinct names at once (each duplicate used to search from
// "a 2" up, 450 million lookups in all).
func TestUniqueNamesManyDuplicates(t *testing.T) {
	tests := []struct {
		name string
		raw  []string
		want []string // the first names; every name must be distinct
	}{
		{"one name repeated", slices.Repeat([]string{"a"}, 30_000), []string{"a", "a 2", "a 3", "a 4"}},
		{"blank names", slices.Repeat([]string{""}, 30_000), []string{"Column 1", "Column 2", "Column 3"}},
		{"a taken number is skipped", append([]string{"a", "a 3", "a"}, slices.Repeat([]string{"a"}, 30_000)...), []string{"a", "a 3", "a 2", "a 4", "a 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, notices := uniqueNames(tt.raw)
			seen := make(map[string]bool, len(names))
			for _, n := range names {
				if seen[n] {
					t.Fatalf("name %q given twice", n)
				}
				seen[n] = true
			}
			for i, w := range tt.want {
				if names[i] != w {
					t.Fatalf("names start %q, want %q", names[:len(tt.want)], tt.want)
				}
			}
			if len(notices) == 0 {
				t.Fatal("no notice of the renamed columns")
			}
		})
	}
}

func TestColumnsByID(t *testing.T) {
	tab, _, err := Parse(wideText(1, 40), "csv")
	if err != nil {
		t.Fatal(err)
	}
	shifted := &Table{Rows: tab.Rows, Columns: tab.Columns[3:]}
	reversed := &Table{Rows: tab.Rows, Columns: slices.Clone(tab.Columns)}
	slices.Reverse(reversed.Columns)
	many := make([]string, 0, 45)
	for j := range 40 {
		many = append(many, fmt.Sprintf("c%d", j+1))
	}
	many = append(many, "c0", "c41", "x", "", "c01")
	tests := []struct {
		name string
		t    *Table
		ids  []string
	}{
		{"few ids in place", tab, []string{"c2", "c9", "c99"}},
		{"many ids in place", tab, many},
		{"many ids shifted", shifted, many},
		{"many ids reversed", reversed, many},
		{"no ids", tab, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.t.ColumnsByID(tt.ids)
			if len(got) != len(tt.ids) {
				t.Fatalf("%d columns for %d ids", len(got), len(tt.ids))
			}
			for i, id := range tt.ids {
				want, _ := tt.t.Column(id)
				if got[i] != want {
					t.Fatalf("ids[%d] %q: got %v, want %v", i, id, got[i], want)
				}
				if want == nil && slices.ContainsFunc(tt.t.Columns, func(c *Column) bool { return c.ID == id }) {
					t.Fatalf("Column(%q) missed a column the table has", id)
				}
				if want != nil && want.ID != id {
					t.Fatalf("Column(%q) answered %s", id, want.ID)
				}
			}
		})
	}
}
