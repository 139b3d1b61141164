package route

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/httpx"
)

// shelf is a service of typed endpoints for the adapter's tests.
type shelf struct{}

type putRequest struct {
	ID    string  `path:"id" json:"-"`
	Q     *string `query:"q" json:"-"`
	Cur   string  `query:"cursor" json:"-"`
	Name  *string `json:"name"`
	Count int     `json:"count"`
}

type putAnswer struct {
	ID      string `json:"id"`
	Q       string `json:"q"`
	Cur     string `json:"cursor"`
	Name    string `json:"name"`
	Count   int    `json:"count"`
	Account string `json:"account"`
}

func (shelf) put(_ context.Context, p auth.Principal, req putRequest) (putAnswer, error) {
	a := putAnswer{ID: req.ID, Cur: req.Cur, Count: req.Count, Account: p.AccountID}
	if req.Q != nil {
		a.Q = "[" + *req.Q + "]"
	}
	if req.Name != nil {
		a.Name = *req.Name
	}
	return a, nil
}

type countAnswer struct {
	Count int `json:"count"`
}

func (shelf) count(_ context.Context, _ auth.Principal, req struct {
	Count int `json:"count"`
}) (countAnswer, error) {
	return countAnswer{Count: req.Count}, nil
}

func (shelf) none(_ context.Context, p auth.Principal, _ None) (countAnswer, error) {
	if p.AccountID != "" {
		return countAnswer{}, apierr.New(apierr.Internal, "an Anyone endpoint was given a principal")
	}
	return countAnswer{Count: 7}, nil
}

func (shelf) fail(context.Context, auth.Principal, None) (countAnswer, error) {
	return countAnswer{}, apierr.New(apierr.NotFound, "no such shelf")
}

type pictureRequest struct {
	ID string `path:"id" json:"-"`
}

func (shelf) picture(w http.ResponseWriter, _ *http.Request, p auth.Principal, req pictureRequest) error {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write([]byte("<svg id=\"" + req.ID + "\" account=\"" + p.AccountID + "\"/>"))
	return err
}

func proOnly(p auth.Principal) error {
	if p.Plan != "pro" {
		return apierr.New(apierr.ForbiddenPlan, "this needs the pro plan")
	}
	return nil
}

func shelfTable() []Endpoint[shelf] {
	return []Endpoint[shelf]{
		JSON(Spec{Route: Route{Op: "put_thing", Method: http.MethodPut, Path: "/things/{id}"}, Status: http.StatusCreated}, shelf.put),
		JSON(Spec{Route: Route{Op: "pro_thing", Method: http.MethodPost, Path: "/pro/{id}"}, Gate: proOnly}, shelf.put),
		JSON(Spec{Route: Route{Op: "copy_thing", Method: http.MethodPost, Path: "/things/{id}/copy"}, Body: BodyNone}, shelf.put),
		JSON(Spec{Route: Route{Op: "count", Method: http.MethodPost, Path: "/count"}, Body: BodyOptional}, shelf.count),
		JSON(Spec{Route: Route{Op: "open", Method: http.MethodGet, Path: "/open", Access: Public}, Need: Anyone}, shelf.none),
		JSON(Spec{Route: Route{Op: "fail", Method: http.MethodGet, Path: "/fail"}}, shelf.fail),
		Stream(Spec{Route: Route{Op: "picture", Method: http.MethodGet, Path: "/things/{id}/picture"}}, shelf.picture),
	}
}

