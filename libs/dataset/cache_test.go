package dataset

import (
	"encoding/json"
	"testing"
)

func TestCache(t *testing.T) {
	c, err := NewCache(2, 10)
	if err != nil {
		t.Fatal(err)
	}
	v1 := "v1"
	small := &Table{Rows: 2, Columns: []*Column{{ID: "c1"}}}
	c.Add("a", "acct1", v1, small)
	if got, ok := c.Get("a", "acct1", v1); !ok || got != small {
		t.Fatal("miss on a fresh entry")
	}
	if _, ok := c.Get("a", "acct2", v1); ok {
		t.Fatal("another owner read the entry")
	}
	if _, ok := c.Get("a", "acct1", "v2"); ok {
		t.Fatal("a newer version read the old entry")
	}
	c.Add("big", "acct1", v1, &Table{Rows: 11, Columns: []*Column{{ID: "c1"}}})
	if _, ok := c.Get("big", "acct1", v1); ok {
		t.Fatal("a table over the bound was cached")
	}
	c.Add("b", "acct1", v1, small)
	c.Add("c", "acct1", v1, small)
	if _, ok := c.Get("a", "acct1", v1); ok {
		t.Fatal("the oldest entry was not evicted")
	}
}

func TestTryRaw(t *testing.T) {
	tb, _, err := Parse("k,v\na,3\nb,1\nc,2\n", "")
	if err != nil {
		t.Fatal(err)
	}
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"sort","column":"c2","direction":"desc"}`),
		json.RawMessage(`{"type":"sort","column":"c9"}`),
		json.RawMessage(`{"type":"nope"}`),
		json.RawMessage(`{"type":"limit","n":2}`),
	}
	out, errs := TryRaw(tb, raws, Defaults{})
	if out.Rows != 2 || out.Columns[0].Text[0] != "a" {
		t.Fatalf("table: %d rows, first %q", out.Rows, out.Columns[0].Text[0])
	}
	if len(errs) != 2 || errs[0].Index != 1 || errs[1].Index != 2 {
		t.Fatalf("errors: %+v", errs)
	}
}
