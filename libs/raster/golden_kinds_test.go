package raster

// kindGoldens are issue 22's items 4 and 5 (the chart a standard table
// makes; years and dates) and its small items on histograms and heatmaps,
// one SVG golden of libs/draw each, drawn to PNG as the render service
// does (testdata/png/issue22/key-golden.png).
var kindGoldens = []itemGolden{
	{"item04a", "a wide table (correlation matrix) is rows × columns", "heatmap-wide-matrix"},
	{"item04b", "a diverging palette asked for is used, centred on zero", "heatmap-red-blue-asked"},
	{"item04c", "values on both sides of zero never get a one-hue ramp", "heatmap-mixed-sign"},
	{"item04d", "temperatures run from cold blue to hot red", "heatmap-temperatures"},
	{"item04e", "an ID column is no measure: height against weight", "scatter-id-height-weight"},
	{"item05a", "years along a scatter's x as a date axis", "scatter-year-temp"},
	{"item05b", "a year column as a histogram's numbers", "histogram-year-joined"},
	{"item05c", "a year column as a box plot's numbers", "boxplot-jahr"},
	{"item05d", "years without separators", "dotplot-founded"},
	{"item05e", "timestamps keep the calendar date written", "bar-offset-timestamps"},
	{"item05f", "monthly data reads Jan 2024, Feb, …", "bar-monthly-first-days"},
	{"item08a", "whole numbers get a bin each", "histogram-integers-0-6"},
	{"item08b", "long names down the side, months across and abbreviated", "heatmap-stations-months"},
	{"item08c", "the minus sign on a heatmap axis as in its legend", "heatmap-negative-categories"},
}
