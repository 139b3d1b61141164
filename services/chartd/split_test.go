package main

import "testing"

// Split mode (each service its own process, over HTTP) runs the same
// scenarios as the one-process mode.

func TestChartsSplit(t *testing.T) { chartsScenario(t, startSplit(t)) }

func TestOpsSplit(t *testing.T) { opsScenario(t, startSplit(t)) }

func TestRenderSplit(t *testing.T) {
	// Lint's layout problems cross chart → render → chart over HTTP here;
	// the generous timeout keeps a loaded machine from dropping them.
	in := startSplit(t, "-chart.layout-timeout=20s")
	renderScenario(t, in)
	t.Run("lint needs room", func(t *testing.T) { roomScenario(t, in) })
}

func TestAggregateSplitPostgresRedis(t *testing.T) {
	in := startSplit(t, clusterFlags(t)...)
	chartsScenario(t, in)
	opsScenario(t, in)
	renderScenario(t, in)
	aggregateRounds(t, in, 3)
}
