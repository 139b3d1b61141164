package route

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"github.com/gorilla/mux"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/httpx"
)

// Need says what an endpoint needs of its caller beyond its route's Access.
type Need uint8

const (
	// Account endpoints act for the caller's account (auth.Require). It is
	// the zero value, so an endpoint is closed unless it says otherwise.
	Account Need = iota
	// Anyone endpoints answer without an account (catalogs, probes).
	Anyone
)

// BodyRule says how an endpoint reads its request body.
type BodyRule uint8

const (
	// BodyJSON decodes the body strictly into Req when Req has JSON
	// members, and leaves it unread when it has none.
	BodyJSON BodyRule = iota
	// BodyOptional decodes the body only when one is sent (a
	// Content-Length or a Content-Type), so a bare POST is an empty Req.
	BodyOptional
	// BodyNone refuses any body but an empty one or {}.
	BodyNone
)

// Spec is what a typed endpoint declares beside its handler: its route,
// who may call it and how its request is read and answered. The adapter
// built from it is the one place those rules are applied.
type Spec struct {
	Route
	Need Need
	// Gate, when set, may refuse the principal before the body is read,
	// so a caller whose plan lacks the feature hears that first.
	Gate func(auth.Principal) error
	Body BodyRule
	// Status is the success status of a JSON answer; 0 means 200.
	Status int
	// Answers is the JSON answer type of a Stream endpoint that may answer
	// JSON (for the schema check); nil when it answers none.
	Answers reflect.Type
}

// Shape is a typed endpoint's contract as Go types: the request (body
// members, `query` and `path` fields) and the JSON answer with its status.
// Zero for an endpoint written by hand.
type Shape struct {
	Req    reflect.Type
	Resp   reflect.Type
	Status int
}

// Contract is a route with its shape, for checks that walk every route.
type Contract struct {
	Route
	Shape
}

// Contracts answers the routes of a table with their shapes.
func Contracts[S any](table []Endpoint[S]) []Contract {
	out := make([]Contract, len(table))
	for i, e := range table {
		out[i] = Contract{Route: e.Route, Shape: e.Shape}
	}
	return out
}

// JSONHandler is a typed endpoint's own work: the request read and
// checked, the caller's principal (zero for Anyone), the answer to write.
type JSONHandler[S, Req, Resp any] func(S, context.Context, auth.Principal, Req) (Resp, error)

// StreamHandler is the own work of an endpoint that writes its answer
// itself (images, streams), after the same preamble as a JSONHandler.
type StreamHandler[S, Req any] func(S, http.ResponseWriter, *http.Request, auth.Principal, Req) error

// JSON builds the endpoint of a typed handler. Its adapter checks the
// query against Req's `query` fields, authenticates, decodes the body
// strictly into Req, fills the `query` and `path` fields, calls h and
// answers its result as JSON with sp.Status; a returned error goes to the
// service's one error writer.
func JSON[S, Req, Resp any](sp Spec, h JSONHandler[S, Req, Resp]) Endpoint[S] {
	status := sp.Status
	if status == 0 {
		status = http.StatusOK
	}
	e := Stream(sp, func(s S, w http.ResponseWriter, r *http.Request, p auth.Principal, req Req) error {
		resp, err := h(s, r.Context(), p, req)
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, status, resp)
		return nil
	})
	e.Shape = Shape{Req: reflect.TypeFor[Req](), Resp: reflect.TypeFor[Resp](), Status: status}
	return e
}

// Stream builds the endpoint of a handler that writes its own answer,
// after the preamble JSON's adapter runs.
func Stream[S, Req any](sp Spec, h StreamHandler[S, Req]) Endpoint[S] {
	rd := newReader[Req](sp)
	return Endpoint[S]{
		Route: sp.Route,
		Handle: func(s S, w http.ResponseWriter, r *http.Request) error {
			var req Req
			p, err := rd.read(r, &req)
			if err != nil {
				return err
			}
			return h(s, w, r, p, req)
		},
		Shape: Shape{Req: reflect.TypeFor[Req](), Resp: sp.Answers, Status: http.StatusOK},
	}
}

