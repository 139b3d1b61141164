// Package imagelink signs and verifies the public image links of
// create_image_url, {site_url}/img/<chart_id>.<format>?kid=…&scale=…&sig=….
// Anyone may open such a link without an API key, so the signature is the only
// thing that stops a link from being edited to show another chart, another
// size, other data, a later expiry or another site's picture.
//
// # Parameters
//
//	kid    signing key id, required: 1..64 of [A-Za-z0-9_-]
//	scale  1, 2 or 4, required; always 1 for svg
//	w, h   canvas width and height in CSS px, 100..4000 (absent: the chart's own)
//	t      transparent background; only the value 1 (absent: opaque)
//	exp    expiry, unix seconds >= 1; refused from that second on (absent: never)
//	d      data drawn instead of the chart's own, base64url without padding,
//	       at most 4,000 characters (absent: a live picture)
//	df     data format csv, tsv or json; only with d (absent: the service's default)
//	sig    the signature, 43 characters of base64url without padding
//
// Numbers are plain decimal without sign or leading zero, so every value has
// exactly one spelling; parsing is strict and refuses anything else.
//
// # Canonical form
//
// sig is HMAC-SHA256, keyed with the secret of the key named by kid, over these
// lines, each ended by "\n" (0x0A), then encoded as base64url without padding:
//
//	chartd-imagelink-v1
//	<host>
//	/img/<chart_id>.<format>
//	<name>=<value>    one line per query parameter but sig, sorted by name
//
// host is the site's host[:port] in lower case, as the link was made for.
// Values appear exactly as sent: nothing is percent-decoded, and a '%' anywhere
// makes the link invalid. The first line names this scheme, so a MAC made for
// anything else can never pass as a link signature.
//
// No two different links share a canonical string: every value is drawn from
// [A-Za-z0-9_-], the names are fixed and each occurs at most once, the host
// cannot hold "\n" and the path has one fixed shape. Because the parameters
// are sorted, a link whose parameters were merely reordered has the same
// canonical string and still verifies; that is intended, as it asks for
// exactly the same picture.
package imagelink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxDataLen is the longest d value in characters (the spec's "at most 4,000
// characters once encoded"), so a caller can refuse long data with a clear
// message before Sign refuses it.
const MaxDataLen = 4000

const (
	scheme       = "chartd-imagelink-v1\n"
	pathPrefix   = "/img/"
	pathLen      = len(pathPrefix) + 36 + len(".png")
	minSize      = 100
	maxSize      = 4000
	maxKIDLen    = 64
	maxHostLen   = 255
	minSecretLen = 16
	macLen       = sha256.Size
	sigLen       = 43 // base64url of 32 bytes, unpadded
)

// Refused is what every refusal of an image link says, whatever failed
// and wherever (the gateway for an address no link can have, the render
// service for the rest), so a prober learns nothing from the answer.
const Refused = "no image at this address; the link may have been altered, expired or revoked"

// ErrInvalid is the one error every refused link (and every link Sign refuses
// to make) matches, so that callers answer the same 404 whatever failed; the
// error's text names the reason, for logs only.
var ErrInvalid = errors.New("imagelink: invalid link")

// reason is a refusal with its cause. It is a string constant rather than a
// formatted error so that refusing a link allocates nothing.
type reason string

func (r reason) Error() string { return "imagelink: invalid link: " + string(r) }

// Is makes every reason match ErrInvalid.
func (r reason) Is(target error) bool { return target == ErrInvalid }

// Link is what a signed link asks for. The zero value of an optional field
// means its parameter is absent, so a Link maps to exactly one link.
type Link struct {
	ChartID     string // lower-case UUID, 36 characters
	Format      string // "png" or "svg"
	KID         string // id of the signing key whose secret signs the link
	Scale       int    // 1, 2 or 4; 1 for svg
	Width       int    // canvas width in CSS px, 100..4000; 0 for the chart's own
	Height      int    // canvas height in CSS px, 100..4000; 0 for the chart's own
	Transparent bool
	// Theme draws the picture light, dark or auto; "" for the chart's own.
	Theme      string
	Expires    int64  // unix seconds; 0 for no expiry
	Data       []byte // drawn instead of the chart's data; nil for a live picture
	DataFormat string // "csv", "tsv" or "json", only with Data; "" for the default
}

// Request is a parsed link waiting for its key: Parse has read kid, so the
// caller can look the secret up and then call Verify. Verify checks the link
// as it arrived, not Link, so editing Link cannot make it verify.
type Request struct {
	Link Link

	// The pieces of the canonical string: Verify writes it straight into a
	// stack buffer, so neither Parse nor Verify allocates for a link
	// without data.
	host, path string
	p          params
	sig        [macLen]byte // decoded sig
	parsed     bool         // set by Parse only, so a zero Request never verifies
}

// params holds the raw value of each signed parameter, "" when absent, in the
// canonical (sorted) order. Sign and Parse both build the canonical string
// from it, so the two cannot disagree on it.
type params struct {
	d, df, exp, h, kid, scale, t, theme, w string
}

// Sign makes the path and query of a link to l for the site host (host[:port]
// of {site_url}). It refuses, with ErrInvalid, a Link that Parse would not
// accept back, and secrets shorter than 16 bytes. Parameters come in a fixed
// order with sig last: kid, scale, w, h, t, theme, exp, df, d, sig.
func Sign(host string, l Link, secret []byte) (pathAndQuery string, err error) {
	if len(secret) < minSecretLen {
		return "", reason("secret shorter than 16 bytes")
	}
	if err := checkHost(host); err != nil {
		return "", err
	}
	p, err := l.params()
	if err != nil {
		return "", err
	}
	path := pathPrefix + l.ChartID + "." + l.Format
	canon := appendCanonical(make([]byte, 0, canonicalLen(host, path, &p)), host, path, &p)
	m := hmac.New(sha256.New, secret)
	m.Write(canon)
	sig := base64.RawURLEncoding.EncodeToString(m.Sum(nil))

	var b strings.Builder
	b.Grow(len(canon) + len(sig) + 16)
	b.WriteString(path)
	sep := byte('?')
	add := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteByte(sep)
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(value)
		sep = '&'
	}
	add("kid", p.kid)
	add("scale", p.scale)
	add("w", p.w)
	add("h", p.h)
	add("t", p.t)
	add("theme", p.theme)
	add("exp", p.exp)
	add("df", p.df)
	add("d", p.d)
	add("sig", sig)
	return b.String(), nil
}

