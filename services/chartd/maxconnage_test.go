package main

import (
	"context"
	"testing"
	"time"
)

// TestConnTooOld: a connection accepted longer ago than -max-conn-age is
// closed on its next answer, so a Service's new pods get connections; 0
// never closes one, and a context without an accept time (no server
// connection) never counts as old.
func TestConnTooOld(t *testing.T) {
	now := time.Now()
	for _, tt := range []struct {
		name     string
		accepted time.Time
		maxAge   time.Duration
		want     bool
	}{
		{"young", now, 5 * time.Second, false},
		{"past the age", now.Add(-6 * time.Second), 5 * time.Second, true},
		{"no age set", now.Add(-time.Hour), 0, false},
		{"no accept time", time.Time{}, 5 * time.Second, false},
	} {
		ctx := context.Background()
		if !tt.accepted.IsZero() {
			ctx = context.WithValue(ctx, acceptedKey{}, tt.accepted)
		}
		if got := connTooOld(ctx, tt.maxAge); got != tt.want {
			t.Errorf("%s: connTooOld = %v, want %v", tt.name, got, tt.want)
		}
	}
}
