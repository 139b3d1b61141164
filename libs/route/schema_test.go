package route

import (
	"reflect"
	"slices"
	"testing"
)

// shelfDoc documents PUT /api/v1/things/{id} (put_thing) as the Go types
// below have it.
const shelfDoc = `{
  "paths": {
    "/things/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
      "put": {
        "operationId": "put_thing",
        "parameters": [{"name": "view", "in": "query", "schema": {"type": "string", "enum": ["full", "short"]}}],
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Put"}}}},
        "responses": {"201": {"content": {"application/json": {"schema": {
          "type": "object", "required": ["thing", "tags"],
          "properties": {
            "thing": {"$ref": "#/components/schemas/Thing"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": ["string", "null"]}
          }}}}}}
      }
    }
  },
  "components": {"schemas": {
    "Put": {"type": "object", "required": ["name"], "properties": {
      "name": {"type": "string"},
      "kind": {"type": "string", "enum": ["bar", "pie"]},
      "size": {"type": "integer"}
    }},
    "Thing": {"type": "object", "required": ["id", "kind"], "properties": {
      "id": {"type": "string"},
      "kind": {"type": "string", "enum": ["bar", "pie"]}
    }}
  }}
}`

type docPut struct {
	ID   string  `path:"id" json:"-"`
	View *string `query:"view" json:"-" enum:"full,short"`
	Name *string `json:"name" api:"required"`
	Kind *string `json:"kind" enum:"$kind"`
	Size *int    `json:"size"`
}

type docThing struct {
	ID   string `json:"id"`
	Kind string `json:"kind" enum:"bar,pie"`
}

type docAnswer struct {
	Thing docThing `json:"thing"`
	Tags  []string `json:"tags"`
	Note  *string  `json:"note,omitempty"`
}

// Variants of the types above, each one step away from the document.
type (
	renamedMember struct {
		ID   string  `path:"id" json:"-"`
		View *string `query:"view" json:"-" enum:"full,short"`
		Name *string `json:"title" api:"required"`
		Kind *string `json:"kind" enum:"$kind"`
		Size *int    `json:"size"`
	}
	notRequired struct {
		ID   string  `path:"id" json:"-"`
		View *string `query:"view" json:"-" enum:"full,short"`
		Name *string `json:"name"`
		Kind *string `json:"kind" enum:"$kind"`
		Size *int    `json:"size"`
	}
	wrongType struct {
		ID   string  `path:"id" json:"-"`
		View *string `query:"view" json:"-" enum:"full,short"`
		Name *string `json:"name" api:"required"`
		Kind *string `json:"kind" enum:"$kind"`
		Size *string `json:"size"`
	}
	renamedQuery struct {
		ID   string  `path:"id" json:"-"`
		View *string `query:"mode" json:"-" enum:"full,short"`
		Name *string `json:"name" api:"required"`
		Kind *string `json:"kind" enum:"$kind"`
		Size *int    `json:"size"`
	}
	thinEnum struct {
		ID   string `json:"id"`
		Kind string `json:"kind" enum:"bar"`
	}
	thinAnswer struct {
		Thing thinEnum `json:"thing"`
		Tags  []string `json:"tags"`
		Note  *string  `json:"note,omitempty"`
	}
	alwaysNote struct {
		Thing docThing `json:"thing"`
		Tags  []string `json:"tags"`
		Note  *string  `json:"note"`
	}
)

// TestMismatches: types that say what the document says pass; a renamed
// member or parameter, a lost required, a changed type, a dropped enum
// value or an answer member that is always there but optional in the
// document each fail, naming the operation and the field.
func TestMismatches(t *testing.T) {
	contract := func(req, resp reflect.Type) []Contract {
		return []Contract{{
			Route: Route{Op: "put_thing", Method: "PUT", Path: APIBase + "/things/{id}"},
			Shape: Shape{Req: req, Resp: resp, Status: 201},
		}}
	}
	sets := map[string][]string{"kind": {"pie", "bar"}}
	for _, tt := range []struct {
		name      string
		req, resp reflect.Type
		want      []string
	}{
		{"as documented", reflect.TypeFor[docPut](), reflect.TypeFor[docAnswer](), nil},
		{"renamed body member", reflect.TypeFor[renamedMember](), reflect.TypeFor[docAnswer](), []string{
			"put_thing: body.name is in the document, not in route.renamedMember",
			"put_thing: body.title (route.renamedMember.Name) is not in the document",
		}},
		{"required dropped", reflect.TypeFor[notRequired](), reflect.TypeFor[docAnswer](), []string{
			"put_thing: body.name: required is true in the document, false in Go (route.notRequired.Name)",
		}},
		{"type changed", reflect.TypeFor[wrongType](), reflect.TypeFor[docAnswer](), []string{
			"put_thing: body.size is string in Go (string), integer in the document",
		}},
		{"query parameter renamed", reflect.TypeFor[renamedQuery](), reflect.TypeFor[docAnswer](), []string{
			`put_thing: query parameter "view" is in the document, not in route.renamedQuery`,
			`put_thing: query parameter "mode" of route.renamedQuery is not in the document`,
		}},
		{"enum value dropped", reflect.TypeFor[docPut](), reflect.TypeFor[thinAnswer](), []string{
			"put_thing: answer.thing.kind: enum [bar pie] in the document, [bar] in Go (Kind)",
		}},
		{"answer member always sent", reflect.TypeFor[docPut](), reflect.TypeFor[alwaysNote](), []string{
			"put_thing: answer.note: required is false in the document, true in Go (route.alwaysNote.Note)",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Mismatches([]byte(shelfDoc), contract(tt.req, tt.resp), sets)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("mismatches\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
