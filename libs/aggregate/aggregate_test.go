package aggregate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
)

// counting is the store Source, counting the reads that carry data.
type counting struct {
	Store
	withData int
}

func (c *counting) LoadChart(ctx context.Context, p auth.Principal, id, have string) (store.Chart, *chartspec.Spec, error) {
	ch, spec, err := c.Store.LoadChart(ctx, p, id, have)
	if ch.Data != nil {
		c.withData++
	}
	return ch, spec, err
}

func TestLoaderCachesByDataVersion(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "chartd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acct, err := st.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{AccountID: acct.ID, Plan: acct.Plan}
	raw := []byte(`"k,v\na,1\nb,2\n"`)
	c, err := st.CreateChart(ctx, store.Chart{AccountID: acct.ID, Name: "x", Type: "bar",
		Spec: []byte(`{"type":"bar","dataVersion":"v1"}`), Data: &store.Dataset{Format: "csv", Raw: raw}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	src := &counting{Store: Store{Charts: st}}
	l, err := NewLoader(src, CacheConfig{Charts: 4, MaxCells: 100})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Load(ctx, p, c.ID, WithTable)
	if err != nil || got.Table.Rows != 2 || got.Format != "csv" || src.withData != 1 {
		t.Fatalf("first load: %+v, %v, %d data reads", got, err, src.withData)
	}
	if got, err = l.Load(ctx, p, c.ID, WithTable); err != nil || got.Table.Rows != 2 || src.withData != 1 {
		t.Fatalf("second load read the data again (%d reads): %v", src.withData, err)
	}
	if got, err = l.Load(ctx, p, c.ID, SpecOnly); err != nil || got.Table.Rows != 0 || src.withData != 1 {
		t.Fatalf("spec-only load: %d rows, %d data reads, %v", got.Table.Rows, src.withData, err)
	}
	// New data under a new version is read and parsed again.
	c.Spec, c.Data = []byte(`{"type":"bar","dataVersion":"v2"}`), &store.Dataset{Format: "csv", Raw: []byte(`"k,v\na,1\n"`)}
	if _, err := st.UpdateChart(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if got, err = l.Load(ctx, p, c.ID, WithTable); err != nil || got.Table.Rows != 1 || src.withData != 2 {
		t.Fatalf("after new data: %d rows, %d data reads, %v", got.Table.Rows, src.withData, err)
	}
	// Another account never gets the chart, cached or not.
	_, err = l.Load(ctx, auth.Principal{AccountID: other.ID, Plan: other.Plan}, c.ID, WithTable)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.NotFound {
		t.Fatalf("another account: %v", err)
	}
	if _, err := l.Load(ctx, p, "not-a-uuid", WithTable); !errors.As(err, &ae) || ae.Code != apierr.NotFound {
		t.Fatalf("bad id: %v", err)
	}
}
