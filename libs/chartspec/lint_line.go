package chartspec

import (
	"slices"
	"strings"
	"unicode"
)

// CheckLineUnordered is the lint check of a line drawn across text
// categories that have no order of their own (25 products): the slopes
// between neighbours then mean nothing, and bars compare them.
const CheckLineUnordered = "line-unordered-categories"

// minUnordered is the fewest distinct categories the check speaks for: a
// line across three names is a small slip, across five a wrong chart.
const minUnordered = 5

// orderWords are words of category names that follow an order of their
// own: months, weekdays, rating scales and stages.
var orderWords = [...]string{
	"jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
	"aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december",
	"mon", "monday", "tue", "tues", "tuesday", "wed", "wednesday", "thu", "thurs", "thursday", "fri", "friday",
	"sat", "saturday", "sun", "sunday",
	"agree", "disagree", "neutral", "satisfied", "dissatisfied", "likely", "unlikely", "never", "rarely", "sometimes",
	"often", "always", "poor", "fair", "good", "excellent", "low", "medium", "high", "none", "mild", "moderate",
	"severe", "before", "after", "start", "end", "stage", "phase", "step", "round", "first", "second", "third", "last",
	"morning", "noon", "afternoon", "evening", "night", "spring", "summer", "autumn", "fall", "winter",
}

// ordered reports a category name that carries an order: a digit ("Q3",
// "18–24", "Week 2") or one of orderWords.
func ordered(name string) bool {
	if strings.IndexFunc(name, unicode.IsDigit) >= 0 {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if slices.Contains(orderWords[:], w) {
			return true
		}
	}
	return false
}

// lineCategories warns of a line across text categories of no order: at
// least minUnordered distinct names, none of which carries an order.
func (c *lintCtx) lineCategories() {
	if c.spec.Type != "line" {
		return
	}
	x := c.col("x")
	if x == nil || x.Text == nil {
		return
	}
	var names []string
	for _, v := range x.Text[:c.t.Rows] {
		if v == "" || slices.Contains(names, v) {
			continue
		}
		if ordered(v) {
			return
		}
		names = append(names, v)
	}
	if len(names) < minUnordered {
		return
	}
	c.add(CheckLineUnordered, Warn, `The line runs across %d categories of %s (%s, %s, %s, …) that follow no order of their own, so the slopes between neighbours mean nothing. Compare them as bars: {"op":"setType","type":"bar"}; or map x to the date or number column the values change along with setMapping.`,
		len(names), colLabel(x), truncate(names[0], 30), truncate(names[1], 30), truncate(names[2], 30))
}

// unorderedAbout is the Checks() line of CheckLineUnordered.
const unorderedAbout = "a line across 5 or more text categories with no order of their own (products, names); setType bar fixes it"
