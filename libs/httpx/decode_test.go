package httpx

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
)

type inner struct {
	Text string `json:"text"`
	Show bool   `json:"show"`
}

type body struct {
	Name  string           `json:"name"`
	Limit int              `json:"limit"`
	Title *inner           `json:"title"`
	Ops   []map[string]any `json:"ops"`
	Items []inner          `json:"items"`
}

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name, ct, body string
		code           apierr.Code
		msg            []string
	}{
		{name: "ok", ct: "application/json", body: `{"name":"a","limit":3,"title":{"text":"t"}}`},
		{name: "charset ok", ct: "application/json; charset=utf-8", body: `{"name":"a"}`},
		{name: "no content type", ct: "", body: `{}`, code: apierr.InvalidRequest, msg: []string{"Content-Type: application/json"}},
		{name: "wrong content type", ct: "text/csv", body: `{}`, code: apierr.InvalidRequest, msg: []string{"text/csv"}},
		{name: "empty", ct: "application/json", body: ``, code: apierr.InvalidRequest, msg: []string{"empty"}},
		{name: "unknown field", ct: "application/json", body: `{"nme":"a"}`, code: apierr.InvalidRequest, msg: []string{`"nme"`, "items, limit, name, ops, title"}},
		{name: "unknown nested field", ct: "application/json", body: `{"title":{"txt":"a"}}`, code: apierr.InvalidRequest, msg: []string{`"title.txt"`, "show, text"}},
		{name: "unknown field in list item", ct: "application/json", body: `{"items":[{"text":"a"},{"tex":"b"}]}`, code: apierr.InvalidRequest, msg: []string{`"items[1].tex"`, "show, text"}},
		{name: "duplicate key", ct: "application/json", body: `{"name":"a","name":"b"}`, code: apierr.InvalidRequest, msg: []string{"duplicate", "name"}},
		{name: "duplicate nested key", ct: "application/json", body: `{"ops":[{"op":"a","op":"b"}]}`, code: apierr.InvalidRequest, msg: []string{"duplicate", "ops[0].op"}},
		{name: "trailing data", ct: "application/json", body: `{"name":"a"} {"name":"b"}`, code: apierr.InvalidRequest, msg: []string{"not valid JSON"}},
		{name: "trailing garbage", ct: "application/json", body: `{"name":"a"}x`, code: apierr.InvalidRequest},
		{name: "wrong type", ct: "application/json", body: `{"limit":"ten"}`, code: apierr.InvalidRequest, msg: []string{`"limit"`, "an integer", "a string"}},
		{name: "fraction for int", ct: "application/json", body: `{"limit":1.5}`, code: apierr.InvalidRequest, msg: []string{`"limit"`}},
		{name: "not an object", ct: "application/json", body: `[1,2]`, code: apierr.InvalidRequest, msg: []string{"object"}},
		{name: "truncated", ct: "application/json", body: `{"name":`, code: apierr.InvalidRequest},
		{name: "invalid utf8", ct: "application/json", body: "{\"name\":\"\xff\"}", code: apierr.InvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
			if tt.ct != "" {
				r.Header.Set("Content-Type", tt.ct)
			}
			var b body
			err := DecodeJSON(r, &b)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Fatalf("err = %v, want code %s", err, tt.code)
			}
			for _, m := range tt.msg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q lacks %q", e.Message, m)
				}
			}
		})
	}
}

