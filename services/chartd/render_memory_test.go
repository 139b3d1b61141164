package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDenseRenderNotices draws more rows than the canvas has pixels: the
// picture stays small and says what it aggregated, in the notices header
// and in its description; a small chart carries no notice.
func TestDenseRenderNotices(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	for _, tc := range []struct {
		name, typ string
		rows      int
		notice    bool
	}{
		{"bar of 50,000 rows", "bar", 50_000, true},
		{"line of 50,000 rows", "line", 50_000, true},
		{"pie of 50,000 slices", "pie", 50_000, true},
		{"bar of 20 rows", "bar", 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.do("POST", "/api/v1/render", map[string]any{"type": tc.typ, "format": "svg", "data": denseCSV(tc.rows, tc.typ == "line")})
			if a.status != 200 {
				t.Fatalf("render_image: %d %.300s", a.status, a.body)
			}
			if len(a.body) > 300_000 {
				t.Errorf("%d rows drew a %d-byte SVG", tc.rows, len(a.body))
			}
			h := a.header.Get("X-Chartd-Notices")
			if !tc.notice {
				if h != "" {
					t.Errorf("notices on a small chart: %s", h)
				}
				return
			}
			var notices []struct{ Code, Message string }
			if err := json.Unmarshal([]byte(h), &notices); err != nil || len(notices) == 0 {
				t.Fatalf("X-Chartd-Notices %q: %v", h, err)
			}
			// Other notices (a chart too small to name every bar) may follow.
			if n := notices[0]; n.Code != "points_aggregated" || !strings.Contains(n.Message, "50,000") ||
				!strings.Contains(string(a.body), strings.ReplaceAll(n.Message, "'", "&#39;")) {
				t.Errorf("notice %+v is not in the picture's description or lacks the row count", n)
			}
		})
	}
}

// denseCSV is rows of a short text key (or the row number, for a line's
// x) and a positive number: 1M cells in under 5 MB of JSON at 500,000 rows,
// the gateway's body limit.
func denseCSV(rows int, numericKey bool) string {
	var b strings.Builder
	b.Grow(rows * 10)
	b.WriteString("key,value\n")
	for i := range rows {
		if numericKey {
			b.WriteString(strconv.Itoa(i))
		} else {
			b.WriteString("k")
			b.WriteString(strconv.FormatInt(int64(i), 36))
		}
		b.WriteByte(',')
		b.WriteByte(byte('1' + (i*7919)%9))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestRenderMemoryBounded runs the chartd binary, saves 1M-cell charts of
// four types and renders them as SVG eight at a time: every render answers
// the picture, and the process's peak resident memory over the renders
// stays under 512 MB (it was 1,306 MB for eight).
func TestRenderMemoryBounded(t *testing.T) {
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	cmd := startProcess(t, bin, addr, "-target=all", "-data-dir", dir, "-public-url", in.url, "-log-level", "warn", "-render.browsers=1")
	waitURL(t, in.url+"/readyz", nil, nil)
	c := newClient(t, in.url, key)
	var ids []string
	for _, typ := range []string{"bar", "pie", "radar", "line"} {
		a := c.do("POST", "/api/v1/charts", map[string]any{"type": typ, "data": denseCSV(500_000, typ == "line")})
		if a.status != 201 {
			t.Fatalf("create %s chart: %d %.300s", typ, a.status, a.body)
		}
		var created struct {
			Chart struct{ ID string } `json:"chart"`
		}
		a.json(t, &created)
		ids = append(ids, created.Chart.ID)
	}
	pid := cmd.Process.Pid
	// Start the peak over: what saving the charts took is not the renders'.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak resident size: %v", err)
	}
	before := procStatusKB(t, pid, "VmHWM")
	start := time.Now()
	var wg sync.WaitGroup
	answers := make([]answer, 8)
	for i := range answers {
		wg.Go(func() {
			answers[i] = c.do("GET", "/api/v1/charts/"+ids[i%len(ids)]+"/render.svg", nil)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	peak := procStatusKB(t, pid, "VmHWM")
	for i, a := range answers {
		if a.status != 200 || !strings.HasPrefix(string(a.body), "<svg") {
			t.Fatalf("render %d: %d %.300s", i, a.status, a.body)
		}
		if len(a.body) > 500_000 || a.header.Get("X-Chartd-Notices") == "" {
			t.Errorf("render %d: %d bytes, notices %q", i, len(a.body), a.header.Get("X-Chartd-Notices"))
		}
	}
	t.Logf("8 concurrent renders of 1M-cell charts: %v, resident %d MB before, peak %d MB", elapsed.Round(time.Millisecond), before/1024, peak/1024)
	if peak > 512*1024 {
		t.Errorf("peak resident memory %d MB, want under 512 MB", peak/1024)
	}
}

// procStatusKB reads one kB field of /proc/<pid>/status.
func procStatusKB(t *testing.T, pid int, field string) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
