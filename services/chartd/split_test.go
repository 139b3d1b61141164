package main

import "testing"

// Split mode (each service its own process, over HTTP) runs the same
// scenarios as the one-process mode.

func TestChartsSplit(t *testing.T) { chartsScenario(t, startSplit(t)) }

func TestOpsSplit(t *testing.T) { opsScenario(t, startSplit(t)) }

func TestRenderSplit(t *testing.T) { renderScenario(t, startSplit(t)) }

func TestAggregateSplitPostgresRedis(t *testing.T) {
	in := startSplit(t, clusterFlags(t)...)
	chartsScenario(t, in)
	opsScenario(t, in)
	renderScenario(t, in)
	aggregateRounds(t, in, 3)
}
