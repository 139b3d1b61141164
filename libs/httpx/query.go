package httpx

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"chartd.dev/libs/apierr"
)

// CheckQuery refuses query parameters outside allowed and parameters given
// twice, naming them and listing what is allowed.
func CheckQuery(r *http.Request, allowed ...string) error {
	q := r.URL.Query()
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
				break
			}
		}
		if !ok {
			if len(allowed) == 0 {
				return apierr.New(apierr.InvalidRequest, "unknown query parameter %q; this endpoint takes none", k)
			}
			return apierr.New(apierr.InvalidRequest, "unknown query parameter %q; allowed: %s", k, strings.Join(allowed, ", "))
		}
		if len(q[k]) > 1 {
			return apierr.New(apierr.InvalidRequest, "query parameter %q is given %d times; give it once", k, len(q[k]))
		}
	}
	return nil
}

// QueryInt reads an optional integer query parameter within [lo, hi].
func QueryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		if r.URL.Query().Has(name) {
			return 0, apierr.New(apierr.InvalidRequest, "query parameter %q is empty; give an integer from %d to %d", name, lo, hi)
		}
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, apierr.New(apierr.InvalidRequest, "query parameter %q must be an integer from %d to %d, not %q", name, lo, hi, s)
	}
	return n, nil
}
