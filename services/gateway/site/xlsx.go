package site

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"

	"chartd.dev/libs/dataset"
)

// ReadWorkbook reads the sheet named sheet (the first when empty) of the
// XLSX workbook in r as rows of text, as the sheet shows its cells, the
// header first; trailing empty rows and columns are dropped. It answers
// the workbook's sheet names and the sheet read. The file is at most
// maxUpload bytes, unzips to at most xlsxUnzipLimit, and its sheet holds
// at most the API's column and cell limits: a larger or hostile file is
// refused with a message for a person, never read in full.
func ReadWorkbook(r io.Reader, sheet string) (sheets []string, name string, grid [][]string, err error) {
	body, err := io.ReadAll(io.LimitReader(r, maxUpload+1))
	if err != nil {
		return nil, "", nil, fmt.Errorf("read upload: %w", err)
	}
	if len(body) > maxUpload {
		return nil, "", nil, siteErr(http.StatusRequestEntityTooLarge, fmt.Sprintf("This file is over %d MB; save a smaller part of it, or paste the rows you need.", maxUpload>>20))
	}
	f, err := excelize.OpenReader(bytes.NewReader(body), excelize.Options{UnzipSizeLimit: xlsxUnzipLimit, UnzipXMLSizeLimit: xlsxUnzipLimit})
	if err != nil {
		if strings.Contains(err.Error(), "unzip size") {
			return nil, "", nil, siteErr(http.StatusRequestEntityTooLarge, fmt.Sprintf("This workbook unpacks to more than %d MB; save the sheet you need as CSV and upload that.", xlsxUnzipLimit>>20))
		}
		return nil, "", nil, siteErr(http.StatusBadRequest, "This file cannot be read as an Excel workbook (.xlsx). Save it as .xlsx or CSV and try again.")
	}
	defer f.Close()
	sheets = f.GetSheetList()
	if len(sheets) == 0 {
		return nil, "", nil, siteErr(http.StatusBadRequest, "This workbook has no sheets.")
	}
	name = sheets[0]
	if sheet != "" {
		if !slices.Contains(sheets, sheet) {
			return nil, "", nil, siteErr(http.StatusBadRequest, fmt.Sprintf("This workbook has no sheet named %q.", sheet))
		}
		name = sheet
	}
	rows, err := f.Rows(name)
	if err != nil {
		return nil, "", nil, siteErr(http.StatusBadRequest, "This sheet cannot be read; save it as CSV and upload that.")
	}
	defer rows.Close()
	cells, width := 0, 0
	for rows.Next() {
		row, err := rows.Columns()
		if err != nil {
			return nil, "", nil, siteErr(http.StatusBadRequest, "This sheet cannot be read; save it as CSV and upload that.")
		}
		for len(row) > 0 && strings.TrimSpace(row[len(row)-1]) == "" {
			row = row[:len(row)-1]
		}
		width = max(width, len(row))
		cells += len(row)
		if width > dataset.MaxColumns {
			return nil, "", nil, siteErr(http.StatusRequestEntityTooLarge, fmt.Sprintf("This sheet has more than %d columns; a chart takes at most %d.", dataset.MaxColumns, dataset.MaxColumns))
		}
		if cells > dataset.MaxCells {
			return nil, "", nil, siteErr(http.StatusRequestEntityTooLarge, fmt.Sprintf("This sheet has more than %d cells; a chart takes at most %d. Keep the rows you need.", dataset.MaxCells, dataset.MaxCells))
		}
		grid = append(grid, row)
	}
	if err := rows.Error(); err != nil {
		return nil, "", nil, siteErr(http.StatusBadRequest, "This sheet cannot be read; save it as CSV and upload that.")
	}
	for len(grid) > 0 && len(grid[len(grid)-1]) == 0 {
		grid = grid[:len(grid)-1]
	}
	if len(grid) < 2 {
		return nil, "", nil, siteErr(http.StatusBadRequest, fmt.Sprintf("Sheet %q has no rows under a header; choose another sheet.", name))
	}
	for i, row := range grid {
		if len(row) < width {
			grid[i] = append(row, make([]string, width-len(row))...)
		}
	}
	return sheets, name, grid, nil
}
