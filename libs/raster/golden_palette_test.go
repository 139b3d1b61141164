package raster

// paletteGoldens are issue 22's item 3 (a palette shorter than the series
// painted series 3 to n in one grey, "Other: …") and its legend-order
// item, one SVG golden of libs/draw each, drawn to PNG under
// testdata/png/issue22 (key-golden.png). The catalog samples radar.png
// (the radar example's colours, no longer faint) and scatter.png (4, 6, 8
// cylinders) show the two small items on the gallery's own charts, and
// issue 13's item07-bar-12-series the default palette extended past ten.
var paletteGoldens = []itemGolden{
	{"item03a", "two brand colours, five bar series: five colours", "bar-brand-2-colours-5-series"},
	{"item03b", "two brand colours, five lines: five colours", "line-brand-2-colours-5-series"},
	{"item03c", "twelve lines, a palette of three: twelve colours", "line-12-series-3-colours"},
	{"item03d", "two brand colours, six pie slices: six colours", "pie-brand-2-colours-6-slices"},
	{"item08-legend", "groups in natural order, 4, 6, 8 cylinders", "scatter-groups-natural-order"},
}
