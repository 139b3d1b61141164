package fetch

import (
	"errors"
	"strconv"
	"time"
)

// The sentinels below tell the brand service what went wrong, so it can
// answer invalid_request with a message a user can act on. Every error Get
// returns for these cases is an *Error whose Error() is the full sentence and
// which matches exactly one sentinel under errors.Is.
var (
	// ErrInvalidURL means the text is not a website address we can fetch
	// (empty, unparsable, user name or password in it, odd IP spelling).
	ErrInvalidURL = errors.New("not a website address")
	// ErrScheme means the address is not http or https.
	ErrScheme = errors.New("only http and https addresses can be fetched")
	// ErrPort means the address names a port other than 80 or 443.
	ErrPort = errors.New("only ports 80 and 443 can be fetched")
	// ErrPrivateAddress means the host is, or resolves to, an address that
	// is not on the public internet; fetching it would let a caller reach
	// our own network.
	ErrPrivateAddress = errors.New("resolves to a private network address")
	// ErrTimeout means the site did not answer within the time budget.
	ErrTimeout = errors.New("no answer in time")
	// ErrNotFound means the site answered HTTP 404 or 410.
	ErrNotFound = errors.New("HTTP 404 from the site")
	// ErrStatus means the site answered with another non-2xx status.
	ErrStatus = errors.New("the site answered with an error status")
	// ErrNotHTML means a Kind HTML fetch got something other than a page.
	ErrNotHTML = errors.New("the page is not HTML")
	// ErrTooLarge means the body exceeded the budget of its Kind; the
	// Response still holds the bytes read up to the budget.
	ErrTooLarge = errors.New("the document is too large")
	// ErrTooManyRedirects means the site redirected more than MaxRedirects times.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrUnreachable means no connection could be made: the name does not
	// exist, the connection was refused, TLS failed.
	ErrUnreachable = errors.New("the site could not be reached")
	// ErrLimit means a Site already fetched as many documents of this Kind
	// as its budget allows; callers skip the rest rather than fail.
	ErrLimit = errors.New("per-site document limit reached")
)

// Error is a refusal or failure told in words a user can act on. Err is one
// of the sentinels above, so errors.Is(err, ErrTimeout) works; the
// underlying cause, if any, is kept for logs and errors.Is/As as well.
type Error struct {
	// Err is the sentinel that classifies the failure.
	Err error
	// URL is the address being fetched when it failed ("" if unknown).
	URL   string
	msg   string
	cause error
}

// Error returns the user-facing sentence.
func (e *Error) Error() string { return e.msg }

// Unwrap exposes the sentinel and the underlying cause to errors.Is/As.
func (e *Error) Unwrap() []error {
	if e.cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.cause}
}

func newError(kind error, rawURL, msg string, cause error) *Error {
	return &Error{Err: kind, URL: rawURL, msg: msg, cause: cause}
}

// seconds writes d the way the product's messages do: "10 s", "0.3 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// size writes a byte count in the largest exact binary unit.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	default:
		return strconv.FormatInt(n, 10) + " bytes"
	}
}
