// Package fleetstats is the operator's client of the render target's
// fleet-stats endpoint: each render pod reports its queue, busy tabs,
// render times and Chromium memory there, and the operator scales and
// recycles the fleet by them.
package fleetstats

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Path is the render target's internal fleet-stats endpoint.
const Path = "/internal/v1/fleet-stats"

// TokenHeader carries the internal token, as on every internal call.
const TokenHeader = "X-Chartd-Internal-Token"

// Stats is one render pod's answer. Every field is required: a pod that
// answers without one is treated as not reporting.
type Stats struct {
	// Queue is how many renders wait for a tab now.
	Queue int `json:"queue"`
	// BusyTabs is how many tabs are drawing now; Tabs is the pool's size.
	BusyTabs int `json:"busy_tabs"`
	Tabs     int `json:"tabs"`
	// P95RenderMillis is the 95th percentile of render time (tab wait plus
	// drawing) over the pod's recent renders; 0 when it has none.
	P95RenderMillis float64 `json:"p95_render_ms"`
	// ChromiumRSSBytes is the resident memory of all the pod's Chromium
	// processes together.
	ChromiumRSSBytes int64 `json:"chromium_rss_bytes"`
	// Ready is the pool's own readiness: every tab warm.
	Ready bool `json:"ready"`
}

// Client reads fleet stats from render pods.
type Client struct {
	// HTTP does the requests; it should carry a timeout.
	HTTP *http.Client
	// Token is the internal token the render target checks.
	Token string
}

// Get reads the stats of the pod served at base (http://<pod IP>:<port>).
func (c Client) Get(ctx context.Context, base string) (Stats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+Path, nil)
	if err != nil {
		return Stats{}, fmt.Errorf("fleet stats %s: %w", base, err)
	}
	req.Header.Set(TokenHeader, c.Token)
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Stats{}, fmt.Errorf("fleet stats %s: %w", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return Stats{}, fmt.Errorf("fleet stats %s: reading the answer: %w", base, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Stats{}, fmt.Errorf("fleet stats %s: status %d: %.200s", base, resp.StatusCode, body)
	}
	return decode(body)
}

// decode reads an answer strictly: unknown fields are allowed (the render
// target may report more), missing ones are not.
func decode(body []byte) (Stats, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return Stats{}, fmt.Errorf("fleet stats: %w", err)
	}
	for _, f := range []string{"queue", "busy_tabs", "tabs", "p95_render_ms", "chromium_rss_bytes", "ready"} {
		if _, ok := raw[f]; !ok {
			return Stats{}, fmt.Errorf("fleet stats: the answer has no %q", f)
		}
	}
	var s Stats
	if err := json.Unmarshal(body, &s); err != nil {
		return Stats{}, fmt.Errorf("fleet stats: %w", err)
	}
	if s.Queue < 0 || s.BusyTabs < 0 || s.Tabs < 0 || s.ChromiumRSSBytes < 0 || s.P95RenderMillis < 0 {
		return Stats{}, fmt.Errorf("fleet stats: negative value in %s", body)
	}
	return s, nil
}
