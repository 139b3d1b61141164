package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/raster"
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

// TestHeavyPNGRefused runs the chartd binary and asks for eight PNGs of
// 1000×1000-cell bar charts (641,000 bars, a 31 MB SVG) at once, through
// render_image: each is refused as too_large, saying to use SVG or fewer
// cells; none answers 500, no browser is restarted, chartd's peak stays
// under 512 MB and the Chromium tree is back to its idle size within
// 30 s. Before the cost check each ran past the deadline on both
// browsers, retiring them, and answered 500 after 22-24 s; and the eight
// drawings, admitted by their tables' size alone, peaked at 880 MB.
// render_chart, whose contract has no too_large, refuses the same
// picture as invalid_request.
func TestHeavyPNGRefused(t *testing.T) {
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	cmd := startProcess(t, bin, addr, "-target=all", "-data-dir", dir, "-public-url", in.url, "-log-level", "warn")
	waitURL(t, in.url+"/readyz", nil, nil)
	c := newClient(t, in.url, key)
	pid := cmd.Process.Pid
	pools, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("chartd-raster-%d-*", pid)))
	if len(pools) != 1 {
		t.Fatalf("render pool folders of chartd %d: %v", pid, pools)
	}
	browsers := func() []int {
		var out []int
		for _, p := range raster.ProcsUnder(pools[0]) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			if !strings.Contains(string(cmd), "--type=") {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	treeMiB := func() int64 {
		var kb int64
		for _, p := range raster.ProcsUnder(pools[0]) {
			kb += int64(procRollupKB(p, "Pss_Anon") + procRollupKB(p, "Pss_Shmem"))
		}
		return kb >> 10
	}
	// A small PNG first, so the tree's idle size is that of a pool that
	// has drawn.
	if a := c.do("POST", "/api/v1/render", map[string]any{"type": "bar", "format": "png", "data": salesCSV}); a.status != 200 {
		t.Fatalf("a small PNG: %d %.300s", a.status, a.body)
	}
	grids := []string{gridCSV(1000, 1000, 0), gridCSV(1000, 1000, 1)}
	before, idle := browsers(), treeMiB()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak resident size: %v", err)
	}
	// A picture refused as too heavy is refused before it is counted.
	allowance := func() string {
		var acct struct {
			Renders      struct{ Left int } `json:"renders"`
			ImageRenders struct{ Left int } `json:"image_renders"`
		}
		c.do("GET", "/api/v1/account", nil).json(t, &acct)
		return fmt.Sprintf("renders %d, image renders %d", acct.Renders.Left, acct.ImageRenders.Left)
	}
	left := allowance()
	var wg sync.WaitGroup
	answers := make([]answer, 8)
	start := time.Now()
	for i := range answers {
		wg.Go(func() {
			answers[i] = c.doPatient("POST", "/api/v1/render", map[string]any{"type": "bar", "format": "png", "data": grids[i%len(grids)]})
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	peak := procStatusKB(t, pid, "VmHWM")
	tooHeavy := func(a answer, status int, code string) bool {
		return a.status == status && a.errCode(t) == code && strings.Contains(string(a.body), "SVG") && strings.Contains(string(a.body), "fewer cells")
	}
	for i, a := range answers {
		if !tooHeavy(a, 413, "too_large") {
			t.Errorf("PNG %d: %d %.300s", i, a.status, a.body)
		}
	}
	if now := allowance(); now != left {
		t.Errorf("refused pictures were counted: %s before, %s after", left, now)
	}
	settled := time.Now().Add(30 * time.Second)
	now := treeMiB()
	for now > idle+idle/5 && time.Now().Before(settled) {
		time.Sleep(500 * time.Millisecond)
		now = treeMiB()
	}
	t.Logf("8 PNGs of 1M-cell charts: %v; chartd peak %d MB; Chromium tree %d MiB idle, %d MiB after", elapsed.Round(time.Millisecond), peak/1024, idle, now)
	if peak > 512*1024 {
		t.Errorf("chartd's peak resident memory %d MB, want at most 512 MB", peak/1024)
	}
	if now > idle+idle/5 {
		t.Errorf("the Chromium tree holds %d MiB 30 s after, %d MiB idle", now, idle)
	}
	if after := browsers(); !slices.Equal(before, after) {
		t.Errorf("browsers %v before, %v after: restarted", before, after)
	}
	a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": grids[0]})
	if a.status != 201 {
		t.Fatalf("create a 1M-cell chart: %d %.300s", a.status, a.body)
	}
	var created struct {
		Chart struct{ ID string } `json:"chart"`
	}
	a.json(t, &created)
	if a := c.do("GET", "/api/v1/charts/"+created.Chart.ID+"/render.png", nil); !tooHeavy(a, 400, "invalid_request") {
		t.Errorf("render_chart of the 1M-cell chart as PNG: %d %.300s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/render", map[string]any{"type": "bar", "format": "png", "data": salesCSV}); a.status != 200 {
		t.Errorf("a small PNG after: %d %.300s", a.status, a.body)
	}
}

// gridCSV is rows × cols cells: a key column and cols-1 series of small
// whole numbers, different for each seed.
func gridCSV(rows, cols, seed int) string {
	var b strings.Builder
	b.Grow(rows * cols * 3)
	b.WriteString("k")
	for c := 1; c < cols; c++ {
		fmt.Fprintf(&b, ",s%d", c)
	}
	for r := range rows {
		fmt.Fprintf(&b, "\nr%d", r)
		for c := 1; c < cols; c++ {
			fmt.Fprintf(&b, ",%d", 1+(r*31+c*17+seed)%97)
		}
	}
	return b.String()
}

// procRollupKB reads one kB field of /proc/<pid>/smaps_rollup (0 when the
// process is gone).
func procRollupKB(pid int, field string) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}
