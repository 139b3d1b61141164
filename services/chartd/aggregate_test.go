package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// writerData is set_data writer w's CSV in a round: a label and w+1
// number columns, all named after the round and the writer. Automatic
// roles map every number column to `values`, so a spec rebound to one
// writer's data and stored beside another's shows as a values mapping
// whose size or names do not match the data.
func writerData(round, w int) string {
	var b strings.Builder
	b.WriteString("label")
	for k := range w + 1 {
		fmt.Fprintf(&b, ",v_%d_%d_%d", round, w, k)
	}
	for _, l := range []string{"a", "b"} {
		b.WriteString("\n" + l)
		for k := range w + 1 {
			fmt.Fprintf(&b, ",%d", k+1)
		}
	}
	return b.String() + "\n"
}

// writeResult is one concurrent call's answer.
type writeResult struct {
	status  int
	updated time.Time
	setData bool
}

// aggregateRounds runs rounds of 6 concurrent writers on one chart; opsWriters
// of them send apply_ops, the rest set_data with different columns. After
// each round the chart's spec and data must come from the same call, and
// its updated_at must be the newest successful answer's.
func aggregateRounds(t *testing.T, in instance, opsWriters int) {
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": writerData(99, 0)})
	const writers, rounds = 6, 20
	conflicts := 0
	for round := range rounds {
		results := make([]writeResult, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				<-start
				var a answer
				setData := w >= opsWriters
				if setData {
					a = c.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": writerData(round, w)})
				} else {
					a = c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
						map[string]any{"op": "setTitle", "title": map[string]any{"text": fmt.Sprintf("title %d/%d", round, w)}}}})
				}
				results[w] = writeResult{status: a.status, setData: setData}
				if a.status == 200 {
					var out struct {
						Chart chartRec `json:"chart"`
					}
					if err := json.Unmarshal(a.body, &out); err == nil {
						results[w].updated, _ = time.Parse(time.RFC3339Nano, out.Chart.Updated)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		newest, newestData := -1, -1
		for w, r := range results {
			switch r.status {
			case 200:
			case 409:
				conflicts++
				continue
			default:
				t.Fatalf("round %d writer %d: status %d", round, w, r.status)
			}
			if newest < 0 || r.updated.After(results[newest].updated) {
				newest = w
			}
			if r.setData && (newestData < 0 || r.updated.After(results[newestData].updated)) {
				newestData = w
			}
		}
		if newest < 0 {
			t.Fatalf("round %d: no call succeeded", round)
		}
		a := c.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil)
		var got struct {
			Chart chartRec `json:"chart"`
			State struct {
				Mapping map[string]json.RawMessage `json:"mapping"`
				Columns []column                   `json:"columns"`
			} `json:"state"`
			Spec struct {
				Style struct {
					Title struct{ Text string } `json:"title"`
				} `json:"style"`
			} `json:"spec"`
		}
		a.json(t, &got)
		if upd := parseTime(t, got.Chart.Updated); !upd.Equal(results[newest].updated) {
			t.Fatalf("round %d: the chart's updated_at %v is not the newest successful answer's %v", round, upd, results[newest].updated)
		}
		var values []string
		if err := json.Unmarshal(got.State.Mapping["values"], &values); err != nil {
			t.Fatalf("round %d: mapping %s", round, got.State.Mapping["values"])
		}
		names := map[string]string{}
		var numbers []string
		for _, col := range got.State.Columns {
			names[col.ID] = col.Name
			if col.Kind == "number" {
				numbers = append(numbers, col.Name)
			}
		}
		if len(values) != len(numbers) {
			t.Fatalf("round %d: mixed state: the spec maps %d value columns %v, the data has %d %v", round, len(values), values, len(numbers), numbers)
		}
		for _, id := range values {
			if !strings.HasPrefix(names[id], "v_") {
				t.Fatalf("round %d: mixed state: values column %s is %q in the data", round, id, names[id])
			}
		}
		if newestData >= 0 {
			want := fmt.Sprintf("v_%d_%d_0", round, newestData)
			if names["c2"] != want {
				t.Fatalf("round %d: data from column %q, but the newest set_data was writer %d (%s)", round, names["c2"], newestData, want)
			}
		}
		if !results[newest].setData {
			if want := fmt.Sprintf("title %d/%d", round, newest); got.Spec.Style.Title.Text != want {
				t.Fatalf("round %d: title %q, the newest edit set %q", round, got.Spec.Style.Title.Text, want)
			}
		}
	}
	t.Logf("%d rounds × %d writers: %d answered conflict", rounds, writers, conflicts)
}

func TestConcurrentSetDataEmbedded(t *testing.T) {
	aggregateRounds(t, startAll(t), 0)
}

func TestConcurrentSetDataPostgres(t *testing.T) {
	aggregateRounds(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()), 0)
}

func TestConcurrentSetDataAndOpsEmbedded(t *testing.T) {
	aggregateRounds(t, startAll(t), 3)
}

func TestConcurrentSetDataAndOpsPostgres(t *testing.T) {
	aggregateRounds(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()), 3)
}
