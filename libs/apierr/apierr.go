// Package apierr holds the API's error codes, their HTTP statuses and the
// error body. It is the one place where an error becomes an HTTP answer, so
// every service refuses requests the same way.
package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Code is a stable, machine-readable error code of the spec §7.
type Code string

// The spec's error codes.
const (
	InvalidRequest     Code = "invalid_request"
	Unauthorized       Code = "unauthorized"
	RateLimited        Code = "rate_limited"
	Internal           Code = "internal"
	NotFound           Code = "not_found"
	InvalidOps         Code = "invalid_ops"
	ChartLimitReached  Code = "chart_limit_reached"
	Conflict           Code = "conflict"
	TooLarge           Code = "too_large"
	RenderLimitReached Code = "render_limit_reached"
	ImageLimitReached  Code = "image_limit_reached"
	ForbiddenPlan      Code = "forbidden_plan"
)

// Codes lists every code, in the order of the spec's table.
var Codes = []Code{InvalidRequest, Unauthorized, RateLimited, Internal, NotFound, InvalidOps,
	ChartLimitReached, Conflict, TooLarge, RenderLimitReached, ImageLimitReached, ForbiddenPlan}

// Status is the HTTP status the spec gives a code; unknown codes are 500.
func (c Code) Status() int {
	switch c {
	case InvalidRequest, InvalidOps:
		return http.StatusBadRequest
	case Unauthorized:
		return http.StatusUnauthorized
	case RateLimited, RenderLimitReached, ImageLimitReached:
		return http.StatusTooManyRequests
	case NotFound:
		return http.StatusNotFound
	case ChartLimitReached, Conflict:
		return http.StatusConflict
	case TooLarge:
		return http.StatusRequestEntityTooLarge
	case ForbiddenPlan:
		return http.StatusForbidden
	default:
		return http.StatusInternalServerError
	}
}

// Error is an API refusal: a code and a message for a person that says what
// to do.
type Error struct {
	Code    Code
	Message string
	// Err is the cause, logged but never shown to the caller.
	Err error
	// RetryAfter, when set, is sent as Retry-After (whole seconds, at
	// least 1): when a refusal of load is worth trying again.
	RetryAfter time.Duration
	// Unavailable marks an internal error whose service is away for a
	// moment (an upstream down or draining, the store unreachable): the
	// answer is the contract's internal 500 with Retry-After, logged as a
	// warning rather than a fault of this process.
	Unavailable bool
	// Transient marks an internal error of our own machinery that passes
	// by itself (a browser killed under a render): it is answered 503
	// Service Unavailable with Retry-After, so that a client or proxy
	// that acts on the status retries, while the code stays the
	// contract's internal. 500 is left to our bugs.
	Transient bool
}

// Status is the HTTP status of e: its code's, as the contract's error
// table gives it, except 503 for a transient internal error.
func (e *Error) Status() int {
	if e.Transient && e.Code == Internal {
		return http.StatusServiceUnavailable
	}
	return e.Code.Status()
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New makes an API error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an API error that keeps its cause for the logs.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// Unavailable is the answer of a request whose service is away for a
// moment: code internal (500), with Retry-After retry.
func Unavailable(err error, retry time.Duration, format string, args ...any) *Error {
	return &Error{Code: Internal, Message: fmt.Sprintf(format, args...), Err: err, RetryAfter: retry, Unavailable: true}
}

// Transient is the answer of a request that failed for a passing reason
// of the service's own (its browser went away under a render): code
// internal, status 503, with Retry-After retry, logged as a warning.
// The message should say to retry.
func Transient(err error, retry time.Duration, format string, args ...any) *Error {
	e := Unavailable(err, retry, format, args...)
	e.Transient = true
	return e
}

// StorageFullRetry is the Retry-After of a write refused because the
// service's storage is full: freeing space takes an operator (or deletes),
// so a client waits longer than for a blip.
const StorageFullRetry = 60 * time.Second

// storageFull is what a store's "storage full" error has (store.ErrStorageFull):
// matched by behaviour, so this package imports no backend.
type storageFull interface{ StorageFull() bool }

// IsStorageFull reports a store's "storage full" in err's chain.
func IsStorageFull(err error) bool {
	var sf storageFull
	return errors.As(err, &sf) && sf.StorageFull()
}

// deleteRefused is what a store's error has when even a delete found no
// room (store.ErrDeleteFull).
type deleteRefused interface{ DeleteRefused() bool }

// StorageFull is the answer of a write refused because the service's
// storage is full: the contract's internal 500 with Retry-After, logged as a
// warning, and a message that says whose fault it is not. A delete that
// could not be done either says so, rather than that deletes work.
func StorageFull(err error) *Error {
	var dr deleteRefused
	if errors.As(err, &dr) && dr.DeleteRefused() {
		return Unavailable(err, StorageFullRetry, "the service's storage is full, so even this delete could not be done and nothing was deleted; this is not a fault of the request, and reading charts still works; retry in %d s", int(StorageFullRetry/time.Second))
	}
	return Unavailable(err, StorageFullRetry, "the service's storage is full, so this change could not be saved; this is not a fault of the request, and reading or deleting charts still works; retry in %d s", int(StorageFullRetry/time.Second))
}

// From finds the API error in err's chain. A store's "storage full" becomes
// StorageFull; anything else becomes internal, with a message that leaks
// nothing.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if IsStorageFull(err) {
		return StorageFull(err)
	}
	return &Error{Code: Internal, Message: "the service failed to answer; try again, and report it if it persists", Err: err}
}

// Body is the JSON error body of the spec §2.
type Body struct {
	Error BodyError `json:"error"`
}

// BodyError is the inside of Body.
type BodyError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Docs    string `json:"docs"`
}

// DocsURL is the link to a code's section of the limits page.
func DocsURL(docsURL string, c Code) string {
	return docsURL + "/limits/#" + string(c)
}

// Write sends err as the error body with its status. docsURL is {docs_url}.
func Write(w http.ResponseWriter, docsURL string, err error) *Error {
	e := From(err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(1, (e.RetryAfter+time.Second-1)/time.Second))))
	}
	w.WriteHeader(e.Status())
	json.NewEncoder(w).Encode(Body{Error: BodyError{Code: e.Code, Message: e.Message, Docs: DocsURL(docsURL, e.Code)}})
	return e
}
