package httpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// WriteJSON answers v as JSON with the given status.
//
// A value JSON cannot carry (a NaN or infinite number, a failing
// MarshalJSON) is a bug in the handler that built it, found only once the
// answer is encoded, when nothing has been written yet. WriteJSON then
// panics with the encoding error instead of writing a body of its own: the
// server's Guard recovers it, logs it with the stack and answers the one
// error body, `internal` with its docs link, which only it knows.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Errorf("httpx: encode a %d answer of type %T: %w", status, v, err))
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
