package raster

// truthGoldens are issue 32's misstatements fixed (items 1–4, 15, 16,
// 19), one SVG golden of libs/draw each, drawn to PNG as the render
// service does (testdata/png/issue32/key-golden.png).
var truthGoldens = []itemGolden{
	{"item01a", "a column named Index is data: both lines drawn", "truth-index-benchmark"},
	{"item01b", "a column the mapping leaves out is said on the picture", "truth-index-left-out"},
	{"item01c", "a poll's No beside Yes and Undecided is drawn", "truth-poll-yes-no"},
	{"item02a", "four missing quarters break the line as a blank cell does", "truth-line-missing-quarters"},
	{"item03a", "tied dots side by side across the row", "truth-dotplot-ties"},
	{"item04a", "bars from a set min are cut and the axis marks the break", "truth-bar-axis-970"},
	{"item04b", "the same for horizontal bars", "truth-bar-axis-970-horizontal"},
	{"item04c", "bars on a log scale the person asked for say so under the chart", "truth-bar-log-scale"},
	{"item15a", "7 bins asked, 7 drawn, 15 wide", "truth-histogram-7-bins"},
	{"item15b", "20 bins asked of whole numbers 0–6: 7 drawn, said in the notice", "truth-histogram-20-bins-children"},
}