// params checks l against the rules Parse applies and spells its values.
func (l *Link) params() (params, error) {
	var p params
	if !isChartID(l.ChartID) {
		return p, reason("chart id is not a lower-case UUID")
	}
	if l.Format != "png" && l.Format != "svg" {
		return p, reason("format is not png or svg")
	}
	if !isKID(l.KID) {
		return p, reason("kid is not 1..64 of [A-Za-z0-9_-]")
	}
	p.kid = l.KID
	switch {
	case l.Scale != 1 && l.Scale != 2 && l.Scale != 4:
		return p, reason("scale is not 1, 2 or 4")
	case l.Format == "svg" && l.Scale != 1:
		return p, reason("svg scale is not 1")
	}
	p.scale = strconv.Itoa(l.Scale)
	if l.Width != 0 {
		if l.Width < minSize || l.Width > maxSize {
			return p, reason("width out of 100..4000")
		}
		p.w = strconv.Itoa(l.Width)
	}
	if l.Height != 0 {
		if l.Height < minSize || l.Height > maxSize {
			return p, reason("height out of 100..4000")
		}
		p.h = strconv.Itoa(l.Height)
	}
	switch l.Theme {
	case "", "light", "dark", "auto":
		p.theme = l.Theme
	default:
		return p, reason("theme is not light, dark or auto")
	}
	if l.Transparent {
		p.t = "1"
	}
	switch {
	case l.Expires < 0:
		return p, reason("negative expiry")
	case l.Expires > 0:
		p.exp = strconv.FormatInt(l.Expires, 10)
	}
	if len(l.Data) > 0 {
		if base64.RawURLEncoding.EncodedLen(len(l.Data)) > MaxDataLen {
			return p, reason("data longer than 4,000 characters once encoded")
		}
		p.d = base64.RawURLEncoding.EncodeToString(l.Data)
	}
	if l.DataFormat != "" {
		if !isDataFormat(l.DataFormat) {
			return p, reason("data format is not csv, tsv or json")
		}
		if p.d == "" {
			return p, reason("data format without data")
		}
		p.df = l.DataFormat
	}
	return p, nil
}

