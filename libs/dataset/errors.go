package dataset

import "fmt"

// DataError says what is wrong with the data and where ("row 7 has 5 cells,
// the header has 4"). Its own type lets services answer invalid_request.
type DataError struct {
	Message string
}

// Error returns the message as is; it is written for the caller.
func (e *DataError) Error() string { return e.Message }

// dataErrorf builds a *DataError with a formatted message.
func dataErrorf(format string, args ...any) *DataError {
	return &DataError{Message: fmt.Sprintf(format, args...)}
}

// ColumnLimitError is data with more columns than a chart may hold; its
// own type lets services answer too_large rather than invalid_request.
type ColumnLimitError struct {
	// Columns is how many columns were seen when reading stopped.
	Columns int
	// Limit is the most columns allowed.
	Limit int
}

// Error says how many columns came, the limit, and how to fit under it.
func (e *ColumnLimitError) Error() string {
	return fmt.Sprintf("the data has at least %d columns; the limit is %d columns. Send only the columns the chart needs, or send wide data long: one row per item, with a column naming the series",
		e.Columns, e.Limit)
}

// Notice tells the caller about a decision taken while reading the data
// (a renamed header, a column read as text); the data was still accepted.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Notice codes.
const (
	NoticeRenamedColumn  = "renamed_column"
	NoticeMixedValues    = "mixed_values"
	NoticeLeadingZeros   = "leading_zeros"
	NoticeAmbiguousDates = "ambiguous_dates"
	NoticeDecimalComma   = "decimal_comma"
	NoticeBlankLines     = "blank_lines_skipped"
	NoticeLooksLikeJSON  = "looks_like_json"
	NoticeYearsByValue   = "years_by_value"
)

// FieldError is a problem with one field of a step: Error() gives
// "field: problem", so callers can prefix it with "steps[0].".
type FieldError struct {
	Field   string
	Problem string
}

// Error gives "field: problem", or the problem alone when no field is at fault.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return e.Field + ": " + e.Problem
}

// fieldErrorf builds a *FieldError with a formatted problem text.
func fieldErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// StepError is the failure of one step in a list: Index is its position,
// Message the problem without the "steps[i]." prefix ("column: no column
// c9; …"), Field the field at fault when there is one.
type StepError struct {
	Index   int    `json:"index"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Error gives the full path: "steps[0].column: no column c9; …".
func (e *StepError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("steps[%d]: %s", e.Index, e.Message)
	}
	return fmt.Sprintf("steps[%d].%s", e.Index, e.Message)
}
