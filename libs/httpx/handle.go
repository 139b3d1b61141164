package httpx

import (
	"net/http"

	"chartd.dev/libs/apierr"
)

// HandlerFunc is an HTTP handler that returns its refusal instead of
// writing it, so error bodies are written in one place.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Errors adapts HandlerFuncs to http.Handler, writing any returned error as
// the API error body with links under docsURL.
type Errors struct {
	DocsURL string
}

// Wrap turns f into an http.Handler.
func (e Errors) Wrap(f HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			apierr.Write(w, e.DocsURL, err)
		}
	})
}