// Parse reads a link as it arrived: host is the request's Host, path its
// escaped path (r.URL.EscapedPath()) and rawQuery r.URL.RawQuery. It is
// strict — an unknown, duplicated, empty, miscased or non-canonically spelled
// parameter, a value out of range, a percent-escape or a malformed path all
// fail with ErrInvalid — so every accepted link has exactly the meaning its
// signature covers. Parse does not check the signature: look up the secret
// for Link.KID and call Verify.
func Parse(host, path, rawQuery string) (Request, error) {
	var r Request
	if err := checkHost(host); err != nil {
		return r, err
	}
	if len(path) != pathLen || path[:len(pathPrefix)] != pathPrefix || path[pathLen-4] != '.' {
		return r, reason("path is not /img/<chart_id>.<format>")
	}
	r.Link.ChartID = path[len(pathPrefix) : pathLen-4]
	if !isChartID(r.Link.ChartID) {
		return r, reason("chart id is not a lower-case UUID")
	}
	switch path[pathLen-3:] {
	case "png":
		r.Link.Format = "png"
	case "svg":
		r.Link.Format = "svg"
	default:
		return r, reason("format is not png or svg")
	}

	var p params
	var sig string
	var seen uint16
	for q, more := rawQuery, true; more; {
		var part string
		if i := strings.IndexByte(q, '&'); i >= 0 {
			part, q = q[:i], q[i+1:]
		} else {
			part, more = q, false
		}
		eq := strings.IndexByte(part, '=')
		if eq < 0 {
			return r, reason("query part without '='")
		}
		name, value := part[:eq], part[eq+1:]
		var slot *string
		var bit uint16
		switch name {
		case "d":
			slot, bit = &p.d, 1<<0
		case "df":
			slot, bit = &p.df, 1<<1
		case "exp":
			slot, bit = &p.exp, 1<<2
		case "h":
			slot, bit = &p.h, 1<<3
		case "kid":
			slot, bit = &p.kid, 1<<4
		case "scale":
			slot, bit = &p.scale, 1<<5
		case "t":
			slot, bit = &p.t, 1<<6
		case "theme":
			slot, bit = &p.theme, 1<<9
		case "w":
			slot, bit = &p.w, 1<<7
		case "sig":
			slot, bit = &sig, 1<<8
		default:
			return r, reason("unknown parameter")
		}
		if seen&bit != 0 {
			return r, reason("duplicated parameter")
		}
		seen |= bit
		if value == "" {
			return r, reason("empty value")
		}
		if !isToken(value) {
			return r, reason("value holds a character other than [A-Za-z0-9_-]")
		}
		*slot = value
	}

	l := &r.Link
	if p.kid == "" || p.scale == "" || sig == "" {
		return r, reason("kid, scale or sig missing")
	}
	if len(p.kid) > maxKIDLen {
		return r, reason("kid longer than 64")
	}
	l.KID = p.kid
	switch p.scale {
	case "1":
		l.Scale = 1
	case "2":
		l.Scale = 2
	case "4":
		l.Scale = 4
	default:
		return r, reason("scale is not 1, 2 or 4")
	}
	if l.Format == "svg" && l.Scale != 1 {
		return r, reason("svg scale is not 1")
	}
	if p.w != "" {
		n, ok := parseNum(p.w, minSize, maxSize)
		if !ok {
			return r, reason("w is not 100..4000")
		}
		l.Width = int(n)
	}
	if p.h != "" {
		n, ok := parseNum(p.h, minSize, maxSize)
		if !ok {
			return r, reason("h is not 100..4000")
		}
		l.Height = int(n)
	}
	if p.t != "" {
		if p.t != "1" {
			return r, reason("t is not 1")
		}
		l.Transparent = true
	}
	switch p.theme {
	case "", "light", "dark", "auto":
		l.Theme = p.theme
	default:
		return r, reason("theme is not light, dark or auto")
	}
	if p.exp != "" {
		n, ok := parseNum(p.exp, 1, math.MaxInt64)
		if !ok {
			return r, reason("exp is not a positive unix time")
		}
		l.Expires = n
	}
	if p.df != "" {
		if p.d == "" {
			return r, reason("df without d")
		}
		if !isDataFormat(p.df) {
			return r, reason("df is not csv, tsv or json")
		}
		l.DataFormat = p.df
	}
	if p.d != "" {
		if len(p.d) > MaxDataLen {
			return r, reason("d longer than 4,000 characters")
		}
		data := make([]byte, len(p.d)*6/8)
		if !decodeB64(data, p.d) {
			return r, reason("d is not canonical unpadded base64url")
		}
		l.Data = data
	}
	if len(sig) != sigLen || !decodeB64(r.sig[:], sig) {
		return r, reason("sig is not 32 bytes of canonical unpadded base64url")
	}
	r.host, r.path, r.p, r.parsed = host, path, p, true
	return r, nil
}

