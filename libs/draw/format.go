package draw

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// numFormat says how values read in labels and ticks: style.numberFormat,
// completed with what the data itself says (a currency or percent column).
type numFormat struct {
	// decimals is fixed when ≥ 0, automatic when -1.
	decimals int
	prefix   string
	suffix   string
	// compact forces 1.2k/3.4M; plain forbids it; neither is automatic
	// (compact from 10,000 up).
	compact bool
	plain   bool
	// scale multiplies values first (100 for fractions shown as percent).
	scale float64
	// unit, when above 0, is the compact unit every value is written in
	// (1e6 and "M"), fixed for a whole axis or label set by sharedUnit.
	unit     float64
	unitName string
	// years writes values as calendar years, without grouping (appendYear).
	years bool
}

// sharedUnit fixes the compact unit (k, M, B, T) of a set of values by the
// largest of them, so one axis or one set of labels never mixes 877M with
// 1.2B, or 0.2M with 800k.
func (f numFormat) sharedUnit(maxAbs float64) numFormat {
	a := math.Abs(maxAbs * f.scale)
	if f.plain || !(f.compact || a >= 10000) || a >= sciLarge || math.IsNaN(a) {
		return f
	}
	f.compact = true
	f.unit, f.unitName = compactUnit(a)
	return f
}

// minus is the typographic minus sign, as wide as a plus and easier to read than a hyphen.
const minus = "−"

// baseFormat derives the value format from the style and the value columns:
// explicit style wins; otherwise a shared currency becomes the prefix and
// percent columns get a % suffix.
func baseFormat(st *chartspec.Style, cols []*dataset.Column) numFormat {
	f := numFormat{decimals: -1, scale: 1}
	if nf := st.NumberFormat; nf != nil {
		if nf.Decimals != nil && *nf.Decimals >= 0 {
			f.decimals = min(*nf.Decimals, 10)
		}
		f.prefix, f.suffix, f.compact = nf.Prefix, nf.Suffix, nf.Compact
	}
	if len(cols) == 0 {
		return f
	}
	if allYears(cols) {
		f.years, f.plain, f.compact = true, true, false
		return f
	}
	// one chart, one style: from 10,000 up every label is compact (8.2k
	// next to 10.3k, not 8,200)
	if !f.compact {
		for _, c := range cols {
			for _, v := range c.Num {
				if math.Abs(v) >= 10000 && !math.IsInf(v, 0) {
					f.compact = true
					break
				}
			}
		}
	}
	if nf := st.NumberFormat; nf != nil && (nf.Prefix != "" || nf.Suffix != "") {
		return f
	}
	cur, pct := cols[0].Currency, cols[0].Percent
	for _, c := range cols[1:] {
		if c.Currency != cur {
			cur = ""
		}
		pct = pct && c.Percent
	}
	f.prefix = cur
	if pct {
		f.suffix = "%"
	}
	return f
}

// withTickMode applies an axis tickFormat ("auto", "number", "compact",
// "percent") to a value format. percent treats values as fractions
// (0.12 → 12%) unless the data was written as percentages.
func (f numFormat) withTickMode(mode string) numFormat {
	switch mode {
	case "number":
		f.plain, f.compact = true, false
	case "compact":
		f.compact, f.plain = true, false
	case "percent":
		if f.suffix != "%" {
			f.scale = 100
			f.suffix = "%"
		}
		f.prefix = ""
	}
	return f
}

// compactUnit picks the k/M/B/T unit for a magnitude.
func compactUnit(a float64) (float64, string) {
	switch {
	case a >= 1e12:
		return 1e12, "T"
	case a >= 1e9:
		return 1e9, "B"
	case a >= 1e6:
		return 1e6, "M"
	case a >= 1e3:
		return 1e3, "k"
	}
	return 1, ""
}

// Scientific notation takes over where digits stop telling values apart
// in a label's width: from a thousand trillion up (1.5e15, not 1,500T) and
// below a hundred-millionth (2.5e−9, not 0.0000000025), in every number
// mode, so that any finite value has a label of a few characters.
const (
	sciLarge = 1e15
	sciSmall = 1e-8
)

