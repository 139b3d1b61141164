package site

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"chartd.dev/libs/store"
)

// The chart list's paging and scanning bounds.
const (
	// chartsPerPage is one page of the chart list.
	chartsPerPage = 50
	// listBatch is one read of the account's charts, the most list_charts
	// answers at once.
	listBatch = 100
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

// lister reads one batch of an account's charts, most recently changed
// first, as list_charts does (limit and cursor).
type lister func(ctx context.Context, limit int, cursor string) ([]store.Chart, string, error)

// listCharts answers the page q asks for. The store (like list_charts,
// whose contract has only limit and cursor) lists most recently changed
// first, so the search and the other order are made here: the charts are
// read in batches, filtered by title, and the read stops once the page
// and one chart past it are known (the newest-first order), or at the end
// of the list (oldest first, which needs all of it).
func listCharts(ctx context.Context, list lister, q chartQuery) (chartPage, error) {
	skip := (q.Page - 1) * chartsPerPage
	want := skip + chartsPerPage + 1
	var matched []store.Chart
	cursor := ""
	for {
		batch, next, err := list(ctx, listBatch, cursor)
		if err != nil {
			return chartPage{}, err
		}
		for _, c := range batch {
			if matches(c, q.Q) {
				matched = append(matched, c)
			}
		}
		if next == "" || (q.Sort == sortUpdated && len(matched) >= want) {
			break
		}
		cursor = next
	}
	if q.Sort == sortOldest {
		slices.Reverse(matched)
	}
	if skip >= len(matched) {
		return chartPage{First: skip + 1}, nil
	}
	end := min(skip+chartsPerPage, len(matched))
	return chartPage{Charts: matched[skip:end], More: len(matched) > end, First: skip + 1}, nil
}

// matches reports whether the chart's name or drawn title holds search,
// ignoring case; an empty search matches every chart.
func matches(c store.Chart, search string) bool {
	if search == "" {
		return true
	}
	s := strings.ToLower(search)
	if strings.Contains(strings.ToLower(c.Name), s) {
		return true
	}
	var spec struct {
		Style struct {
			Title struct {
				Text string `json:"text"`
			} `json:"title"`
		} `json:"style"`
	}
	if json.Unmarshal(c.Spec, &spec) != nil {
		return false
	}
	return strings.Contains(strings.ToLower(spec.Style.Title.Text), s)
}