// Verify reports whether the link was signed with secret. The comparison is
// constant-time (hmac.Equal), so timing tells nothing about how close a
// forged sig came. A Request that Parse did not return, or a secret shorter
// than 16 bytes, never verifies.
func (r *Request) Verify(secret []byte) bool {
	if len(secret) < minSecretLen || !r.parsed {
		return false
	}
	var stack [512]byte
	in := stack[:sha256.BlockSize]
	if n := sha256.BlockSize + canonicalLen(r.host, r.path, &r.p); n > len(stack) {
		in = make([]byte, sha256.BlockSize, n)
	}
	m := mac(secret, appendCanonical(in, r.host, r.path, &r.p))
	return hmac.Equal(m[:], r.sig[:])
}

// canonical is the string the link's sig covers.
func (r *Request) canonical() []byte {
	return appendCanonical(nil, r.host, r.path, &r.p)
}

// Expired reports whether the link's exp has been reached at now: a link made
// with expires_in N at time T works for N seconds, so it is refused from T+N.
// The clock is a parameter so that tests and callers choose it.
func (r *Request) Expired(now time.Time) bool {
	return r.Link.Expires != 0 && now.Unix() >= r.Link.Expires
}

func canonicalLen(host, path string, p *params) int {
	return len(scheme) + len(host) + 1 + len(path) + 1 +
		paramLen("d", p.d) + paramLen("df", p.df) + paramLen("exp", p.exp) + paramLen("h", p.h) +
		paramLen("kid", p.kid) + paramLen("scale", p.scale) + paramLen("t", p.t) + paramLen("theme", p.theme) + paramLen("w", p.w)
}

func paramLen(name, value string) int {
	if value == "" {
		return 0
	}
	return len(name) + 1 + len(value) + 1
}

