package site

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"chartd.dev/charts"
	"chartd.dev/libs/store"
)

// The chart list's paging and scanning bounds.
const (
	// chartsPerPage is one page of the chart list.
	chartsPerPage = 50
)

// The chart list's sort orders (?sort=).
const (
	sortUpdated = "updated" // most recently changed first, the default
	sortOldest  = "oldest"  // least recently changed first
)

// chartQuery is what the chart list shows: a search in the titles, an
// order and a page (1-based), read from the query string.
type chartQuery struct {
	Q    string
	Sort string
	Page int
}

// parseChartQuery reads ?q=&sort=&page=; an unknown sort or a page that
// is not a positive number is refused, so a link never shows something
// other than what it says.
func parseChartQuery(v url.Values) (chartQuery, error) {
	q := chartQuery{Q: strings.TrimSpace(v.Get("q")), Sort: v.Get("sort"), Page: 1}
	switch q.Sort {
	case "":
		q.Sort = sortUpdated
	case sortUpdated, sortOldest:
	default:
		return chartQuery{}, fmt.Errorf("sort %q: use updated or oldest", q.Sort)
	}
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return chartQuery{}, fmt.Errorf("page %q: use a number from 1", p)
		}
		q.Page = n
	}
	if len(q.Q) > 200 {
		q.Q = q.Q[:200]
	}
	return q, nil
}

// Link is the list's URL for this query on another page.
func (q chartQuery) Link(page int) string {
	v := url.Values{}
	if q.Q != "" {
		v.Set("q", q.Q)
	}
	if q.Sort != sortUpdated {
		v.Set("sort", q.Sort)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/charts"
	}
	return "/charts?" + v.Encode()
}

// chartPage is one page of the list.
type chartPage struct {
	Charts []store.Chart
	// More is set when a later page has charts.
	More bool
	// First is the 1-based position of the page's first chart.
	First int
}

// finder answers one page of the account's charts matching a search,
// as store.Charts.FindCharts does.
type finder func(ctx context.Context, q store.ChartSearch) ([]store.Chart, bool, error)

// listCharts answers the page q asks for; the database searches, orders
// and pages, so no page reads more than its own charts.
func listCharts(ctx context.Context, find finder, q chartQuery) (chartPage, error) {
	skip := (q.Page - 1) * chartsPerPage
	found, more, err := find(ctx, store.ChartSearch{Text: q.Q, Oldest: q.Sort == sortOldest, Offset: skip, Limit: chartsPerPage})
	if err != nil {
		return chartPage{}, err
	}
	return chartPage{Charts: found, More: more, First: skip + 1}, nil
}

// typeName is a chart type as people read it ("Bar chart", "Sankey
// diagram"): its label in the catalog (charts/types.json), the one table
// of names that the API's list_chart_types, the editor, the new-chart
// page, the home page and the chart list all show.
type typeName struct {
	Type, Label string
}

// typeNames are the catalog's chart types with their names, in its order.
func typeNames(cat *charts.Catalog) []typeName {
	var out []typeName
	for _, t := range cat.Types() {
		out = append(out, typeName{Type: t.Type, Label: t.Label})
	}
	return out
}

// labelOf answers the name of chart type t among names; a type not among
// them is shown as it is.
func labelOf(names []typeName, t string) string {
	for _, n := range names {
		if n.Type == t {
			return n.Label
		}
	}
	return t
}
