package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"chartd.dev/libs/store"
)

// recorder notes the order modules stop in.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func module(rec *recorder, name string, started *sync.WaitGroup) Module {
	started.Add(1)
	return Module{
		Name: name,
		Run: func(ctx context.Context) error {
			started.Done()
			<-ctx.Done()
			rec.add("run-end " + name)
			return nil
		},
		Stop: func(context.Context) error { rec.add("stop " + name); return nil },
	}
}

func TestRunStopsInReverseOrder(t *testing.T) {
	var g Group
	rec := &recorder{}
	var started sync.WaitGroup
	for _, n := range []string{"store", "chart", "server"} {
		g.Add(module(rec, n, &started))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	started.Wait()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"run-end server", "stop server", "run-end chart", "stop chart", "run-end store", "stop store"}
	if !slices.Equal(rec.log, want) {
		t.Fatalf("order %v, want %v", rec.log, want)
	}
}

func TestRunEndsWhenAModuleFails(t *testing.T) {
	var g Group
	rec := &recorder{}
	var started sync.WaitGroup
	g.Add(module(rec, "store", &started))
	boom := errors.New("browser crashed")
	g.Add(Module{Name: "raster", Run: func(context.Context) error { started.Wait(); return boom }})
	err := g.Run(context.Background())
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "raster") {
		t.Fatalf("err %v, want the raster failure", err)
	}
	if !slices.Equal(rec.log, []string{"run-end store", "stop store"}) {
		t.Fatalf("store not stopped: %v", rec.log)
	}
}

func TestReadyNamesEveryModuleNotReady(t *testing.T) {
	var g Group
	g.Add(Module{Name: "store", Ready: func(context.Context) error { return nil }})
	g.Add(Module{Name: "redis", Ready: func(context.Context) error { return errors.New("connection refused") }})
	g.Add(Module{Name: "raster", Ready: func(context.Context) error { return errors.New("no browser") }})
	err := g.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redis: connection refused") || !strings.Contains(err.Error(), "raster: no browser") || strings.Contains(err.Error(), "store") {
		t.Fatalf("ready: %v", err)
	}
	var nr *NotReadyError
	if !errors.As(err, &nr) || !slices.Equal(nr.Modules, []string{"redis", "raster"}) {
		t.Fatalf("not-ready modules: %#v", err)
	}
	if err := (&Group{}).Ready(context.Background()); err != nil {
		t.Fatalf("an empty group: %v", err)
	}
}

func TestStopWithoutRun(t *testing.T) {
	var g Group
	rec := &recorder{}
	for _, n := range []string{"a", "b"} {
		g.Add(Module{Name: n, Stop: func(context.Context) error { rec.add(n); return nil }})
	}
	if err := g.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.log, []string{"b", "a"}) {
		t.Fatalf("stop order %v", rec.log)
	}
}

// A module whose storage is full is named with the reason, which the probe
// may show: an operator reading /readyz learns what to do.
func TestReadyNamesStorageFull(t *testing.T) {
	var g Group
	g.Add(Module{Name: "store", Ready: func(context.Context) error {
		return fmt.Errorf("sqlite store: %w", store.ErrStorageFull)
	}})
	var nr *NotReadyError
	if err := g.Ready(context.Background()); !errors.As(err, &nr) || len(nr.Modules) != 1 ||
		!strings.HasPrefix(nr.Modules[0], "store (storage full") {
		t.Fatalf("not-ready modules: %#v", err)
	}
}
