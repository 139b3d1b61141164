package httpx

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"chartd.dev/libs/apierr"
)

// CheckRawQuery refuses a query string that url.Values would read only in
// part: a malformed percent escape (?limit=%zz) or a ';' separator
// (?limit=1;cursor=x). url.ParseQuery drops such pairs and r.URL.Query()
// hides the error, so without this check a misspelt query is silently
// ignored. It allocates nothing, so the gateway runs it on every request.
func CheckRawQuery(raw string) error {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ';':
			return apierr.New(apierr.InvalidRequest, "the query string has a ';' at byte %d; separate parameters with '&' and write a ';' in a value as %%3B", i+1)
		case '%':
			if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
				return apierr.New(apierr.InvalidRequest, "the query string has a malformed escape %q at byte %d; a '%%' must be followed by two hex digits (write '%%' itself as %%25)", raw[i:min(i+3, len(raw))], i+1)
			}
		}
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// CheckQuery refuses a malformed query string (see CheckRawQuery),
// parameters outside allowed and parameters given twice, naming them and
// listing what is allowed.
func CheckQuery(r *http.Request, allowed ...string) error {
	if err := CheckRawQuery(r.URL.RawQuery); err != nil {
		return err
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return apierr.Wrap(apierr.InvalidRequest, err, "the query string cannot be read: %v", err)
	}
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

// IntParam reads the value v of an optional integer query parameter (nil
// when it is absent, answered as def) within [lo, hi].
func IntParam(name string, v *string, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v == "" {
		return 0, apierr.New(apierr.InvalidRequest, "query parameter %q is empty; give an integer from %d to %d", name, lo, hi)
	}
	n, err := strconv.Atoi(*v)
	if err != nil || n < lo || n > hi {
		return 0, apierr.New(apierr.InvalidRequest, "query parameter %q must be an integer from %d to %d, not %q", name, lo, hi, *v)
	}
	return n, nil
}