// tickFormat formats the ticks of one axis alike: the same unit and the same
// number of decimals on every tick.
type tickFormat struct {
	base     numFormat
	unit     float64
	unitName string
	decimals int
	// perTick formats each tick on its own (log axes).
	perTick bool
	// sci writes ticks in scientific notation with as many mantissa digits
	// as tell a tick from the next: down to stepExp, the step's power of ten.
	sci     bool
	stepExp int
}

// newTickFormat chooses unit and decimals from the tick step and the largest tick.
func newTickFormat(base numFormat, ticks []float64, step float64) tickFormat {
	tf := tickFormat{base: base, unit: 1}
	maxAbs := 0.0
	for _, t := range ticks {
		maxAbs = math.Max(maxAbs, math.Abs(t*base.scale))
	}
	if st := step * base.scale; maxAbs >= sciLarge || (st > 0 && st < sciSmall) {
		tf.sci = true
		tf.stepExp = decade(st)
		return tf
	}
	switch {
	case base.unit > 0:
		tf.unit, tf.unitName = base.unit, base.unitName
	case base.compact || (!base.plain && maxAbs >= 10000):
		tf.unit, tf.unitName = compactUnit(maxAbs)
	}
	s := step * base.scale / tf.unit
	if s > 0 && s < 1 {
		tf.decimals = min(int(math.Ceil(-math.Log10(s)-1e-9)), 8)
	}
	// fixed decimals may add precision, never hide what tells ticks apart
	tf.decimals = max(tf.decimals, base.decimals)
	return tf
}

// appendTick formats one tick value.
// Zero is always plain "0"; compact ticks drop trailing zeros (0.5M, 1M).
func (tf tickFormat) appendTick(b []byte, v float64) []byte {
	if tf.base.years {
		return appendYear(b, v, tf.base.prefix, tf.base.suffix)
	}
	if tf.perTick {
		return appendValue(b, v, tf.base)
	}
	v *= tf.base.scale
	switch {
	case v == 0:
		return appendNumber(b, 0, 0, tf.base.prefix, tf.base.suffix)
	case tf.sci:
		return appendSci(b, v, min(max(decade(v)-tf.stepExp, 0), 15), true, tf.base.prefix, tf.base.suffix)
	case tf.unitName != "":
		return appendTrimmed(b, v/tf.unit, tf.decimals, tf.base.prefix, tf.unitName+tf.base.suffix)
	}
	return appendNumber(b, v/tf.unit, tf.decimals, tf.base.prefix, tf.unitName+tf.base.suffix)
}

// appendValue formats a data value for a label: compact from 10,000 up
// (4.2M), whole numbers from 1,000, up to two decimals from 1, and three
// significant digits below 1.
func appendValue(b []byte, v float64, f numFormat) []byte {
	if f.years {
		return appendYear(b, v, f.prefix, f.suffix)
	}
	v *= f.scale
	a := math.Abs(v)
	if a >= sciLarge || (a > 0 && a < sciSmall) {
		if f.decimals >= 0 {
			return appendSci(b, v, f.decimals, false, f.prefix, f.suffix)
		}
		return appendSci(b, v, 2, true, f.prefix, f.suffix)
	}
	if f.compact || (!f.plain && a >= 10000) {
		unit, name := compactUnit(a)
		if f.unit > 0 {
			unit, name = f.unit, f.unitName
		}
		s := v / unit
		d := f.decimals
		if d < 0 {
			d = 1
			switch as := math.Abs(s); {
			case as >= 100:
				d = 0
			case as > 0 && as < 0.1:
				d = 2
			}
			return appendTrimmed(b, s, d, f.prefix, name+f.suffix)
		}
		return appendNumber(b, s, d, f.prefix, name+f.suffix)
	}
	if f.decimals >= 0 {
		return appendNumber(b, v, f.decimals, f.prefix, f.suffix)
	}
	switch {
	case a >= 1000 || a == 0:
		return appendNumber(b, v, 0, f.prefix, f.suffix)
	case a >= 1:
		return appendTrimmed(b, v, 2, f.prefix, f.suffix)
	}
	d := min(int(math.Ceil(-math.Log10(a)))+2, 10)
	return appendTrimmed(b, v, d, f.prefix, f.suffix)
}

// decade is the power of ten of |v|'s leading digit (2 for 250, −3 for
// 0.004), with a little tolerance so an exact power is not taken one low.
func decade(v float64) int {
	return int(math.Floor(math.Log10(math.Abs(v)) + 1e-9))
}

