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

// dataReads is a store whose EditChart counts the data reads of edits.
type dataReads struct {
	store.Store
	reads int
}

func (d *dataReads) EditChart(ctx context.Context, accountID, id string, edit store.ChartEdit) (store.Chart, error) {
	return d.Store.EditChart(ctx, accountID, id, func(cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
		return edit(cur, func() (*store.Dataset, error) {
			d.reads++
			return data()
		})
	})
}

func TestLoaderEdit(t *testing.T) {
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
	p := auth.Principal{AccountID: acct.ID, Plan: acct.Plan}
	c, err := st.CreateChart(ctx, store.Chart{AccountID: acct.ID, Name: "x", Type: "bar",
		Spec: []byte(`{"type":"bar","dataVersion":"v1"}`), Data: &store.Dataset{Format: "csv", Raw: []byte(`"k,v\na,1\nb,2\n"`)}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	charts := &dataReads{Store: st}
	l, err := NewLoader(Store{Charts: st}, CacheConfig{Charts: 4, MaxCells: 100})
	if err != nil {
		t.Fatal(err)
	}
	rename := func(name string) func(*Chart, *store.Chart) error {
		return func(_ *Chart, save *store.Chart) error {
			save.Name = name
			return nil
		}
	}
	tests := []struct {
		name      string
		id        string
		mode      Mode
		change    func(*Chart, *store.Chart) error
		wantCode  apierr.Code
		wantRows  int
		wantReads int // data reads of the store so far
	}{
		{name: "first edit reads and parses the data", id: c.ID, mode: WithTable, change: rename("a"), wantRows: 2, wantReads: 1},
		{name: "next edit takes the kept table", id: c.ID, mode: WithTable, change: rename("b"), wantRows: 2, wantReads: 1},
		{name: "a spec edit reads no data", id: c.ID, mode: SpecOnly, change: rename("c"), wantReads: 1},
		{name: "an API refusal comes back as it is", id: c.ID, mode: WithTable, wantReads: 1, wantCode: apierr.InvalidOps,
			change: func(*Chart, *store.Chart) error { return apierr.New(apierr.InvalidOps, "no") }},
		{name: "a missing chart is not found", id: "7d7f5f6e-1d2c-4d6a-9d57-0c6f2d0b8a11", mode: WithTable, change: rename("d"), wantReads: 1, wantCode: apierr.NotFound},
		{name: "a malformed id is not found", id: "x", mode: WithTable, change: rename("d"), wantReads: 1, wantCode: apierr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := -1
			saved, err := l.Edit(ctx, charts, p, tt.id, tt.mode, func(got *Chart, save *store.Chart) error {
				rows = got.Table.Rows
				return tt.change(got, save)
			})
			var ae *apierr.Error
			switch {
			case tt.wantCode != "":
				if !errors.As(err, &ae) || ae.Code != tt.wantCode {
					t.Fatalf("edit answered %v, want %s", err, tt.wantCode)
				}
			case err != nil:
				t.Fatal(err)
			case rows != tt.wantRows:
				t.Fatalf("change saw %d rows, want %d", rows, tt.wantRows)
			default:
				stored, err := st.GetChart(ctx, acct.ID, c.ID)
				if err != nil || stored.Name != saved.Name || stored.UpdatedAt != saved.UpdatedAt {
					t.Fatalf("stored %+v, edit answered %+v (%v)", stored, saved, err)
				}
			}
			if charts.reads != tt.wantReads {
				t.Fatalf("%d data reads, want %d", charts.reads, tt.wantReads)
			}
		})
	}
}
