package subset

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"chartd.dev/libs/fontstack"
)

// counting is a Subsetter that answers size bytes per call and counts
// its calls; gate, when set, holds every call until it is closed.
type counting struct {
	calls atomic.Int64
	size  int
	fail  error
	gate  chan struct{}
}

func (c *counting) Subset(ctx context.Context, face fontstack.Face, runes []rune) ([]byte, error) {
	c.calls.Add(1)
	if c.gate != nil {
		<-c.gate
	}
	if c.fail != nil {
		return nil, c.fail
	}
	return bytes.Repeat([]byte{byte(len(runes))}, c.size), nil
}

var roboto = fontstack.Face{Family: "Roboto", File: "Roboto-Regular.ttf"}

func TestCacheKeepsBySetAndBudget(t *testing.T) {
	next := &counting{size: 100}
	c := NewCache(next, 250, time.Second)
	ctx := context.Background()
	for _, tc := range []struct {
		runes     string
		face      fontstack.Face
		wantCalls int64
	}{
		{"ab", roboto, 1},
		{"ab", roboto, 1},                    // hit
		{"abc", roboto, 2},                   // another set
		{"ab", fontstack.Face{File: "x"}, 3}, // another face
		{"ab", roboto, 4},                    // evicted: three of 100 bytes exceed 250
	} {
		if _, err := c.Subset(ctx, tc.face, []rune(tc.runes)); err != nil {
			t.Fatal(err)
		}
		if got := next.calls.Load(); got != tc.wantCalls {
			t.Errorf("%q in %s: %d calls, want %d", tc.runes, tc.face.File, got, tc.wantCalls)
		}
	}
	st := c.Stats()
	if st.Bytes > 250 || st.Entries != 2 || st.Hits != 1 || st.Misses != 4 {
		t.Errorf("stats %+v, want 2 entries within 250 bytes, 1 hit, 4 misses", st)
	}
}

func TestCacheTooLargeIsNotKept(t *testing.T) {
	next := &counting{size: 300}
	c := NewCache(next, 250, time.Second)
	for range 2 {
		if _, err := c.Subset(context.Background(), roboto, []rune("a")); err != nil {
			t.Fatal(err)
		}
	}
	if next.calls.Load() != 2 || c.Stats().Entries != 0 {
		t.Errorf("%d calls, %+v: a subset over the budget is made each time and not kept", next.calls.Load(), c.Stats())
	}
}

func TestCacheErrorsAreNotKept(t *testing.T) {
	next := &counting{size: 10, fail: errors.New("broken font")}
	c := NewCache(next, 1000, time.Second)
	for range 2 {
		if _, err := c.Subset(context.Background(), roboto, []rune("a")); err == nil || !strings.Contains(err.Error(), "broken font") {
			t.Fatalf("err %v", err)
		}
	}
	if next.calls.Load() != 2 {
		t.Errorf("%d calls: a failure is tried again", next.calls.Load())
	}
}

// TestCacheMakesOneSubsetForConcurrentAsks: callers asking for a subset
// being made wait for it; one giving up does not fail the others.
func TestCacheMakesOneSubsetForConcurrentAsks(t *testing.T) {
	next := &counting{size: 10, gate: make(chan struct{})}
	c := NewCache(next, 1000, time.Second)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Subset(gone, roboto, []rune("a")); !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller that gave up: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.Subset(context.Background(), roboto, []rune("a")) })
	}
	time.Sleep(50 * time.Millisecond)
	close(next.gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := next.calls.Load(); n != 1 {
		t.Errorf("%d subsets made for one set asked 9 times", n)
	}
}

func TestUnicodes(t *testing.T) {
	if got := unicodes([]rune("A 東😀")); got != "41,20,6771,1f600" {
		t.Errorf("unicodes %q", got)
	}
}

// TestToolNeedsCharacters: an empty set is refused, not handed to
// hb-subset (which would keep every glyph).
func TestToolNeedsCharacters(t *testing.T) {
	tool, err := NewTool(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Subset(context.Background(), roboto, nil); err == nil {
		t.Error("no error for no characters")
	}
}

// TestToolFailureSaysWhy: a face that is not a font fails with the file
// and hb-subset's own words.
func TestToolFailureSaysWhy(t *testing.T) {
	tool, err := NewTool(1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.Subset(context.Background(), fontstack.Face{Family: "Nothing", File: "missing.ttf", Path: t.TempDir() + "/missing.ttf"}, []rune("a"))
	if err == nil || !strings.Contains(err.Error(), "missing.ttf") {
		t.Errorf("err %v", err)
	}
}

// TestToolWritesWOFF2: the embedded Roboto (read from standard input)
// comes back as a small WOFF2 file.
func TestToolWritesWOFF2(t *testing.T) {
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	tool, err := NewTool(1)
	if err != nil {
		t.Fatal(err)
	}
	face := st.Families()[0].Regular
	out, err := tool.Subset(context.Background(), face, []rune("Sales 0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("wOF2")) || len(out) > 4000 {
		t.Errorf("%d bytes starting %q: want a WOFF2 file of a few kilobytes", len(out), out[:min(4, len(out))])
	}
}