// appendSci writes v as prefix, sign, mantissa with the given decimals
// (trailing zeros dropped when trim), "e", exponent and suffix: 1.5e98,
// −2e−300. The exponent's sign is the same minus as the number's.
func appendSci(b []byte, v float64, decimals int, trim bool, prefix, suffix string) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "–"...)
	}
	var tmp [40]byte
	d := strconv.AppendFloat(tmp[:0], math.Abs(v), 'e', decimals, 64)
	e := bytes.IndexByte(d, 'e')
	mant, exp := d[:e], d[e+1:]
	if trim && bytes.IndexByte(mant, '.') >= 0 {
		mant = bytes.TrimRight(mant, "0")
		mant = bytes.TrimSuffix(mant, []byte("."))
	}
	if v < 0 {
		b = append(b, minus...)
	}
	b = append(b, prefix...)
	b = append(b, mant...)
	b = append(b, 'e')
	if exp[0] == '-' {
		b = append(b, minus...)
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	if len(exp) == 0 {
		exp = append(exp, '0')
	}
	b = append(b, exp...)
	return append(b, suffix...)
}

// appendTrimmed formats like appendNumber and drops trailing fractional zeros.
func appendTrimmed(b []byte, v float64, decimals int, prefix, suffix string) []byte {
	var tmp [48]byte
	digits := strconv.AppendFloat(tmp[:0], v, 'f', decimals, 64)
	for decimals > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		decimals--
	}
	return appendNumber(b, v, decimals, prefix, suffix)
}

// appendNumber writes prefix, sign, digits with thousands separators, a
// fixed number of decimals and suffix; −0 is written 0.
func appendNumber(b []byte, v float64, decimals int, prefix, suffix string) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "–"...)
	}
	var tmp [48]byte
	digits := strconv.AppendFloat(tmp[:0], math.Abs(v), 'f', decimals, 64)
	neg := v < 0
	if neg {
		neg = false
		for _, c := range digits {
			if c >= '1' && c <= '9' {
				neg = true
				break
			}
		}
	}
	if neg {
		b = append(b, minus...)
	}
	b = append(b, prefix...)
	intLen := len(digits)
	for i, c := range digits {
		if c == '.' {
			intLen = i
			break
		}
	}
	for i := 0; i < intLen; i++ {
		if i > 0 && (intLen-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, digits[i])
	}
	b = append(b, digits[intLen:]...)
	return append(b, suffix...)
}

// formatValue is appendValue as a string, for descriptions.
func formatValue(v float64, f numFormat) string {
	var tmp [64]byte
	return string(appendValue(tmp[:0], v, f))
}

// monthNames are the short English month names used on date axes.
func monthName(m time.Month) string {
	return [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}[m-1]
}

// dateLabels turns date cells into category labels labelled by their range:
// the year is written on the first label and where it changes, so a monthly
// axis reads "Jan 2024, Feb, Mar, …, Jan 2025". One instant has one label
// wherever it appears (a heatmap row repeats it), and two instants never
// share one: both get the year when their short labels would meet.
func dateLabels(c *dataset.Column) []string {
	out := make([]string, len(c.Num))
	type label struct {
		short, long string
		withYear    bool
	}
	labels := make(map[float64]*label, min(len(c.Num), 64))
	order := make([]float64, 0, min(len(c.Num), 64))
	prevYear := math.MinInt
	unit := displayUnit(c)
	for _, ms := range c.Num {
		if math.IsNaN(ms) || labels[ms] != nil {
			continue
		}
		tm := time.UnixMilli(int64(ms)).UTC()
		short, long := dateLabel(unit, tm)
		labels[ms] = &label{short: short, long: long, withYear: tm.Year() != prevYear}
		order = append(order, ms)
		prevYear = tm.Year()
	}
	final := func(l *label) string {
		if l.withYear {
			return l.long
		}
		return l.short
	}
	for range 2 { // long labels are unique: a second round settles it
		count := make(map[string]int, len(order))
		for _, ms := range order {
			count[final(labels[ms])]++
		}
		for _, ms := range order {
			if l := labels[ms]; count[final(l)] > 1 {
				l.withYear = true
			}
		}
	}
	for i, ms := range c.Num {
		if l := labels[ms]; l != nil {
			out[i] = l.short
			if l.withYear {
				out[i] = l.long
			}
		}
	}
	return out
}

