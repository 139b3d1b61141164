package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

// editWriters is how many concurrent EditChart calls race on one chart:
// the 50 writers of issue 12, of whom 5 to 9 lost with a compare-and-set.
const editWriters = 50

// testChartEdit covers EditChart one call at a time: what edit sees, what
// is saved, and what is refused.
func testChartEdit(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	other := newAccount(t, s, store.PlanFree)
	stored := &store.Dataset{Format: "csv", Raw: []byte("x,y\n1,2\n")}
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "v1", Type: "bar", Spec: []byte(`{"v":1}`), Data: stored}, 0)
	must(t, "create", err)
	bare := newChart(t, s, a.ID, "bare")
	errEdit := errors.New("the edit refuses")

	tests := []struct {
		name    string
		account string
		id      string
		// edit changes what it read; nil data in its answer keeps the data.
		edit     func(t *testing.T, cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error)
		wantErr  error
		wantSpec string
		wantData []byte
	}{
		{name: "sees the stored chart and its data", account: a.ID, id: c.ID,
			edit: func(t *testing.T, cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
				d, err := data()
				must(t, "data", err)
				if cur.Data != nil || cur.Name != "v1" || string(cur.Spec) != `{"v":1}` || cur.UpdatedAt != c.UpdatedAt {
					t.Errorf("edit saw %+v", cur)
				}
				if d == nil || d.Format != "csv" || !bytes.Equal(d.Raw, stored.Raw) {
					t.Errorf("edit read data %+v, want %q", d, stored.Raw)
				}
				cur.Name, cur.Spec = "v2", []byte(`{"v":2}`)
				return cur, nil
			},
			wantSpec: `{"v":2}`, wantData: stored.Raw},
		{name: "replaces the data", account: a.ID, id: c.ID,
			edit: func(_ *testing.T, cur store.Chart, _ func() (*store.Dataset, error)) (store.Chart, error) {
				cur.Spec, cur.Data = []byte(`{"v":3}`), &store.Dataset{Format: "tsv", Raw: []byte("a\tb\n")}
				return cur, nil
			},
			wantSpec: `{"v":3}`, wantData: []byte("a\tb\n")},
		{name: "keeps its id and account whatever edit answers", account: a.ID, id: c.ID,
			edit: func(_ *testing.T, cur store.Chart, _ func() (*store.Dataset, error)) (store.Chart, error) {
				cur.ID, cur.AccountID, cur.Spec = uuid.NewString(), other.ID, []byte(`{"v":4}`)
				return cur, nil
			},
			wantSpec: `{"v":4}`, wantData: []byte("a\tb\n")},
		{name: "an edit's error writes nothing", account: a.ID, id: c.ID,
			edit: func(_ *testing.T, cur store.Chart, _ func() (*store.Dataset, error)) (store.Chart, error) {
				return store.Chart{}, fmt.Errorf("wrapped: %w", errEdit)
			},
			wantErr: errEdit, wantSpec: `{"v":4}`, wantData: []byte("a\tb\n")},
		{name: "a chart without data reads nil", account: a.ID, id: bare.ID,
			edit: func(t *testing.T, cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
				d, err := data()
				must(t, "data", err)
				if d != nil {
					t.Errorf("a chart without data read %+v", d)
				}
				cur.Spec = []byte(`{"bare":2}`)
				return cur, nil
			},
			wantSpec: `{"bare":2}`},
		{name: "another account's chart is not found", account: other.ID, id: c.ID, wantErr: store.ErrNotFound},
		{name: "a missing chart is not found", account: a.ID, id: uuid.NewString(), wantErr: store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			before, _ := s.GetChart(ctx, a.ID, tt.id)
			out, err := s.EditChart(ctx, tt.account, tt.id, func(cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
				ran = true
				if tt.edit == nil {
					return cur, nil
				}
				return tt.edit(t, cur, data)
			})
			if tt.wantErr != nil {
				wantErr(t, "edit", err, tt.wantErr)
				if errors.Is(tt.wantErr, store.ErrNotFound) && ran {
					t.Fatal("edit ran on a chart the account does not hold")
				}
			} else {
				must(t, "edit", err)
				if out.ID != tt.id || out.AccountID != a.ID || string(out.Spec) != tt.wantSpec || !out.UpdatedAt.After(before.UpdatedAt) {
					t.Fatalf("EditChart answered %+v after %v", out, before.UpdatedAt)
				}
				normalised(t, "updated_at", out.UpdatedAt)
			}
			if errors.Is(tt.wantErr, store.ErrNotFound) {
				return
			}
			got, err := s.GetChartWithData(ctx, a.ID, tt.id)
			must(t, "read back", err)
			if string(got.Spec) != tt.wantSpec || (got.Data == nil) != (tt.wantData == nil) || (got.Data != nil && !bytes.Equal(got.Data.Raw, tt.wantData)) {
				t.Fatalf("stored spec %s, data %+v; want %s, %q", got.Spec, got.Data, tt.wantSpec, tt.wantData)
			}
			if tt.wantErr != nil && got.UpdatedAt != before.UpdatedAt {
				t.Fatalf("a refused edit moved updated_at from %v to %v", before.UpdatedAt, got.UpdatedAt)
			}
		})
	}
}

