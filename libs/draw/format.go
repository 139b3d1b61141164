package draw

import (
	"bytes"
	"math"
	"slices"
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
	// (compact from ten of the locale's smallest unit up: 10,000 in English).
	compact bool
	plain   bool
	// scale multiplies values first (100 for fractions shown as percent).
	scale float64
	// unit, when above 0, is the compact unit every tick of an axis is
	// written in (1e6 and "M"), fixed by sharedUnit. Value labels ignore
	// it: each states its own value in its own unit.
	unit     float64
	unitName string
	// extra is the number of digits a label set needs beyond the usual to
	// tell its values apart (forLabels).
	extra int
	// set is the one style of a label set (forLabels): its unit and
	// decimals; nil outside a label set (descriptions).
	set *labelStyle
	// loc is the number locale (style.numberFormat.locale); nil is English.
	loc *numLocale
	// years writes values as calendar years, without grouping (appendYear).
	years bool
}

// sharedUnit fixes the compact unit (k, M, B, T) of an axis by the largest
// value of its data, so the ticks never mix 877M with 1.2B below the top.
func (f numFormat) sharedUnit(maxAbs float64) numFormat {
	a := math.Abs(maxAbs * f.scale)
	if f.plain || !(f.compact || a >= f.loc.compactFrom()) || a >= sciLarge || math.IsNaN(a) {
		return f
	}
	f.compact = true
	f.unit, f.unitName = compactUnit(a, f.loc)
	return f
}

