package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestLocks(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, l *Locks)
	}{
		{"one key runs one holder at a time", func(t *testing.T, l *Locks) {
			var (
				wg           sync.WaitGroup
				mu           sync.Mutex
				inside, most int
			)
			for range 50 {
				wg.Go(func() {
					unlock, err := l.Lock(context.Background(), "chart")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					inside++
					most = max(most, inside)
					mu.Unlock()
					time.Sleep(100 * time.Microsecond)
					mu.Lock()
					inside--
					mu.Unlock()
					unlock()
				})
			}
			wg.Wait()
			if most != 1 {
				t.Fatalf("%d holders of one key at once, want 1", most)
			}
		}},
		{"other keys do not wait", func(t *testing.T, l *Locks) {
			unlock, err := l.Lock(context.Background(), "a")
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			other, err := l.Lock(ctx, "b")
			if err != nil {
				t.Fatalf("key b waited for key a: %v", err)
			}
			other()
		}},
		{"a caller that has gone stops waiting", func(t *testing.T, l *Locks) {
			unlock, err := l.Lock(context.Background(), "a")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if _, err := l.Lock(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("waiting past the deadline answered %v", err)
			}
			unlock()
			again, err := l.Lock(context.Background(), "a")
			if err != nil {
				t.Fatalf("key a after its holder left: %v", err)
			}
			again()
		}},
		{"free keys are forgotten", func(t *testing.T, l *Locks) {
			for _, k := range []string{"a", "b", "c"} {
				unlock, err := l.Lock(context.Background(), k)
				if err != nil {
					t.Fatal(err)
				}
				unlock()
			}
			if n := len(l.held); n != 0 {
				t.Fatalf("%d keys kept after every holder left", n)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, &Locks{})
		})
	}
}
