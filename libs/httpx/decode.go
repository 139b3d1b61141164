// Package httpx holds the HTTP plumbing every service shares: strict JSON
// decoding, query checks, JSON answers and the middleware that gives every
// request an id, a log line and a panic guard.
package httpx

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/apierr"
)

// strictOpts refuse unknown members; duplicate names and trailing data are
// refused by the decoder itself.
var strictOpts = json.JoinOptions(json.RejectUnknownMembers(true))

// DecodeJSON reads the request body into dst, strictly: the Content-Type
// must be application/json, and unknown fields, duplicate keys, trailing
// data and wrong JSON types are refused with invalid_request naming the
// field. A body over the http.MaxBytesReader limit is too_large.
func DecodeJSON(r *http.Request, dst any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierr.New(apierr.TooLarge, "the request body is over %d bytes; send less data", mbe.Limit)
		}
		return apierr.Wrap(apierr.InvalidRequest, err, "the request body could not be read")
	}
	return Unmarshal(body, dst)
}

func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		return apierr.New(apierr.InvalidRequest, "send the body as JSON with the header Content-Type: application/json (got %q)", ct)
	}
	return nil
}

// Unmarshal decodes body into dst with the strict rules of DecodeJSON.
func Unmarshal(body []byte, dst any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return apierr.New(apierr.InvalidRequest, "the request body is empty; send a JSON object")
	}
	if err := json.Unmarshal(body, dst, strictOpts); err != nil {
		return apierr.Wrap(apierr.InvalidRequest, err, "%s", describe(err, reflect.TypeOf(dst)))
	}
	return nil
}

// describe turns a decoding error into a message a person can act on.
func describe(err error, t reflect.Type) string {
	var se *json.SemanticError
	var ye *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		field := pointerField(se.JSONPointer)
		if errors.Is(se.Err, json.ErrUnknownName) {
			parent, name := splitLast(se.JSONPointer)
			allowed := allowedFields(t, parent)
			msg := fmt.Sprintf("unknown field %q", joinField(parent, name))
			if len(allowed) > 0 {
				msg += "; allowed fields: " + strings.Join(allowed, ", ")
			}
			return msg
		}
		want := "a different JSON type"
		if se.GoType != nil {
			want = jsonKindOf(se.GoType)
		}
		got := "the value"
		if se.JSONKind != 0 {
			got = kindName(se.JSONKind)
		}
		if field == "" {
			return fmt.Sprintf("the body must be %s, not %s", want, got)
		}
		return fmt.Sprintf("field %q must be %s, not %s", field, want, got)
	case errors.As(err, &ye):
		if errors.Is(ye.Err, jsontext.ErrDuplicateName) {
			return fmt.Sprintf("duplicate key %q; send each field once", pointerField(ye.JSONPointer))
		}
		return fmt.Sprintf("the body is not valid JSON at byte %d: %v", ye.ByteOffset, ye.Err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body is not valid JSON: it ends too early"
	}
	return "the body is not valid JSON: " + err.Error()
}

// pointerField writes a JSON pointer as a field path: /ops/1/title → ops[1].title.
func pointerField(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func splitLast(p jsontext.Pointer) (parent []string, last string) {
	var toks []string
	for tok := range p.Tokens() {
		toks = append(toks, tok)
	}
	if len(toks) == 0 {
		return nil, ""
	}
	return toks[:len(toks)-1], toks[len(toks)-1]
}

func joinField(parent []string, name string) string {
	var b strings.Builder
	for _, tok := range append(parent, name) {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// allowedFields walks t along path and lists the JSON names of the struct
// found there, as the decoder sees them (see structFields).
func allowedFields(t reflect.Type, path []string) []string {
	t = elem(t)
	for _, tok := range path {
		if t == nil {
			return nil
		}
		t = elem(t)
		if strings.Trim(tok, "0123456789") == "" {
			continue
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		t = structFields(t)[tok]
	}
	t = elem(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	fields := structFields(t)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// elem strips pointers, slices and arrays down to the element type.
func elem(t reflect.Type) reflect.Type {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	return t
}

// structFields maps the JSON member names of struct t to their Go types
// the way the decoder reads them: an embedded struct without a JSON name,
// or a field tagged inline, contributes its own members (flattened, to any
// depth), and a name nearer the top hides the same name further down.
func structFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	seen := map[reflect.Type]bool{t: true}
	level := []reflect.Type{t}
	for len(level) > 0 {
		found := map[string]reflect.Type{}
		var next []reflect.Type
		for _, st := range level {
			for i := 0; i < st.NumField(); i++ {
				f := st.Field(i)
				if inlined(f) {
					if et := elem(f.Type); !seen[et] {
						seen[et] = true
						next = append(next, et)
					}
					continue
				}
				if name, ok := jsonName(f); ok {
					if _, hidden := fields[name]; !hidden {
						found[name] = f.Type
					}
				}
			}
		}
		for name, ft := range found {
			fields[name] = ft
		}
		level = next
	}
	return fields
}

// inlined says whether the decoder reads f's members as its parent's: an
// embedded struct (or pointer to one) with no JSON name, or an inline tag.
func inlined(f reflect.StructField) bool {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return false
	}
	name, opts, _ := strings.Cut(tag, ",")
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	return hasOption(opts, "inline") || f.Anonymous && name == ""
}

// hasOption says whether a json tag's options (after the name) hold opt.
func hasOption(opts, opt string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if hasOption(opts, "unknown") {
		// The catch-all of unknown members is not a member itself.
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

func jsonKindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a different JSON type"
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "the value"
}

// Present tells whether an optional raw JSON field was sent with a value
// (left out and null both count as absent).
func Present(v []byte) bool {
	s := strings.TrimSpace(string(v))
	return s != "" && s != "null"
}

// RefuseBody refuses a body on an endpoint that takes none (an empty JSON
// object is tolerated, as many clients send one).
func RefuseBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	buf := make([]byte, 64)
	n, err := io.ReadFull(r.Body, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return apierr.Wrap(apierr.InvalidRequest, err, "the request body could not be read")
	}
	if b := strings.TrimSpace(string(buf[:n])); b != "" && b != "{}" {
		return apierr.New(apierr.InvalidRequest, "this endpoint takes no body; send none")
	}
	return nil
}