// labelStyle is how every label of one set is written (issue 32 item 9):
// in one compact unit, the one of its largest value (so 0.8M beside
// 1.05M, never 800k, as the axis writes it), with one number of decimals
// (11.4k, 12.8k and 6.3k, never 11.4k beside 12.78k and 6.308k). A value
// under a tenth of the unit keeps its own (37.4M, 39k, 800: "0.04M"
// would hide it), and so does a value the decimals would round to 0.
type labelStyle struct {
	unit     float64 // 1 when plain
	unitName string
	decimals int
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
		f.prefix, f.suffix = nf.Prefix, nf.Suffix
		if nf.Compact != nil {
			f.compact, f.plain = *nf.Compact, !*nf.Compact
		}
		f.loc = newNumLocale(nf.Locale)
	}
	if len(cols) == 0 {
		return f
	}
	if allYears(cols) {
		f.years, f.plain, f.compact = true, true, false
		return f
	}
	// one chart, one style: from ten of the locale's smallest compact
	// unit up (10,000 in English, 10万 in Chinese) every label is compact
	// (8.2k next to 10.3k, not 8,200)
	if !f.compact && !f.plain {
		for _, c := range cols {
			for _, v := range c.Num {
				if math.Abs(v) >= f.loc.compactFrom() && !math.IsInf(v, 0) {
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

// compactUnit picks the compact unit for a magnitude: the locale's from
// CLDR (k/M/B/T in English, " Mio."/" Mrd." in German, 万/亿 in Chinese);
// 1 and "" below the smallest.
func compactUnit(a float64, loc *numLocale) (float64, string) {
	units := loc.compactUnits()
	for i := len(units) - 1; i >= 0; i-- {
		if a >= units[i].size {
			return units[i].size, units[i].name
		}
	}
	return 1, ""
}

// nextUnit is the compact unit after size (1B after 1M), or 0 at the top.
func nextUnit(size float64, loc *numLocale) (float64, string) {
	for _, u := range loc.compactUnits() {
		if u.size > size {
			return u.size, u.name
		}
	}
	return 0, ""
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

// newTickFormat chooses unit and decimals from the tick step and the largest
// tick. Ticks take the decimals their step needs: a fixed number of decimals
// (style.numberFormat) is for values, and pads ticks only when the step has
// decimals of its own ($1.50, $2.00), never whole ticks ("2,000", not
// "2,000.00").
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
	case base.compact || (!base.plain && maxAbs >= base.loc.compactFrom()):
		tf.unit, tf.unitName = compactUnit(maxAbs, base.loc)
	}
	s := step * base.scale / tf.unit
	if s > 0 && s < 1 {
		tf.decimals = min(int(math.Ceil(-math.Log10(s)-1e-9)), 8)
	}
	if tf.decimals > 0 && tf.unitName == "" {
		tf.decimals = max(tf.decimals, base.decimals)
	}
	return tf
}

// appendTick formats one tick value.
// Zero is always plain "0"; compact ticks drop trailing zeros (0.5M, 1M)
// and stay in the axis's one unit: "800M, 1,000M", never "800M, 1B".
func (tf tickFormat) appendTick(b []byte, v float64) []byte {
	if tf.base.years {
		return appendYear(b, v, tf.base.prefix, tf.base.suffix)
	}
	if tf.perTick {
		return appendValue(b, v, tf.base)
	}
	v *= tf.base.scale
	loc := tf.base.loc
	switch {
	case v == 0:
		return appendNumber(b, 0, 0, tf.base.prefix, tf.base.suffix, loc)
	case tf.sci:
		return appendSci(b, v, min(max(decade(v)-tf.stepExp, 0), 15), true, tf.base.prefix, tf.base.suffix, loc)
	case tf.unitName != "":
		u := v / tf.unit
		return appendNum(b, u, tf.decimals, 0, groupCompact(u, loc), tf.base.prefix, tf.unitName+tf.base.suffix, loc)
	}
	return appendNumber(b, v/tf.unit, tf.decimals, tf.base.prefix, tf.unitName+tf.base.suffix, loc)
}

// forLabels is the format of one set of value labels (every bar, every
// point): like f, with as many more digits as it takes for two different
// values of the set never to read alike (China 1.41B and India 1.43B, not
// "1B" twice). Where two values read alike, they are neighbours in sorted
// order, so only neighbours are compared.
func (f numFormat) forLabels(sets ...[]float64) numFormat {
	n := 0
	for _, s := range sets {
		n += len(s)
	}
	vals := make([]float64, 0, n)
	for _, s := range sets {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	var ba, bb [64]byte
	for f.extra = 0; f.extra < 12; f.extra++ {
		f.set = f.labelStyle(vals)
		clash := false
		for i := 1; i < len(vals) && !clash; i++ {
			a, b := vals[i-1], vals[i]
			// automatic digits keep three significant digits or more, so
			// values more than 1 % apart cannot read alike
			if f.decimals < 0 && b-a > 0.011*math.Max(math.Abs(a), math.Abs(b)) {
				continue
			}
			clash = bytes.Equal(appendValue(ba[:0], a, f), appendValue(bb[:0], b, f))
		}
		if !clash {
			break
		}
	}
	return f
}

// labelStyle is the one style of a label set of vals (sorted, finite):
// the unit of its largest magnitude, and the decimals that writes it with
// three significant digits (plus the set's extra), fewer when no value
// needs them all (1M, 2M, not 1.00M). nil with fixed decimals, which
// are one style already, and for years.
func (f numFormat) labelStyle(vals []float64) *labelStyle {
	if f.decimals >= 0 || f.years || len(vals) == 0 {
		return nil
	}
	maxAbs := math.Max(math.Abs(vals[0]), math.Abs(vals[len(vals)-1])) * f.scale
	if maxAbs >= sciLarge || maxAbs == 0 {
		return nil
	}
	st := &labelStyle{unit: 1}
	if f.compact || (!f.plain && maxAbs >= f.loc.compactFrom()) {
		st.unit, st.unitName = compactUnit(maxAbs, f.loc)
	}
	d := labelDecimals(maxAbs/st.unit, f, st.unitName != "")
	if st.unitName != "" || f.compact {
		if next, nextName := nextUnit(st.unit, f.loc); next > 0 && roundTo(maxAbs/st.unit, d)*st.unit >= next {
			st.unit, st.unitName = next, nextName
			d = labelDecimals(maxAbs/st.unit, f, true)
		}
	}
	for _, v := range vals {
		a := math.Abs(v * f.scale)
		x := roundTo(a/st.unit, d)
		if x == 0 || (st.unitName != "" && a < 0.1*st.unit) {
			continue
		}
		k := 0
		for k < d && math.Abs(roundTo(x, k)-x) > 1e-9*math.Max(1, x) {
			k++
		}
		st.decimals = max(st.decimals, k)
		if st.decimals == d {
			break
		}
	}
	return st
}

// shared reports whether a label of magnitude a is written in the set's
// style: not under a tenth of a compact unit, and not rounded to 0.
func (st *labelStyle) shared(a float64) bool {
	if a == 0 {
		return true
	}
	if st.unitName != "" && a < 0.1*st.unit {
		return false
	}
	return roundTo(a/st.unit, st.decimals) != 0
}

// groupCompact reports whether a number written in a compact unit is
// grouped: from 1,000 where units step by a thousand (1,000M, as CLDR's
// English groups), from five digits where they step by ten thousand
// (2487万, CLDR's minimum grouping for the myriad forms).
func groupCompact(u float64, loc *numLocale) bool {
	for _, unit := range loc.compactUnits() {
		if unit.size == 1e4 {
			return math.Abs(u) >= 10000
		}
	}
	return math.Abs(u) >= 1000
}

// appendValue formats a data value for a label, in its own compact unit
// when the format is compact (37.4M, 39k, 800 in one set), with three
// significant digits in that unit; plain values are whole from 1,000, have
// up to two decimals from 1 and three significant digits below 1. A fixed
// number of decimals is kept, and a value that would round to 0 gets the
// digits that show it is not (0.004, never 0).
func appendValue(b []byte, v float64, f numFormat) []byte {
	if f.years {
		return appendYear(b, v, f.prefix, f.suffix)
	}
	v *= f.scale
	a := math.Abs(v)
	loc := f.loc
	if a >= sciLarge || (a > 0 && a < sciSmall) {
		if f.decimals >= 0 {
			return appendSci(b, v, f.decimals+f.extra, false, f.prefix, f.suffix, loc)
		}
		return appendSci(b, v, 2+f.extra, true, f.prefix, f.suffix, loc)
	}
	if st := f.set; st != nil && st.shared(a) {
		if a == 0 {
			return appendNum(b, 0, 0, 0, true, f.prefix, f.suffix, loc) // 0, as on the axis
		}
		u := v / st.unit
		group := st.unitName == "" || groupCompact(u, loc)
		return appendNum(b, u, st.decimals, st.decimals, group, f.prefix, st.unitName+f.suffix, loc)
	}
	unit, name := 1.0, ""
	if f.compact || (!f.plain && a >= f.loc.compactFrom()) {
		unit, name = compactUnit(a, loc)
	}
	d := labelDecimals(a/unit, f, name != "")
	// 999,960 is "1M", not "1,000k"
	if f.compact || name != "" {
		if next, nextName := nextUnit(unit, loc); next > 0 && roundTo(a/unit, d)*unit >= next {
			unit, name = next, nextName
			d = labelDecimals(a/unit, f, true)
		}
	}
	s := v / unit
	// a compact number is grouped from five digits (CLDR's minimum
	// grouping for compact forms): "2487万", not "2,487万"
	group := name == "" || math.Abs(roundTo(s, d)) >= 10000
	keep := d // fixed decimals are kept, automatic ones trimmed
	if f.decimals < 0 {
		keep = 0
	} else if f.extra > 0 {
		keep = min(f.decimals, d)
	}
	return appendNum(b, s, d, keep, group, f.prefix, name+f.suffix, loc)
}

// labelDecimals is the number of decimals a label writes a (≥ 0, already
// in its compact unit when inUnit) with: the fixed decimals, or automatic
// ones, plus the set's extra digits, and always enough to show a non-zero
// value is not 0.
func labelDecimals(a float64, f numFormat, inUnit bool) int {
	d := f.decimals
	if d < 0 {
		switch {
		case a == 0 || a >= 1000:
			d = 0
		case a >= 1 && inUnit:
			d = max(0, 2-decade(a)) // three significant digits: 1.41B, 37.4M, 450B
		case a >= 1:
			d = 2
		default:
			d = decade(a)*-1 + 2
		}
	}
	d += f.extra
	if a > 0 && roundTo(a, d) == 0 {
		d = -decade(a) + max(0, f.extra)
	}
	return min(d, 15)
}

// roundTo rounds a to d decimals.
func roundTo(a float64, d int) float64 {
	p := pow10(d)
	return math.Round(a*p) / p
}

// pow10 is 10^d, from a table for the decimals labels use (math.Pow was a
// tenth of a 30-bar chart's drawing time).
func pow10(d int) float64 {
	if d >= 0 && d < len(powersOfTen) {
		return powersOfTen[d]
	}
	return math.Pow(10, float64(d))
}

// powersOfTen are 10^0 … 10^15, exact in a float64.
var powersOfTen = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// decade is the power of ten of |v|'s leading digit (2 for 250, −3 for
// 0.004), with a little tolerance so an exact power is not taken one low.
func decade(v float64) int {
	return int(math.Floor(math.Log10(math.Abs(v)) + 1e-9))
}

// appendSci writes v as prefix, sign, mantissa with the given decimals
// (trailing zeros dropped when trim), "e", exponent and suffix: 1.5e98,
// −2e−300. The exponent's sign is the same minus as the number's.
func appendSci(b []byte, v float64, decimals int, trim bool, prefix, suffix string, loc *numLocale) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "–"...)
	}
	var tmp [40]byte
	d := strconv.AppendFloat(tmp[:0], math.Abs(v), 'e', min(decimals, 15), 64)
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
	b = loc.appendDigits(b, mant)
	b = append(b, 'e')
	if exp[0] == '-' {
		b = append(b, minus...)
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	if len(exp) == 0 {
		exp = append(exp, '0')
	}
	b = loc.appendDigits(b, exp)
	return append(b, suffix...)
}

// appendTrimmed formats like appendNumber and drops trailing fractional zeros.
func appendTrimmed(b []byte, v float64, decimals int, prefix, suffix string, loc *numLocale) []byte {
	return appendNum(b, v, decimals, 0, true, prefix, suffix, loc)
}

// appendNumber writes prefix, sign, digits with the locale's group marks, a
// fixed number of decimals and suffix; −0 is written 0.
func appendNumber(b []byte, v float64, decimals int, prefix, suffix string, loc *numLocale) []byte {
	return appendNum(b, v, decimals, decimals, true, prefix, suffix, loc)
}

// appendNum writes prefix, sign, digits and suffix: v rounded half away
// from zero to decimals (2.5 → 3, as desks and JavaScript's toFixed round,
// not to even), trailing fractional zeros dropped down to keep decimals,
// the integer part grouped when group is set; −0 is written 0.
func appendNum(b []byte, v float64, decimals, keep int, group bool, prefix, suffix string, loc *numLocale) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "–"...)
	}
	decimals = min(max(decimals, 0), 15)
	if p := pow10(decimals); math.Abs(v)*p < 1e15 {
		v = math.Round(v*p) / p
	}
	var tmp [48]byte
	digits := strconv.AppendFloat(tmp[:0], math.Abs(v), 'f', decimals, 64)
	for decimals > keep && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		decimals--
	}
	digits = bytes.TrimSuffix(digits, []byte("."))
	neg := false
	if v < 0 {
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
	if group {
		b = loc.appendDigits(b, digits)
	} else {
		b = loc.ungrouped().appendDigits(b, digits)
	}
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