// testChartEditRace: editWriters concurrent read-modify-writes, each
// adding its number to a list in the spec, all succeed and none is lost;
// with a compare-and-set on the token read (UpdateChart) the same race
// loses writes.
func testChartEditRace(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "edits", Type: "bar", Spec: []byte(`{"writers":[]}`),
		Data: &store.Dataset{Format: "csv", Raw: []byte("kept")}}, 0)
	must(t, "create", err)
	results := make([]store.Chart, editWriters)
	errs := make([]error, editWriters)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range editWriters {
		wg.Go(func() {
			<-start
			results[w], errs[w] = s.EditChart(ctx, a.ID, c.ID, func(cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
				var spec struct {
					Writers []int `json:"writers"`
				}
				if err := json.Unmarshal(cur.Spec, &spec); err != nil {
					return store.Chart{}, fmt.Errorf("decode spec %s: %w", cur.Spec, err)
				}
				if w%2 == 0 { // half the writers read the data, as apply_ops does
					if d, err := data(); err != nil || d == nil || string(d.Raw) != "kept" {
						return store.Chart{}, fmt.Errorf("data %+v, %v; want %q", d, err, "kept")
					}
				}
				spec.Writers = append(spec.Writers, w)
				next, err := json.Marshal(spec)
				if err != nil {
					return store.Chart{}, err
				}
				cur.Spec = next
				return cur, nil
			})
		})
	}
	close(start)
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d of %d: %v", w, editWriters, err)
		}
	}
	got, err := s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "read back", err)
	var spec struct {
		Writers []int `json:"writers"`
	}
	must(t, "decode spec", json.Unmarshal(got.Spec, &spec))
	want := make([]int, editWriters)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(slices.Sorted(slices.Values(spec.Writers)), want) {
		t.Fatalf("the chart holds the edits of writers %v, want each of %d exactly once", spec.Writers, editWriters)
	}
	if got.Data == nil || string(got.Data.Raw) != "kept" {
		t.Fatalf("spec edits changed the data: %+v", got.Data)
	}
	// Each answer is the version its edit wrote: the list as long as its
	// place in the queue, the newest of them the stored one.
	newest := results[0]
	for w, r := range results {
		var mine struct {
			Writers []int `json:"writers"`
		}
		must(t, "decode answer", json.Unmarshal(r.Spec, &mine))
		if n := len(mine.Writers); n == 0 || mine.Writers[n-1] != w || !slices.Equal(mine.Writers, spec.Writers[:n]) {
			t.Fatalf("writer %d answered %s, not a step of %v", w, r.Spec, spec.Writers)
		}
		if r.UpdatedAt.After(newest.UpdatedAt) {
			newest = r
		}
	}
	if newest.UpdatedAt != got.UpdatedAt || !bytes.Equal(newest.Spec, got.Spec) {
		t.Fatalf("the newest answer %s at %v is not the stored %s at %v", newest.Spec, newest.UpdatedAt, got.Spec, got.UpdatedAt)
	}
}

// testChartEditRaceData runs the data races with EditChart writers: every
// read agrees, every write succeeds on its first call, the newest wins.
func testChartEditRaceData(t *testing.T, s store.Store) {
	raceRounds(t, s, raceWriters, raceRoundCount, func(r *race, round, w int) (store.Chart, writeMark, error) {
		r.read.Done()
		r.read.Wait()
		var mark writeMark
		out, err := s.EditChart(context.Background(), r.c.AccountID, r.c.ID, func(cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
			d, err := data()
			if err != nil {
				return store.Chart{}, err
			}
			cur.Data = d
			if err := agree(cur); err != nil {
				return store.Chart{}, fmt.Errorf("edit read: %w", err)
			}
			write := dataWrite(round, w)
			if w%2 == 0 {
				write = specWrite(round, w)
			}
			next, m := write(cur)
			mark = m
			return next, nil
		})
		return out, mark, err
	})
}