// dateLabel is one instant's category label at a display unit (see
// displayUnit) without and with its year: "Mar" and "Mar 2024" for months,
// "Mar 5" and "Mar 5, 2024" for days, "Mar 5 14:30" and "Mar 5, 2024 14:30"
// for times (the clock as the data wrote it).
func dateLabel(unit string, tm time.Time) (short, long string) {
	y := strconv.Itoa(tm.Year())
	switch unit {
	case dataset.UnitYear:
		return y, y
	case dataset.UnitQuarter:
		q := "Q" + strconv.Itoa((int(tm.Month())+2)/3)
		return q, q + " " + y
	case dataset.UnitMonth:
		return monthName(tm.Month()), monthName(tm.Month()) + " " + y
	case dataset.UnitTime:
		d := monthName(tm.Month()) + " " + strconv.Itoa(tm.Day())
		clock := tm.Format("15:04")
		if tm.Second() != 0 || tm.Nanosecond() != 0 {
			clock = tm.Format("15:04:05")
		}
		return d + " " + clock, d + ", " + y + " " + clock
	}
	d := monthName(tm.Month()) + " " + strconv.Itoa(tm.Day())
	return d, d + ", " + y
}

// displayUnit is the unit a date column reads in on a chart: its own,
// except that times all at midnight read as days, and days all on the
// 1st of a month as months ("Jan 2024", not "Jan 1, 2024"), or all on
// the 1st of January as years, once two or more different dates show the
// pattern.
func displayUnit(c *dataset.Column) string {
	unit := c.DateUnit
	if unit != dataset.UnitTime && unit != dataset.UnitDay && unit != "" {
		return unit
	}
	midnight, firsts, newYears := true, true, true
	var first float64
	distinct := 0
	for _, ms := range c.Num {
		if math.IsNaN(ms) {
			continue
		}
		if distinct == 0 {
			first, distinct = ms, 1
		} else if distinct == 1 && ms != first {
			distinct = 2
		}
		if math.Mod(ms, 86_400_000) != 0 {
			midnight = false
			break
		}
		tm := time.UnixMilli(int64(ms)).UTC()
		firsts = firsts && tm.Day() == 1
		newYears = newYears && tm.Day() == 1 && tm.Month() == time.January
	}
	switch {
	case !midnight:
		return dataset.UnitTime
	case distinct < 2:
		if unit == dataset.UnitTime {
			return dataset.UnitDay
		}
		return unit
	case newYears:
		return dataset.UnitYear
	case firsts:
		return dataset.UnitMonth
	}
	return dataset.UnitDay
}

// columnLabels is the display text of every cell of a category column.
func columnLabels(c *dataset.Column) []string {
	switch c.Kind {
	case dataset.Text:
		return c.Text
	case dataset.Date:
		return dateLabels(c)
	}
	out := make([]string, len(c.Num))
	for i := range c.Num {
		out[i] = c.Format(i)
		if strings.HasPrefix(out[i], "-") {
			out[i] = minus + out[i][1:] // −0.9, as on the value axes and legends
		}
	}
	return out
}

// formatDate writes one instant for descriptions at a unit (a column's
// displayUnit): "2024", "Q2 2024", "Mar 2024", "Mar 5, 2024", "Mar 5,
// 2024 14:30".
func formatDate(ms float64, unit string) string {
	_, long := dateLabel(unit, time.UnixMilli(int64(ms)).UTC())
	return long
}

// currencyCodes are the ISO codes a column name may give its unit in,
// written as the symbol people read ("GDP (USD)" → "$5M").
var currencyCodes = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

// scaleWords say the values are counted in thousands, millions, …: they
// follow the number ("$25 trillion", "€50m").
var scaleWords = map[string]string{
	"k": "k", "thousand": "thousand", "thousands": "thousand",
	"m": "m", "mn": "m", "million": "million", "millions": "million",
	"bn": "bn", "billion": "billion", "billions": "billion",
	"tn": "tn", "trillion": "trillion", "trillions": "trillion",
}

// shortScale is the short form of a scale after a currency, as desks
// write money: "$30tn", "€5bn", "£2m".
var shortScale = map[string]string{"k": "k", "thousand": "k", "m": "m", "million": "m", "bn": "bn", "billion": "bn", "tn": "tn", "trillion": "tn"}

