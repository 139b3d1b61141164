package raster

// annotationGoldens are issue 34's notes, reference lines and ranges on
// each chart type that draws them, drawn to PNG like itemGoldens
// (testdata/png/issue34/key-golden.png).
var annotationGoldens = []itemGolden{
	{"notes-bar", "notes above a trough's neighbours and over the record bar, clear of the bars", "notes-bar"},
	{"notes-bar-horizontal", "notes beyond the bars' ends, named series", "notes-bar-horizontal"},
	{"notes-line", "a note above the peak, one below the trough", "notes-line"},
	{"notes-scatter", "notes on two points, clear of the others", "notes-scatter"},
	{"notes-dotplot", "notes on two dots of the 2020 series", "notes-dotplot"},
	{"lines-bar", "a 120 target on data up to 96 shows 120; the mean labelled Mean 74.1", "lines-bar"},
	{"lines-line", "the median and a date line, labels clear of the ticks", "lines-line"},
	{"lines-scatter", "the mean mass and a 200 mm line", "lines-scatter"},
	{"lines-histogram", "the mean and median ages on the value axis", "lines-histogram"},
	{"lines-boxplot", "a retirement line above every box", "lines-boxplot"},
	{"lines-dotplot", "an average line across the rows", "lines-dotplot"},
	{"ranges-bar", "summer months shaded behind the bars, labelled at the top", "ranges-bar"},
	{"ranges-line", "a recession band and a target zone behind the line", "ranges-line"},
	{"ranges-scatter", "the usual mass band behind the points", "ranges-scatter"},
	{"ranges-histogram", "ages 30 to 50 shaded", "ranges-histogram"},
	{"ranges-boxplot", "the hiring band behind the boxes", "ranges-boxplot"},
	{"ranges-dotplot", "high trust shaded", "ranges-dotplot"},
	{"story-bar30", "30 bars, five notes, a target line and a campaign week", "story-bar30"},
}
