package raster

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestIdleSetLastInFirstOut(t *testing.T) {
	var s idleSet
	a, b, c := &tab{}, &tab{}, &tab{}
	for _, x := range []*tab{a, b, c} {
		s.put(x)
	}
	for _, want := range []*tab{c, b, a} {
		got, ok, err := s.get(context.Background(), time.Second)
		if err != nil || !ok || got != want {
			t.Fatalf("get = %p, %v, %v; want %p (the tab put back last)", got, ok, err, want)
		}
	}
}

func TestIdleSetHandsToWaitersInTurn(t *testing.T) {
	var s idleSet
	const waiters = 3
	got := make(chan int, waiters)
	for i := range waiters {
		go func() {
			if _, ok, err := s.get(context.Background(), time.Minute); ok && err == nil {
				got <- i
			}
		}()
		waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiters) == i+1 })
	}
	for i := range waiters {
		s.put(&tab{})
		if w := <-got; w != i {
			t.Fatalf("tab %d went to waiter %d, want %d (first come, first served)", i, w, i)
		}
	}
	if len(s.tabs) != 0 || len(s.waiters) != 0 {
		t.Fatalf("left %d tabs and %d waiters, want none", len(s.tabs), len(s.waiters))
	}
}

func TestIdleSetWaitEnds(t *testing.T) {
	var s idleSet
	start := time.Now()
	if x, ok, err := s.get(context.Background(), 30*time.Millisecond); x != nil || ok || err != nil {
		t.Fatalf("empty set after the deadline: %p, %v, %v; want nothing, not ok, no error", x, ok, err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("returned after %s, before the deadline", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := s.get(ctx, time.Minute); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: ok %v, err %v; want context.Canceled", ok, err)
	}
	// A wait that ended leaves no waiter behind: the next tab is kept.
	x := &tab{}
	s.put(x)
	if got, ok, _ := s.get(context.Background(), time.Second); !ok || got != x {
		t.Fatalf("tab put after abandoned waits was not kept")
	}
}

// waitFor polls cond until it holds, failing after a few seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}
