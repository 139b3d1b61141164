package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/dataset"
	"chartd.dev/libs/testserver"
)

// wideCSV is data cols columns wide and rows rows long: a text label,
// then numbers. Automatic roles map every number column to values.
func wideCSV(rows, cols int) string {
	var b strings.Builder
	b.WriteString("label")
	for j := 2; j <= cols; j++ {
		fmt.Fprintf(&b, ",s%d", j)
	}
	for i := range rows {
		fmt.Fprintf(&b, "\nrow %d", i)
		for j := 2; j <= cols; j++ {
			fmt.Fprintf(&b, ",%d", (i*7+j*13)%97)
		}
	}
	return b.String() + "\n"
}

// wideJSON is rows objects with cols keys each.
func wideJSON(rows, cols int) string {
	out := make([]map[string]int, rows)
	for i := range out {
		out[i] = make(map[string]int, cols)
		for j := range cols {
			out[i][fmt.Sprintf("k%d", j)] = j
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// send sends a request without the OpenAPI check of client.do, whose
// validation of a many-megabyte answer would be timed with it; it answers
// the status, the body and how long the server took to answer it all.
// It never fails the test, so goroutines may call it.
func send(c *client, method, path string, body any) (int, []byte, time.Duration, error) {
	var rb io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, 0, err
		}
		rb = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rb)
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, time.Since(start), fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, time.Since(start), fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return resp.StatusCode, out, time.Since(start), nil
}

// timed is send failing the test on an error.
func timed(t *testing.T, c *client, method, path string, body any) (int, []byte, time.Duration) {
	t.Helper()
	status, out, took, err := send(c, method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, out, took
}

// wideBudget is the longest any accepted input may take on an idle
// machine (issue 12), stretched by the machine's pace (issue 31 item 16:
// get_chart include=spec took 4.0 s at load 20–40 on two cores). It
// guards against the pathological: the slowest answer takes a tenth of
// it on an idle machine.
const wideBudget = 2 * time.Second

// TestWideDataEmbedded: data wider than dataset.MaxColumns is refused
// with too_large, quickly, on every endpoint that takes data; data at the
// cap is answered within wideBudget, at the machine's pace, by every
// chart endpoint.
func TestWideDataEmbedded(t *testing.T) {
	pace := testserver.MeasurePace()
	t.Log(pace)
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	small, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})

	t.Run("over the cap is too_large", func(t *testing.T) {
		over := wideCSV(1, dataset.MaxColumns+1)
		tests := []struct {
			name, method, path string
			body               any
		}{
			{"create_chart", "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": over}},
			{"create_chart, JSON rows", "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": json.RawMessage(wideJSON(2, dataset.MaxColumns+1)), "format": "json"}},
			{"create_chart, 100,000 columns", "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": wideCSV(1, 100_000)}},
			{"create_chart, a header of 400,000 columns", "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": strings.Repeat("a,", 400_000) + "a"}},
			{"set_data", "PUT", "/api/v1/charts/" + small.ID + "/data", map[string]any{"data": over}},
			{"render_image", "POST", "/api/v1/render", map[string]any{"type": "bar", "data": over}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, body, took := timed(t, c, tt.method, tt.path, tt.body)
				if status != http.StatusRequestEntityTooLarge {
					t.Fatalf("answer %d after %v, want 413: %.300s", status, took, body)
				}
				code, msg := errorOf(t, body)
				if code != "too_large" || !strings.Contains(msg, fmt.Sprintf("the limit is %d columns", dataset.MaxColumns)) {
					t.Fatalf("refusal %s: %s", code, msg)
				}
				if pace.Over(took, wideBudget) {
					t.Fatalf("the refusal took %v, want at most %v at %v", took, wideBudget, pace)
				}
			})
		}
	})

	for _, rows := range []int{1, dataset.MaxCells / dataset.MaxColumns} {
		t.Run(fmt.Sprintf("%d columns × %d rows", dataset.MaxColumns, rows), func(t *testing.T) {
			data := wideCSV(rows, dataset.MaxColumns)
			status, body, took := timed(t, c, "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": data})
			if status != http.StatusCreated {
				t.Fatalf("create: %d %.300s", status, body)
			}
			t.Logf("create: %v", took)
			if pace.Over(took, wideBudget) {
				t.Errorf("create took %v, want at most %v at %v", took, wideBudget, pace)
			}
			var created struct {
				Chart chartRec `json:"chart"`
			}
			if err := json.Unmarshal(body, &created); err != nil {
				t.Fatal(err)
			}
			id := created.Chart.ID
			tests := []struct {
				name, method, path string
				body               any
				want               int
			}{
				{"get_chart", "GET", "/api/v1/charts/" + id, nil, 200},
				{"get_chart include=spec", "GET", "/api/v1/charts/" + id + "?include=spec", nil, 200},
				{"lint_chart", "GET", "/api/v1/charts/" + id + "/lint", nil, 200},
				{"apply_ops", "POST", "/api/v1/charts/" + id + "/ops", map[string]any{"ops": []any{
					map[string]any{"op": "setTitle", "title": map[string]any{"text": "Wide"}},
					map[string]any{"op": "setSeriesColor", "series": "c2", "color": "#123456"}}}, 200},
				{"query_data", "POST", "/api/v1/charts/" + id + "/data/query", map[string]any{"limit": 10}, 200},
				{"set_data", "PUT", "/api/v1/charts/" + id + "/data", map[string]any{"data": data}, 200},
			}
			if rows == 1 {
				// Drawing is timed on the wide row alone: libs/draw cuts rows
				// to its pixels but draws every series, so a long table at
				// the cap costs it series × pixel columns, not width alone.
				tests = append(tests, struct {
					name, method, path string
					body               any
					want               int
				}{"render.svg", "GET", "/api/v1/charts/" + id + "/render.svg", nil, 200})
			}
			for _, tt := range tests {
				status, body, took := timed(t, c, tt.method, tt.path, tt.body)
				t.Logf("%s: %v (%d bytes)", tt.name, took, len(body))
				if status != tt.want {
					t.Errorf("%s: %d %.300s", tt.name, status, body)
				}
				if pace.Over(took, wideBudget) {
					t.Errorf("%s took %v, want at most %v at %v", tt.name, took, wideBudget, pace)
				}
			}
		})
	}
}

