package store

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMicro(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"drops nanoseconds", time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)},
		{"converts to UTC", time.Date(2026, 1, 2, 4, 4, 5, 999, berlin), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"keeps whole microseconds", time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Micro(tt.in)
			if got != tt.want {
				t.Fatalf("Micro(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	if got := Micro(time.Now()); got != Micro(got) {
		t.Fatalf("Micro is not idempotent / keeps a monotonic reading: %#v", got)
	}
}

func TestNextUpdatedAt(t *testing.T) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		old, now time.Time
		want     time.Time
	}{
		{"clock moved on", base, base.Add(time.Second), base.Add(time.Second)},
		{"same microsecond", base, base.Add(300 * time.Nanosecond), base.Add(time.Microsecond)},
		{"clock stepped back", base, base.Add(-time.Hour), base.Add(time.Microsecond)},
		{"exactly one microsecond later", base, base.Add(time.Microsecond), base.Add(time.Microsecond)},
		{"now has nanoseconds", base, base.Add(5*time.Millisecond + 999), base.Add(5 * time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextUpdatedAt(tt.old, tt.now)
			if got != tt.want {
				t.Fatalf("NextUpdatedAt(%v, %v) = %v, want %v", tt.old, tt.now, got, tt.want)
			}
			if !got.After(tt.old) {
				t.Fatalf("NextUpdatedAt did not move forward: %v -> %v", tt.old, got)
			}
		})
	}
}

func TestValidPlan(t *testing.T) {
	tests := []struct {
		plan string
		want bool
	}{{PlanFree, true}, {PlanPro, true}, {"", false}, {"Pro", false}, {"enterprise", false}}
	for _, tt := range tests {
		if got := ValidPlan(tt.plan); got != tt.want {
			t.Errorf("ValidPlan(%q) = %v, want %v", tt.plan, got, tt.want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	tests := []Cursor{
		{UpdatedAt: time.Date(2026, 11, 3, 10, 11, 12, 123456000, time.UTC), ID: "0b9f7e8c-2f4e-4c0e-9d7a-4a1f1b2c3d4e"},
		{UpdatedAt: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), ID: "x"},
		{UpdatedAt: time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), ID: "id.with.dots"},
		{UpdatedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC), ID: "ünïcode"},
	}
	for _, c := range tests {
		s := EncodeCursor(c)
		if strings.ContainsAny(s, "+/=") {
			t.Errorf("cursor %q is not URL-safe", s)
		}
		got, err := DecodeCursor(s)
		if err != nil {
			t.Fatalf("DecodeCursor(EncodeCursor(%v)): %v", c, err)
		}
		if got != c {
			t.Fatalf("round trip: got %v, want %v", got, c)
		}
	}
}

func TestDecodeCursorRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"not base64", "!!!"},
		{"padded", "MTIzLmE="},
		{"no separator", encodeRaw("12345")},
		{"no id", encodeRaw("12345.")},
		{"no time", encodeRaw(".abc")},
		{"plus sign", encodeRaw("+12.abc")},
		{"leading zero", encodeRaw("012.abc")},
		{"not a number", encodeRaw("12x.abc")},
		{"overflow", encodeRaw("99999999999999999999.abc")},
		{"year out of range", encodeRaw("-9223372036854775808.abc")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeCursor(tt.in); !errors.Is(err, ErrBadCursor) {
				t.Fatalf("DecodeCursor(%q) error = %v, want ErrBadCursor", tt.in, err)
			}
		})
	}
}

// encodeRaw base64url-encodes an arbitrary payload, to build bad cursors.
func encodeRaw(raw string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(EncodeCursor(Cursor{UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ID: "a"}))
	f.Add("")
	f.Add("MTIzLmE")
	f.Add(encodeRaw("-5.x"))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("error %v does not wrap ErrBadCursor", err)
			}
			return
		}
		if c.UpdatedAt != Micro(c.UpdatedAt) {
			t.Fatalf("decoded time %v is not normalised", c.UpdatedAt)
		}
		if again := EncodeCursor(c); again != s {
			t.Fatalf("cursor %q decodes to %v which encodes to %q", s, c, again)
		}
	})
}

func TestPageSize(t *testing.T) {
	tests := []struct{ in, want int }{
		{-1, DefaultPageSize}, {0, DefaultPageSize}, {1, 1}, {100, 100}, {MaxPageSize, MaxPageSize}, {MaxPageSize + 1, MaxPageSize},
	}
	for _, tt := range tests {
		if got := PageSize(tt.in); got != tt.want {
			t.Errorf("PageSize(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestPaginate(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := func(n int) []Chart {
		out := make([]Chart, n)
		for i := range out {
			out[i] = Chart{ID: string(rune('a' + i)), UpdatedAt: base.Add(-time.Duration(i) * time.Second)}
		}
		return out
	}
	tests := []struct {
		name     string
		rows     []Chart
		limit    int
		wantLen  int
		wantNext *Cursor
	}{
		{"empty", nil, 3, 0, nil},
		{"short page", rows(2), 3, 2, nil},
		{"exactly limit", rows(3), 3, 3, nil},
		{"one extra row", rows(4), 3, 3, &Cursor{UpdatedAt: base.Add(-2 * time.Second), ID: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, next := Paginate(tt.rows, tt.limit)
			if len(page) != tt.wantLen {
				t.Fatalf("page has %d rows, want %d", len(page), tt.wantLen)
			}
			if tt.wantNext == nil {
				if next != "" {
					t.Fatalf("next = %q, want none", next)
				}
				return
			}
			got, err := DecodeCursor(next)
			if err != nil || got != *tt.wantNext {
				t.Fatalf("next decodes to %v, %v; want %v", got, err, *tt.wantNext)
			}
		})
	}
}
