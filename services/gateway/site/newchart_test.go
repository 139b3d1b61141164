package site

import (
	"archive/zip"
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// workbook builds an XLSX in memory from sheets of rows.
func workbook(t *testing.T, sheets map[string][][]any, order ...string) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range order {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, row := range sheets[name] {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bomb is a zip whose one part unzips to n zero bytes.
func bomb(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range n >> 20 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadWorkbook(t *testing.T) {
	two := workbook(t, map[string][][]any{
		"Sales": {{"Region", "Units", nil}, {"North", 120}, {"South", 95}, {}, {}},
		"Costs": {{"Quarter", "Rent"}, {"Q1", 10.5}},
	}, "Sales", "Costs")
	wide := make([]any, 1001)
	for i := range wide {
		wide[i] = "c"
	}
	tests := []struct {
		name      string
		file      []byte
		sheet     string
		wantSheet string
		wantGrid  [][]string
		status    int
		msg       string
	}{
		{"first sheet, empty rows and columns dropped", two, "", "Sales", [][]string{{"Region", "Units"}, {"North", "120"}, {"South", "95"}}, 0, ""},
		{"a chosen sheet", two, "Costs", "Costs", [][]string{{"Quarter", "Rent"}, {"Q1", "10.5"}}, 0, ""},
		{"no such sheet", two, "Profit", "", nil, http.StatusBadRequest, `no sheet named "Profit"`},
		{"not a workbook", []byte("Region,Units\nNorth,1\n"), "", "", nil, http.StatusBadRequest, "cannot be read as an Excel workbook"},
		{"a zip bomb", bomb(t, 80<<20), "", "", nil, http.StatusRequestEntityTooLarge, "unpacks to more than 64 MB"},
		{"too large a file", bytes.Repeat([]byte{'x'}, maxUpload+1), "", "", nil, http.StatusRequestEntityTooLarge, "over 5 MB"},
		{"too many columns", workbook(t, map[string][][]any{"S": {wide, wide}}, "S"), "", "", nil, http.StatusRequestEntityTooLarge, "more than 1000 columns"},
		{"a header only", workbook(t, map[string][][]any{"S": {{"a", "b"}}}, "S"), "", "", nil, http.StatusBadRequest, "no rows under a header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sheets, name, grid, err := ReadWorkbook(bytes.NewReader(tt.file), tt.sheet)
			if tt.status != 0 {
				var pe *pageError
				if !errors.As(err, &pe) || pe.status != tt.status || !strings.Contains(pe.msg, tt.msg) {
					t.Fatalf("err %v, want %d %q", err, tt.status, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if name != tt.wantSheet || !reflect.DeepEqual(sheets, []string{"Sales", "Costs"}) || !reflect.DeepEqual(grid, tt.wantGrid) {
				t.Fatalf("sheet %q of %v: %q", name, sheets, grid)
			}
		})
	}
}

func TestTranspose(t *testing.T) {
	tests := []struct {
		name string
		in   [][]string
		want [][]string
	}{
		{"square", [][]string{{"k", "a", "b"}, {"x", "1", "2"}, {"y", "3", "4"}}, [][]string{{"k", "x", "y"}, {"a", "1", "3"}, {"b", "2", "4"}}},
		{"ragged", [][]string{{"k", "a"}, {"x"}}, [][]string{{"k", "x"}, {"a", ""}}},
		{"empty", nil, [][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Transpose(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Transpose(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
