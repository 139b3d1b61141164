package quota

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// The rate-limit headers, spelled as the spec writes them. They are set
// as map keys, so no canonicalisation turns them into X-Ratelimit-*.
const (
	HeaderLimit     = "X-RateLimit-Limit"
	HeaderRemaining = "X-RateLimit-Remaining"
	HeaderReset     = "X-RateLimit-Reset"
)

// SetHeaders writes r as the X-RateLimit-* headers, plus Retry-After when
// the request is refused. It sits on every answer's path, so one string
// and one backing array serve the three values.
func (r Result) SetHeaders(h http.Header) {
	var num [64]byte
	b := strconv.AppendInt(num[:0], int64(r.Limit), 10)
	n1 := len(b)
	b = strconv.AppendInt(b, int64(max(r.Remaining, 0)), 10)
	n2 := len(b)
	b = strconv.AppendInt(b, int64(CeilSeconds(r.ResetAfter)), 10)
	all := string(b)
	vals := []string{all[:n1], all[n1:n2], all[n2:]}
	h[HeaderLimit] = vals[0:1:1]
	h[HeaderRemaining] = vals[1:2:2]
	h[HeaderReset] = vals[2:3:3]
	if !r.Allowed {
		h.Set("Retry-After", strconv.Itoa(r.RetryAfterSeconds()))
	}
}

// RetryAfterSeconds is RetryAfter in whole seconds, at least 1.
func (r Result) RetryAfterSeconds() int { return max(CeilSeconds(r.RetryAfter), 1) }

// CeilSeconds rounds d up to whole seconds (0 for none).
func CeilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
