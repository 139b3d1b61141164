// Package dataset is the data engine: it parses the spec's data input forms
// (CSV/TSV text, JSON text, rows as objects or arrays) into column-wise
// tables, detects column kinds (text, number, date), applies pure
// table → table steps (sort, topN, filter, aggregate, limit, unpivot,
// dateBucket, kind) and summarizes tables for describe_data and query_data.
//
// Decisions the spec leaves open, taken here:
//
//   - Cells are trimmed of surrounding white space; a cell that is empty
//     after trimming (or JSON null) is blank. Nothing else ("n/a", "-") is
//     guessed to be blank.
//   - A column is a number column when every non-blank cell is a number,
//     a date column when every one is a date; otherwise text. When most
//     cells fit and a few do not, the column is text and a mixed_values
//     notice names the column and the first odd value.
//   - Decimal commas ("1.234,5") are chosen for a column only when some cell
//     can be read no other way and none needs a decimal point; ambiguous
//     columns ("1,234") read the English way.
//   - Numbers with a leading zero ("02134") keep the column as text, with a
//     leading_zeros notice, since a number would lose the zeros.
//   - 12% is stored as 12 with Column.Percent set; $ € £ ¥ are dropped and
//     remembered in Column.Currency; (12) is -12.
//   - Day/month order of numeric dates is decided per column by a cell such
//     as 25/03/2024; undecided, dots and dashes read day/month and slashes
//     month/day, with an ambiguous_dates notice.
//   - Four-digit integers are years under a header such as "Year",
//     "Jahr", "Date", "FY", "Year joined", "Founded" or "Baujahr", or when
//     they run in a regular series (years_by_value notice). A year column is
//     a date column whose unit is the year; charts take it as a number
//     where a role needs one (Column.AsYearNumbers).
//   - Blank lines in delimited text are skipped (noticed unless trailing);
//     a row with the wrong cell count is an error naming row and line.
//   - Rows decoded into map[string]any have lost their key order; their
//     new keys are taken in sorted order. json.RawMessage keeps it.
//   - Dates and times keep the calendar date and clock as written: an
//     offset ("2024-01-01T00:00:00+02:00") is checked and set aside, not
//     converted, so the row is still New Year's Day. Times format without
//     a zone ("2024-01-01T00:00:00").
//   - Text cells of delimited input point into the input string (no copy),
//     so a table keeps its source text alive.
package dataset