// reader is the preamble of one typed endpoint, worked out once from its
// Spec and request type.
type reader struct {
	need    Need
	gate    func(auth.Principal) error
	body    BodyRule
	allowed []string
	query   []param
	path    []param
}

// param is a request field filled from the query or the path.
type param struct {
	name  string
	index int
	// ptr fields (*string) tell an absent parameter (nil) from an empty one.
	ptr bool
}

// newReader works out Req's parameters. A request type the adapter cannot
// fill is a programming error found when the table is built.
func newReader[Req any](sp Spec) reader {
	rd := reader{need: sp.Need, gate: sp.Gate, body: sp.Body}
	t := reflect.TypeFor[Req]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("route %s: the request type %v is not a struct", sp.Op, t))
	}
	hasBody := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		q, isQuery := f.Tag.Lookup("query")
		pn, isPath := f.Tag.Lookup("path")
		switch {
		case isQuery || isPath:
			if f.Tag.Get("json") != "-" {
				panic(fmt.Sprintf("route %s: %s.%s is a parameter; tag it json:\"-\" so a body cannot set it", sp.Op, t, f.Name))
			}
			ptr := f.Type == reflect.TypeFor[*string]()
			if !ptr && f.Type.Kind() != reflect.String || isPath && ptr {
				panic(fmt.Sprintf("route %s: %s.%s must be a string (or *string for a query parameter)", sp.Op, t, f.Name))
			}
			if isQuery {
				rd.query = append(rd.query, param{name: q, index: i, ptr: ptr})
				rd.allowed = append(rd.allowed, q)
			} else {
				rd.path = append(rd.path, param{name: pn, index: i})
			}
		case f.IsExported() && f.Tag.Get("json") != "-":
			hasBody = true
		}
	}
	if !hasBody && rd.body != BodyNone {
		rd.body = bodyUnread
	}
	return rd
}

// bodyUnread is the rule of a request type without body members: the body
// is not read at all, as before the adapter.
const bodyUnread BodyRule = 255

// read runs the preamble into req: the query check, the body rule,
// authentication, the gate, strict decoding and the parameters.
func (rd reader) read(r *http.Request, req any) (auth.Principal, error) {
	if err := httpx.CheckQuery(r, rd.allowed...); err != nil {
		return auth.Principal{}, err
	}
	if rd.body == BodyNone {
		if err := httpx.RefuseBody(r); err != nil {
			return auth.Principal{}, err
		}
	}
	var p auth.Principal
	if rd.need == Account {
		var err error
		if p, err = auth.Require(r.Context()); err != nil {
			return auth.Principal{}, err
		}
		if rd.gate != nil {
			if err := rd.gate(p); err != nil {
				return auth.Principal{}, err
			}
		}
	}
	switch rd.body {
	case BodyJSON:
		if err := httpx.DecodeJSON(r, req); err != nil {
			return auth.Principal{}, err
		}
	case BodyOptional:
		if r.ContentLength != 0 || r.Header.Get("Content-Type") != "" {
			if err := httpx.DecodeJSON(r, req); err != nil {
				return auth.Principal{}, err
			}
		}
	}
	if len(rd.query) == 0 && len(rd.path) == 0 {
		return p, nil
	}
	v := reflect.ValueOf(req).Elem()
	if len(rd.query) > 0 {
		q := r.URL.Query()
		for _, f := range rd.query {
			vals, ok := q[f.name]
			if !ok {
				continue
			}
			if f.ptr {
				s := vals[0]
				v.Field(f.index).Set(reflect.ValueOf(&s))
			} else {
				v.Field(f.index).SetString(vals[0])
			}
		}
	}
	if len(rd.path) > 0 {
		vars := mux.Vars(r)
		for _, f := range rd.path {
			v.Field(f.index).SetString(vars[f.name])
		}
	}
	return p, nil
}

// None is the request of an endpoint that reads nothing but its route.
type None struct{}