func TestDecodeJSONTooLarge(t *testing.T) {
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"`+strings.Repeat("a", 100)+`"}`))
	r.Header.Set("Content-Type", "application/json")
	r.Body = http.MaxBytesReader(rec, r.Body, 50)
	var b body
	var e *apierr.Error
	if err := DecodeJSON(r, &b); !errors.As(err, &e) || e.Code != apierr.TooLarge {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckQuery(t *testing.T) {
	tests := []struct {
		url  string
		ok   bool
		want string
	}{
		{"/?limit=3", true, ""},
		{"/", true, ""},
		{"/?limt=3", false, `"limt"; allowed: limit, cursor`},
		{"/?limit=3&limit=4", false, "given 2 times"},
		{"/?limit=%zz", false, `malformed escape "%zz"`},
		{"/?limit=5%", false, `malformed escape "%"`},
		{"/?limit=1%2", false, `malformed escape "%2"`},
		{"/?limit=1;cursor=x", false, "';' at byte 8"},
		{"/?cursor=a%3Bb&limit=2", true, ""},
	}
	for _, tt := range tests {
		err := CheckQuery(httptest.NewRequest("GET", tt.url, nil), "limit", "cursor")
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v", tt.url, err)
		}
	}
}

func TestIntParam(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tt := range []struct {
		v    *string
		want int
		msg  string
	}{
		{nil, 50, ""},
		{str("7"), 7, ""},
		{str("0"), 0, `query parameter "limit" must be an integer from 1 to 100, not "0"`},
		{str("101"), 0, `query parameter "limit" must be an integer from 1 to 100, not "101"`},
		{str("x"), 0, `query parameter "limit" must be an integer from 1 to 100, not "x"`},
		{str(""), 0, `query parameter "limit" is empty; give an integer from 1 to 100`},
	} {
		n, err := IntParam("limit", tt.v, 50, 1, 100)
		var ae *apierr.Error
		if tt.msg == "" && (err != nil || n != tt.want) || tt.msg != "" && (!errors.As(err, &ae) || ae.Code != apierr.InvalidRequest || ae.Message != tt.msg) {
			t.Errorf("%v: %d %v", tt.v, n, err)
		}
	}
}

func TestGuardRequestID(t *testing.T) {
	h := Guard(discardLogger(), "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(RequestID(r.Context())))
	}))
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(HeaderRequestID, "abc-123")
	h.ServeHTTP(rec, r)
	if rec.Body.String() != "abc-123" || rec.Header().Get(HeaderRequestID) != "abc-123" {
		t.Fatalf("kept id: %q %q", rec.Body, rec.Header().Get(HeaderRequestID))
	}
	rec = httptest.NewRecorder()
	r = httptest.NewRequest("GET", "/", nil)
	r.Header.Set(HeaderRequestID, "<script>")
	h.ServeHTTP(rec, r)
	if id := rec.Body.String(); len(id) != 24 || id != rec.Header().Get(HeaderRequestID) {
		t.Fatalf("fresh id: %q", id)
	}
}

// Embedded structs are read by the decoder as if their fields were the
// parent's, so the list of allowed fields names those fields, never the
// Go type.
type pictureOptions struct {
	Format string `json:"format"`
	Width  int    `json:"width"`
}

type deeper struct {
	pictureOptions
	Scale int `json:"scale"`
}

type hidden struct {
	Secret string `json:"name"`
}

type renderBody struct {
	pictureOptions
	Type  string `json:"type"`
	Title *inner `json:"title"`
}

type pointerBody struct {
	*deeper
	Data string `json:"data"`
}

// Frame is exported so that, embedded with a JSON name, it is a member.
type Frame struct {
	Format string `json:"format"`
	Width  int    `json:"width"`
}

type namedEmbed struct {
	Frame `json:"options"`
	Data  string `json:"data"`
}

type inlineBody struct {
	Opts   pictureOptions `json:",inline"`
	hidden                // its "name" is hidden by Name below
	Name   string         `json:"name"`
}

func TestUnknownFieldListsEmbeddedFields(t *testing.T) {
	tests := []struct {
		name, body string
		dst        any
		want       string
	}{
		{name: "embedded", body: `{"formt":"svg"}`, dst: &renderBody{}, want: "allowed fields: format, title, type, width"},
		{name: "embedded through a pointer, two levels", body: `{"sclae":2}`, dst: &pointerBody{}, want: "allowed fields: data, format, scale, width"},
		{name: "named embedded field stays one member", body: `{"format":"svg"}`, dst: &namedEmbed{}, want: "allowed fields: data, options"},
		{name: "inside the named embedded field", body: `{"options":{"fmt":"svg"}}`, dst: &namedEmbed{}, want: "allowed fields: format, width"},
		{name: "inline tag, shallower name wins", body: `{"x":1}`, dst: &inlineBody{}, want: "allowed fields: format, name, width"},
		{name: "nested under an embedding struct", body: `{"title":{"txt":"a"}}`, dst: &renderBody{}, want: "allowed fields: show, text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Unmarshal([]byte(tt.body), tt.dst)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.InvalidRequest {
				t.Fatalf("err = %v, want invalid_request", err)
			}
			if !strings.HasSuffix(e.Message, tt.want) {
				t.Errorf("message %q does not end with %q", e.Message, tt.want)
			}
			if strings.Contains(e.Message, "pictureOptions") || strings.Contains(e.Message, "deeper") {
				t.Errorf("message %q names a Go type", e.Message)
			}
		})
	}
}
