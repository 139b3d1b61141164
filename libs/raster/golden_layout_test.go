package raster

// layoutGoldens are issue 32's layout items, one SVG golden of libs/draw
// each, drawn to PNG as the render service does
// (testdata/png/issue32/key-golden.png).
var layoutGoldens = []itemGolden{
	{"item05a", "50 horizontal bars, no height given: 847 px tall, every row named", "layout-bar-50-rows-grow"},
	{"item05b", "50 bars at a fixed 400 px: every 2nd named, and a note says so", "layout-bar-50-rows-fixed"},
	{"item05c", "a 60-row heatmap grows to name every row", "layout-heatmap-60-rows-grow"},
	{"item06a", "long party names: columns turned into bars, names flat and whole", "layout-bar-party-names"},
	{"item06b", "columns asked for: long names wrapped flat, never turned", "layout-bar-party-names-vertical"},
	{"item07a", "12 lines × 15 points: each line's end, high and low labelled, none overlapping", "layout-line-12x15-labels"},
	{"item08a", "one value at 1e9 left off the scale, said under the chart", "layout-scatter-1e9"},
	{"item08b", "one 5M income off a histogram of 1,000", "layout-histogram-5m-income"},
	{"item08c", "five orders of magnitude: log axes, titled so", "layout-scatter-log-auto"},
	{"item13a", "groups of 4 values or fewer: their points and n", "layout-boxplot-small-n"},
	{"item14a", "a bubble scatter's size key", "layout-scatter-bubbles"},
	{"item18a", "pie shares on the slices", "layout-pie-shares"},
	{"item18b", "donut shares on the slices", "layout-donut-shares"},
}
