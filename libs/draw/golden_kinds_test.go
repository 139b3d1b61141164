package draw

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// catalog is the chart catalog, loaded once for the goldens that map
// their roles as the API does.
var catalog = sync.OnceValues(charts.Load)

// kindCases are the goldens of issue 22's items 4 and 5 (the chart a
// standard table makes; years and dates) and its small items on
// histograms and heatmaps. Each is drawn from CSV as the API parses it,
// with the roles the API picks (chartspec.AutoMapping), and each showed
// its defect on the code before.
func kindCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	palette := func(id string) func(*Input) {
		return func(in *Input) {
			cat, err := catalog()
			if err != nil {
				panic(err)
			}
			p, ok := cat.Palette(id)
			if !ok {
				panic("no palette " + id)
			}
			in.Spec.Style.Palette = p.Colors
		}
	}
	r := rand.New(rand.NewPCG(22, 4))
	// api parses CSV as a request does and maps the roles as a new chart does
	api := func(typ, csv string, opts map[string]any) (*chartspec.Spec, *dataset.Table) {
		raw, _ := json.Marshal(csv)
		t, _, err := dataset.ParseRequest(raw, "csv")
		if err != nil {
			panic(err)
		}
		cat, err := catalog()
		if err != nil {
			panic(err)
		}
		ct, _ := cat.Type(typ)
		return testSpec(typ, opts, chartspec.AutoMapping(ct, t)), t
	}
	csvOf := func(header string, rows []string) string { return header + "\n" + strings.Join(rows, "\n") }

	// item 4: a correlation matrix is rows × columns, every cell filled
	corr := "Measure,Weight,Power,Fuel use,Speed\nWeight,1,0.66,0.87,-0.71\nPower,0.66,1,0.78,0.52\nFuel use,0.87,0.78,1,-0.4\nSpeed,-0.71,0.52,-0.4,1"
	s, t := api("heatmap", corr, nil)
	add("heatmap-wide-matrix", s, t, title("Heavy cars use more fuel"))

	// item 4: a diverging palette asked for is used, centred on zero
	var regions, quarters []string
	var change []float64
	for _, reg := range []string{"North", "South", "East", "West", "Central"} {
		for q := 1; q <= 4; q++ {
			regions = append(regions, reg)
			quarters = append(quarters, fmt.Sprintf("Q%d", q))
			change = append(change, math.Round((r.Float64()*14-4)*10)/10)
		}
	}
	changeCSV := func() string {
		rows := make([]string, len(regions))
		for i := range rows {
			rows[i] = fmt.Sprintf("%s,%s,%g", regions[i], quarters[i], change[i])
		}
		return csvOf("Region,Quarter,Change (%)", rows)
	}
	s, t = api("heatmap", changeCSV(), nil)
	add("heatmap-red-blue-asked", s, t, title("Sales change by region"), palette("red-blue"))

	// item 4: values on both sides of zero never get a one-hue ramp
	s, t = api("heatmap", changeCSV(), nil)
	add("heatmap-mixed-sign", s, t, title("Sales change by region"))

	// item 4: temperatures read cold blue to hot red, not dark = hot
	var tempRows []string
	for _, city := range []struct {
		name       string
		low, swing float64
	}{{"Yakutsk", -20, 48}, {"Oslo", -4, 22}, {"Berlin", 0, 19}, {"Madrid", 6, 20}, {"Cairo", 14, 14}, {"Singapore", 27, 2}} {
		for m, name := range []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"} {
			v := city.low + city.swing*(1-math.Cos(float64(m)/12*2*math.Pi))/2
			tempRows = append(tempRows, fmt.Sprintf("%s,%s,%.1f", city.name, name, math.Min(v, 35)))
		}
	}
	s, t = api("heatmap", csvOf("City,Month,Temperature (°C)", tempRows), nil)
	add("heatmap-temperatures", s, t, title("Mean temperature by month"))

	// item 4: an identifier is no measure: height against weight
	var people []string
	for i := 1; i <= 40; i++ {
		h := 150 + r.Float64()*45
		people = append(people, fmt.Sprintf("%d,%.0f,%.0f", i, h, (h-100)*0.9+r.NormFloat64()*7))
	}
	s, t = api("scatter", csvOf("ID,Height,Weight", people), nil)
	add("scatter-id-height-weight", s, t, title("Taller people weigh more"))

	// item 5: years serve number roles and run along a date axis
	var temps []string
	anomaly := 13.8
	for y := 1880; y <= 2020; y += 5 {
		anomaly += 0.04 + r.NormFloat64()*0.1
		temps = append(temps, fmt.Sprintf("%d,%.2f", y, anomaly+math.Max(0, float64(y-1970))*0.012))
	}
	s, t = api("scatter", csvOf("Year,Temp", temps), nil)
	add("scatter-year-temp", s, t, title("Global mean temperature"))
	var joined []string
	for i := range 60 {
		joined = append(joined, fmt.Sprintf("P%d,%d", i, 1996+int(math.Min(27, math.Abs(r.NormFloat64()*7+14)))))
	}
	s, t = api("histogram", csvOf("Name,Year joined", joined), nil)
	add("histogram-year-joined", s, t, title("When members joined"))
	var jahre []string
	for i := range 45 {
		jahre = append(jahre, fmt.Sprintf("%s,%d", []string{"Vertrieb", "Technik", "Verwaltung"}[i%3], 1990+r.IntN(34)))
	}
	s, t = api("boxplot", csvOf("Abteilung,Jahr", jahre), nil)
	add("boxplot-jahr", s, t, title("Eintrittsjahr nach Abteilung"))
	founded := "Company,Founded\nSiemens,1847\nBayer,1863\nBASF,1865\nBosch,1886\nAllianz,1890\nBMW,1916\nSAP,1972"
	s, t = api("dotplot", founded, nil)
	add("dotplot-founded", s, t, title("Founded"), style(func(s *chartspec.Style) { s.Labels.Show = true }))

	// item 5: a timestamp keeps the calendar date it was written with
	var loads []string
	for d := 1; d <= 7; d++ {
		loads = append(loads, fmt.Sprintf("2024-01-%02dT00:00:00+02:00,%d", d, 20+r.IntN(30)))
	}
	s, t = api("bar", csvOf("Day,Load", loads), nil)
	add("bar-offset-timestamps", s, t, title("Load in the first week of 2024"))

	// item 5: monthly data written as first days reads Jan 2024, Feb, …
	var monthly []string
	for m := 1; m <= 12; m++ {
		monthly = append(monthly, fmt.Sprintf("2024-%02d-01,%d", m, 20+r.IntN(40)))
	}
	s, t = api("bar", csvOf("Date,Sales", monthly), nil)
	add("bar-monthly-first-days", s, t, title("Sales per month"))

	// item 8: a histogram of whole numbers has a bin per number
	var kids []string
	for range 80 {
		kids = append(kids, fmt.Sprint([]int{0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 5, 6, 6}[r.IntN(18)]))
	}
	s, t = api("histogram", csvOf("Children", kids), nil)
	add("histogram-integers-0-6", s, t, title("Children per household"))

	// item 8: 30 long names go down the side, months across, abbreviated
	var rain []string
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	for _, st := range []string{"Aberdeen Dyce", "Birmingham Elmdon", "Cardiff Rhoose", "Dundee Riverside", "Edinburgh Gogarbank",
		"Falmouth Pendennis", "Glasgow Bishopton", "Hull Sculcoates", "Inverness Dalcross", "Jersey St Helier", "Kinloss Moray",
		"Leeds Bradford", "Manchester Ringway", "Newcastle Woolsington", "Oxford Radcliffe", "Plymouth Mount Batten", "Exeter Clyst",
		"Rothamsted Harpenden", "Southampton Eastleigh", "Tiree Balemartine", "Usk Monmouth", "Valley Anglesey", "Wick John O Groats",
		"Yeovilton Somerset", "Lerwick Shetland", "Stornoway Lewis", "Durham Observatory", "Armagh Observatory", "Bala Gwynedd", "Camborne Cornwall"} {
		for m, month := range months {
			rain = append(rain, fmt.Sprintf("%s weather station,%s,%.0f", st, month, 60+35*math.Cos(float64(m)/12*2*math.Pi)+r.Float64()*40))
		}
	}
	s, t = api("heatmap", csvOf("Station,Month,Rain (mm)", rain), nil)
	add("heatmap-stations-months", s, t, title("Rainfall by station and month"), func(in *Input) { in.Width, in.Height = 800, 760 })

	// item 8: negative numbers as categories take the minus sign, as the legend does
	var lags []string
	for lag := -3; lag <= 3; lag++ {
		for _, v := range []string{"Rain", "Sun", "Wind"} {
			lags = append(lags, fmt.Sprintf("%d,%s,%.2f", lag, v, math.Round((r.Float64()*1.6-0.8)*100)/100))
		}
	}
	s, t = api("heatmap", csvOf("Lag (days),Variable,Correlation", lags), nil)
	add("heatmap-negative-categories", s, t, title("Correlation with sales by lag"))
	return cases
}