// TestTypedEndpoints: the adapter runs the one preamble (query check,
// authentication, gate, body rule, strict decoding, parameters) in that
// order, answers with the declared status and sends every refusal to the
// error writer.
func TestTypedEndpoints(t *testing.T) {
	h := Mux("shelf", shelf{}, shelfTable(), httpx.Errors{DocsURL: "http://x/docs"})
	free := auth.Principal{AccountID: "acct-1", Plan: "free"}
	pro := auth.Principal{AccountID: "acct-2", Plan: "pro"}
	for _, tt := range []struct {
		name         string
		method, path string
		p            *auth.Principal
		ctype, body  string
		status       int
		// want is the exact answer body, or the error's code and message.
		want, code, msg string
		wantType        string
	}{
		{name: "created with body, query and path", method: "PUT", path: "/things/t-1?q=a%20b&cursor=c9", p: &free, ctype: "application/json", body: `{"name":"N","count":3}`,
			status: 201, want: `{"id":"t-1","q":"[a b]","cursor":"c9","name":"N","count":3,"account":"acct-1"}` + "\n"},
		{name: "absent pointer query stays nil", method: "PUT", path: "/things/t-1", p: &free, ctype: "application/json", body: `{}`,
			status: 201, want: `{"id":"t-1","q":"","cursor":"","name":"","count":0,"account":"acct-1"}` + "\n"},
		{name: "present empty query is not absent", method: "PUT", path: "/things/t-1?q=", p: &free, ctype: "application/json", body: `{}`,
			status: 201, want: `{"id":"t-1","q":"[]","cursor":"","name":"","count":0,"account":"acct-1"}` + "\n"},
		{name: "unknown query parameter first", method: "PUT", path: "/things/t-1?x=1", ctype: "text/plain", body: `nope`,
			status: 400, code: "invalid_request", msg: `unknown query parameter "x"; allowed: q, cursor`},
		{name: "a query parameter twice", method: "PUT", path: "/things/t-1?q=1&q=2", p: &free, ctype: "application/json", body: `{}`,
			status: 400, code: "invalid_request", msg: `query parameter "q" is given 2 times; give it once`},
		{name: "no principal before the body", method: "PUT", path: "/things/t-1", ctype: "text/plain", body: `nope`,
			status: 401, code: "unauthorized", msg: "send your API key in the header Authorization: Bearer <API_KEY>"},
		{name: "unknown body field", method: "PUT", path: "/things/t-1", p: &free, ctype: "application/json", body: `{"id":"t-2"}`,
			status: 400, code: "invalid_request", msg: `unknown field "id"; allowed fields: count, name`},
		{name: "wrong content type", method: "PUT", path: "/things/t-1", p: &free, ctype: "text/csv", body: `{}`,
			status: 400, code: "invalid_request", msg: `send the body as JSON with the header Content-Type: application/json (got "text/csv")`},
		{name: "gate before the body", method: "POST", path: "/pro/t-1", p: &free, ctype: "text/plain", body: `nope`,
			status: 403, code: "forbidden_plan", msg: "this needs the pro plan"},
		{name: "gate passes", method: "POST", path: "/pro/t-1", p: &pro, ctype: "application/json", body: `{"count":1}`,
			status: 200, want: `{"id":"t-1","q":"","cursor":"","name":"","count":1,"account":"acct-2"}` + "\n"},
		{name: "body refused where none is taken", method: "POST", path: "/things/t-1/copy", p: &free, body: `{"name":"x"}`,
			status: 400, code: "invalid_request", msg: "this endpoint takes no body; send none"},
		{name: "an empty object is no body", method: "POST", path: "/things/t-1/copy", p: &free, body: `{}`,
			status: 200, want: `{"id":"t-1","q":"","cursor":"","name":"","count":0,"account":"acct-1"}` + "\n"},
		{name: "optional body left out", method: "POST", path: "/count", p: &free,
			status: 200, want: `{"count":0}` + "\n"},
		{name: "optional body sent", method: "POST", path: "/count", p: &free, ctype: "application/json", body: `{"count":5}`,
			status: 200, want: `{"count":5}` + "\n"},
		{name: "optional body sent badly", method: "POST", path: "/count", p: &free, ctype: "application/json", body: `{"count":"5"}`,
			status: 400, code: "invalid_request", msg: `field "count" must be an integer, not a string`},
		{name: "anyone needs no principal", method: "GET", path: "/open",
			status: 200, want: `{"count":7}` + "\n"},
		{name: "anyone takes no query", method: "GET", path: "/open?q=1",
			status: 400, code: "invalid_request", msg: `unknown query parameter "q"; this endpoint takes none`},
		{name: "handler error to the error writer", method: "GET", path: "/fail", p: &free,
			status: 404, code: "not_found", msg: "no such shelf"},
		{name: "stream writes its own answer", method: "GET", path: "/things/t-9/picture", p: &free,
			status: 200, want: `<svg id="t-9" account="acct-1"/>`, wantType: "image/svg+xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			var r *http.Request
			if body != nil {
				r = httptest.NewRequest(tt.method, tt.path, body)
			} else {
				r = httptest.NewRequest(tt.method, tt.path, nil)
			}
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			if tt.p != nil {
				r = r.WithContext(auth.WithPrincipal(r.Context(), *tt.p))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.code == "" {
				if w.Body.String() != tt.want {
					t.Fatalf("body %q\nwant %q", w.Body, tt.want)
				}
				want := tt.wantType
				if want == "" {
					want = "application/json"
				}
				if got := w.Header().Get("Content-Type"); got != want {
					t.Fatalf("Content-Type %q, want %q", got, want)
				}
				return
			}
			var e apierr.Body
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
				t.Fatalf("error body %q: %v", w.Body, err)
			}
			if string(e.Error.Code) != tt.code || e.Error.Message != tt.msg {
				t.Fatalf("error %s %q\nwant  %s %q", e.Error.Code, e.Error.Message, tt.code, tt.msg)
			}
		})
	}
}

