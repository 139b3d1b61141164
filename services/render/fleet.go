package render

import (
	"context"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/route"
)

// FleetStats is what a render pod tells the RenderFleet operator
// (services/operator/internal/fleetstats holds the reading side): its load,
// its Chromium memory and whether its pool is warm. It reads no store, so
// polling every pod stays cheap.
type FleetStats struct {
	// Queue is the renders waiting for a tab now.
	Queue int `json:"queue"`
	// BusyTabs is the tabs drawing now; Tabs the pool's size.
	BusyTabs int `json:"busy_tabs"`
	Tabs     int `json:"tabs"`
	// P95RenderMS is the 95th percentile of wait plus draw over recent
	// renders, in milliseconds; 0 before the first.
	P95RenderMS float64 `json:"p95_render_ms"`
	// ChromiumRSSBytes is the proportional set size of every Chromium
	// process of the pod, the measure -render.recycle-mib uses.
	ChromiumRSSBytes int64 `json:"chromium_rss_bytes"`
	// Ready says every tab is warm.
	Ready bool `json:"ready"`
}

func (s *Service) fleetStats(context.Context, auth.Principal, route.None) (FleetStats, error) {
	st := s.deps.Raster.Stats()
	return FleetStats{
		Queue:            st.Queue,
		BusyTabs:         st.BusyTabs,
		Tabs:             st.Tabs,
		P95RenderMS:      float64(st.P95.Microseconds()) / 1000,
		ChromiumRSSBytes: s.deps.Raster.RSS(),
		Ready:            s.deps.Raster.Ready() == nil && st.Warm == st.Tabs,
	}, nil
}