// errorOf answers the code and message of an error body.
func errorOf(t *testing.T, body []byte) (code, message string) {
	t.Helper()
	var b struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Error.Code == "" {
		t.Fatalf("not an error body (%v): %.300s", err, body)
	}
	return b.Error.Code, b.Error.Message
}

// p50 is the median of ds.
func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestWideDataLeavesOthersAlone is issue 12's load: eight clients read
// small charts in a loop while four wide requests run; the p50 of the
// reads taken meanwhile must stay within 2× of what it is without them.
// Before, four creates of 100,000 columns took it from 6 ms to 67 ms (and
// each ran for 43 s); now they are refused at once, and four creates of
// the widest data accepted keep it within 2× too.
func TestWideDataLeavesOthersAlone(t *testing.T) {
	in := startAll(t)
	wide := newClient(t, in.url, in.newAccount(t, "pro"))
	const readers = 8
	clients := make([]*client, readers)
	ids := make([]string, readers)
	for i := range clients {
		clients[i] = newClient(t, in.url, in.newAccount(t, "pro"))
		ch, _ := createChart(t, clients[i], map[string]any{"type": "bar", "data": salesCSV})
		ids[i] = ch.ID
	}
	// reads runs the readers until done closes (at least 25 reads each)
	// and answers the p50 of their reads.
	reads := func(done <-chan struct{}) time.Duration {
		var (
			mu  sync.Mutex
			all []time.Duration
			wg  sync.WaitGroup
		)
		for i, c := range clients {
			wg.Go(func() {
				for n := 0; ; n++ {
					if n >= 25 {
						select {
						case <-done:
							return
						default:
						}
					}
					status, body, took, err := send(c, "GET", "/api/v1/charts/"+ids[i], nil)
					if err != nil || status != 200 {
						t.Errorf("get: %d %.200s %v", status, body, err)
						return
					}
					mu.Lock()
					all = append(all, took)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return p50(all)
	}
	closed := make(chan struct{})
	close(closed)
	reads(closed) // warm up
	tests := []struct {
		name string
		data string
		want int
	}{
		{"100,000 columns × 1 row", wideCSV(1, 100_000), http.StatusRequestEntityTooLarge},
		{fmt.Sprintf("%d columns × 1 row", dataset.MaxColumns), wideCSV(1, dataset.MaxColumns), http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The machine is shared, so a sub-millisecond median is noisy:
			// the best of three tries must hold. Before, every try would
			// have run beside four requests of 43 s each.
			var tries []string
			for range 3 {
				alone := reads(closed)
				done := make(chan struct{})
				var wg sync.WaitGroup
				took := make([]time.Duration, 4)
				for w := range took {
					wg.Go(func() {
						status, body, d, err := send(wide, "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": tt.data})
						took[w] = d
						if err != nil || status != tt.want {
							t.Errorf("wide create: %d, want %d: %.200s %v", status, tt.want, body, err)
						}
					})
				}
				go func() {
					wg.Wait()
					close(done)
				}()
				busy := reads(done)
				tries = append(tries, fmt.Sprintf("%v alone, %v beside 4 wide creates taking %v", alone, busy, took))
				if busy <= 2*alone {
					t.Logf("p50 of small reads: %s", strings.Join(tries, "; "))
					return
				}
			}
			t.Fatalf("p50 of small reads went over 2× beside wide requests in every try: %s", strings.Join(tries, "; "))
		})
	}
}

// applyOpsWithoutToken is issue 12 item 10: 50 concurrent apply_ops
// without expected_updated_at on one chart all succeed (5 to 9 used to
// answer conflict), and every one of them is in the chart: each adds a
// step of its own.
func applyOpsWithoutToken(t *testing.T, in instance) {
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	const writers = 50
	status := make([]int, writers)
	bodies := make([][]byte, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			var err error
			status[w], bodies[w], _, err = send(c, "POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
				map[string]any{"op": "addTransform", "transform": map[string]any{"type": "limit", "n": 1000 + w}}}})
			if err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	refused := 0
	for w, s := range status {
		if s != 200 {
			refused++
			t.Errorf("writer %d: %d %.200s", w, s, bodies[w])
		}
	}
	if refused > 0 {
		t.Fatalf("%d of %d apply_ops without a token were refused", refused, writers)
	}
	var got struct {
		Spec struct {
			Steps []struct {
				N int `json:"n"`
			} `json:"steps"`
		} `json:"spec"`
	}
	c.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil).json(t, &got)
	var ns []int
	for _, s := range got.Spec.Steps {
		ns = append(ns, s.N-1000)
	}
	slices.Sort(ns)
	want := make([]int, writers)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(ns, want) {
		t.Fatalf("the chart holds the steps of writers %v, want each of the %d once", ns, writers)
	}
}

func TestApplyOpsWithoutTokenEmbedded(t *testing.T) {
	applyOpsWithoutToken(t, startAll(t))
}

func TestApplyOpsWithoutTokenPostgres(t *testing.T) {
	applyOpsWithoutToken(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()))
}