// TestShapes: a typed endpoint's table entry carries its request and
// answer types and its status, and a hand-written one none.
func TestShapes(t *testing.T) {
	table := append(shelfTable(), Endpoint[shelf]{Route: Route{Op: "raw", Method: "GET", Path: "/raw"},
		Handle: func(shelf, http.ResponseWriter, *http.Request) error { return nil }})
	cs := Contracts(table)
	byOp := map[string]Contract{}
	for _, c := range cs {
		byOp[c.Op] = c
	}
	if c := byOp["put_thing"]; c.Req.Name() != "putRequest" || c.Resp.Name() != "putAnswer" || c.Status != http.StatusCreated {
		t.Errorf("put_thing shape %+v", c.Shape)
	}
	if c := byOp["picture"]; c.Req.Name() != "pictureRequest" || c.Resp != nil || c.Status != http.StatusOK {
		t.Errorf("picture shape %+v", c.Shape)
	}
	if c := byOp["raw"]; c.Req != nil || c.Resp != nil {
		t.Errorf("raw shape %+v", c.Shape)
	}
}

// TestBadRequestTypes: a request type the adapter cannot fill is refused
// when the table is built, not at the first request.
func TestBadRequestTypes(t *testing.T) {
	type bodyParam struct {
		ID string `path:"id"`
	}
	type intQuery struct {
		N int `query:"n" json:"-"`
	}
	for name, build := range map[string]func(){
		"parameter without json:\"-\"": func() {
			JSON(Spec{Route: Route{Op: "x"}}, func(shelf, context.Context, auth.Principal, bodyParam) (None, error) { return None{}, nil })
		},
		"integer query field": func() {
			JSON(Spec{Route: Route{Op: "x"}}, func(shelf, context.Context, auth.Principal, intQuery) (None, error) { return None{}, nil })
		},
		"request not a struct": func() {
			JSON(Spec{Route: Route{Op: "x"}}, func(shelf, context.Context, auth.Principal, string) (None, error) { return None{}, nil })
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: built without a panic", name)
				}
			}()
			build()
		}()
	}
}

// handPut is put_thing as handlers were written before the adapter: the
// preamble by hand, for the benchmark.
func handPut(s shelf, w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r, "q", "cursor"); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req putRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	req.ID = mux.Vars(r)["id"]
	if r.URL.Query().Has("q") {
		q := r.URL.Query().Get("q")
		req.Q = &q
	}
	req.Cur = r.URL.Query().Get("cursor")
	a, err := s.put(r.Context(), p, req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, a)
	return nil
}

// BenchmarkPut serves put_thing through the adapter and through the
// hand-written preamble it replaced, on the same router.
func BenchmarkPut(b *testing.B) {
	route := Route{Op: "put_thing", Method: http.MethodPut, Path: "/things/{id}"}
	for _, bc := range []struct {
		name string
		e    Endpoint[shelf]
	}{
		{"adapter", JSON(Spec{Route: route, Status: http.StatusCreated}, shelf.put)},
		{"hand", Endpoint[shelf]{Route: route, Handle: handPut}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := Mux("shelf", shelf{}, []Endpoint[shelf]{bc.e}, httpx.Errors{DocsURL: "http://x/docs"})
			ctx := auth.WithPrincipal(context.Background(), auth.Principal{AccountID: "acct-1", Plan: "free"})
			const body = `{"name":"Sales by country","count":3}`
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequestWithContext(ctx, http.MethodPut, "/things/t-1?q=x&cursor=c9", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusCreated {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