// unitWords are the units of measure a column name's brackets may hold.
var unitWords = map[string]bool{
	"mm": true, "cm": true, "m": true, "km": true, "ft": true, "mi": true,
	"mg": true, "g": true, "kg": true, "t": true, "lb": true, "lbs": true, "oz": true,
	"ms": true, "s": true, "sec": true, "min": true, "mins": true, "minutes": true, "h": true, "hrs": true,
	"hours": true, "days": true, "weeks": true, "months": true, "years": true,
	"°c": true, "°f": true, "km/h": true, "mph": true, "m/s": true, "mpg": true,
	"w": true, "kw": true, "mw": true, "gw": true, "wh": true, "kwh": true, "mwh": true, "gwh": true, "twh": true,
	"j": true, "kj": true, "kcal": true, "l": true, "ml": true, "m²": true, "km²": true, "m³": true, "ha": true,
	"ppm": true, "ppb": true, "db": true, "pp": true, "points": true, "pts": true, "bpm": true, "rpm": true,
	"people": true, "persons": true, "users": true, "visits": true, "votes": true, "tonnes": true, "tons": true,
	"chf": true, "cny": true, "inr": true, "cad": true, "aud": true,
}

// scaledUnit reports a unit suffix that starts with a scale ("bn", " million").
func scaledUnit(suffix string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(suffix), " ")
	_, ok := scaleWords[w]
	return ok && w != ""
}

// nameUnit reads the unit a column's name gives in its last brackets or
// after a final " in ": "Revenue (€)", "Share (%)", "Price in $", "Speed
// (km/h)", "GDP (USD trillion)", "Cost (€m)". A currency goes before the
// number ("$5M"), a percent sign right after it ("40%"), a scale of money
// in its short form right after it ("$30tn"), any other unit after a
// space ("120 km/h", "8 billion"). Brackets that
// hold no known unit (a year, "est.", a note of three words) give none.
func nameUnit(name string) (prefix, suffix string) {
	name = strings.TrimSpace(name)
	var inner string
	if n := len(name); n > 0 && (name[n-1] == ')' || name[n-1] == ']') {
		open := "("
		if name[n-1] == ']' {
			open = "["
		}
		i := strings.LastIndex(name, open)
		if i <= 0 || name[i-1] != ' ' {
			return "", "" // "Order(s)" is no unit
		}
		inner = name[i+1 : n-1]
	} else {
		for i := len(name) - 4; i > 0; i-- {
			if strings.EqualFold(name[i:i+4], " in ") {
				inner = name[i+4:]
				break
			}
		}
	}
	currency := func(w string) string {
		switch w {
		case "$", "€", "£", "¥", "₹", "₩":
			return w
		}
		return currencyCodes[w]
	}
	after := func(w string) string { // a unit after the number
		if sc, ok := scaleWords[strings.ToLower(w)]; ok {
			if len(sc) <= 2 {
				return sc // 25bn
			}
			return " " + sc
		}
		if !unitWords[strings.ToLower(w)] {
			return ""
		}
		if strings.HasPrefix(w, "°") {
			return w // 30°C
		}
		return " " + w
	}
	switch words := strings.Fields(inner); len(words) {
	case 1:
		w := words[0]
		if w == "%" || w == "‰" {
			return "", w
		}
		if cur := currency(w); cur != "" {
			return cur, ""
		}
		if r, n := utf8.DecodeRuneInString(w); n < len(w) && currency(string(r)) != "" {
			if sc, ok := scaleWords[strings.ToLower(w[n:])]; ok && len(sc) <= 2 {
				return string(r), sc // €50m
			}
			return "", ""
		}
		return "", after(w)
	case 2:
		if cur := currency(words[0]); cur != "" {
			// money counted in a scale takes its short form: "$30tn"
			if sc, ok := scaleWords[strings.ToLower(words[1])]; ok {
				return cur, shortScale[sc]
			}
			return "", ""
		}
		if _, ok := scaleWords[strings.ToLower(words[0])]; ok && len(words[0]) > 2 {
			if a := after(words[1]); a != "" {
				return "", after(words[0]) + a // 5 million people
			}
		}
	}
	return "", ""
}