// appendCanonical appends the canonical string of the package comment; host
// must have passed checkHost and is lower-cased here.
func appendCanonical(dst []byte, host, path string, p *params) []byte {
	dst = append(dst, scheme...)
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	dst = append(dst, '\n')
	dst = append(dst, path...)
	dst = append(dst, '\n')
	dst = appendParam(dst, "d", p.d)
	dst = appendParam(dst, "df", p.df)
	dst = appendParam(dst, "exp", p.exp)
	dst = appendParam(dst, "h", p.h)
	dst = appendParam(dst, "kid", p.kid)
	dst = appendParam(dst, "scale", p.scale)
	dst = appendParam(dst, "t", p.t)
	dst = appendParam(dst, "theme", p.theme)
	dst = appendParam(dst, "w", p.w)
	return dst
}

func appendParam(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, name...)
	dst = append(dst, '=')
	dst = append(dst, value...)
	return append(dst, '\n')
}

// mac is HMAC-SHA256 (RFC 2104) built on sha256.Sum256: in holds the message
// after sha256.BlockSize bytes of scratch space, where the inner key pad goes,
// so the inner hash needs no copy. crypto/hmac costs six allocations and
// about 1 µs per call, most of the verification budget; this allocates
// nothing. Sign still uses crypto/hmac, and the tests hold the two equal.
func mac(secret, in []byte) [macLen]byte {
	const block = sha256.BlockSize
	var key [block]byte
	if len(secret) > block {
		k := sha256.Sum256(secret)
		copy(key[:], k[:])
	} else {
		copy(key[:], secret)
	}
	for i, k := range key {
		in[i] = k ^ 0x36
	}
	inner := sha256.Sum256(in)
	var out [block + macLen]byte
	for i, k := range key {
		out[i] = k ^ 0x5c
	}
	copy(out[block:], inner[:])
	return sha256.Sum256(out[:])
}

// checkHost keeps the host to the characters of host[:port] (IPv6 literals
// included), which also keeps "\n" out of the canonical string.
func checkHost(host string) error {
	if host == "" || len(host) > maxHostLen {
		return reason("host empty or too long")
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !isTokenByte(c) && c != '.' && c != ':' && c != '[' && c != ']' {
			return reason("host holds a character outside host[:port]")
		}
	}
	return nil
}

// isChartID accepts the lower-case UUID form only, so each chart has one
// spelling in a link.
func isChartID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

func isKID(s string) bool { return s != "" && len(s) <= maxKIDLen && isToken(s) }

func isDataFormat(s string) bool { return s == "csv" || s == "tsv" || s == "json" }

// isToken reports whether s is made of base64url characters only, the one
// alphabet every parameter value is drawn from.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// parseNum reads a decimal in [lo, hi] spelled without sign or leading zero,
// the only spelling Sign produces.
func parseNum(s string, lo, hi int64) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, lo <= n && n <= hi
}

// decodeB64 decodes unpadded base64url s into dst, which must be
// len(s)*6/8 long. It refuses a length that leaves a lone character and
// non-zero trailing bits, so each byte string has exactly one accepted
// spelling. It works on the string directly, which saves the copy that
// encoding/base64 would need.
func decodeB64(dst []byte, s string) bool {
	if len(s)%4 == 1 || len(dst) != len(s)*6/8 {
		return false
	}
	var acc uint32
	var bits uint
	j := 0
	for i := 0; i < len(s); i++ {
		v, ok := b64Value(s[i])
		if !ok {
			return false
		}
		acc = acc<<6 | uint32(v)
		bits += 6
		if bits >= 8 {
			bits -= 8
			dst[j] = byte(acc >> bits)
			j++
		}
	}
	return acc&(1<<bits-1) == 0
}

func b64Value(c byte) (byte, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		return c - 'A', true
	case 'a' <= c && c <= 'z':
		return c - 'a' + 26, true
	case '0' <= c && c <= '9':
		return c - '0' + 52, true
	case c == '-':
		return 62, true
	case c == '_':
		return 63, true
	}
	return 0, false
}
