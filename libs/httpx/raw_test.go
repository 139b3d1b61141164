package httpx

import (
	"encoding/json"
	"strings"
	"testing"
)

// Raw JSON fields (ops, data) are still held to the strict rules inside.
func TestUnmarshalRawFieldsStayStrict(t *testing.T) {
	var b struct {
		Ops []json.RawMessage `json:"ops"`
	}
	if err := Unmarshal([]byte(`{"ops":[{"op":"a"}]}`), &b); err != nil || len(b.Ops) != 1 || string(b.Ops[0]) != `{"op":"a"}` {
		t.Fatalf("%v %s", err, b.Ops)
	}
	err := Unmarshal([]byte(`{"ops":[{"op":"a","op":"b"}]}`), &b)
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate key inside a raw field: %v", err)
	}
}
