package imagelink

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tamper suite plays a server holding the keys of two accounts and many
// valid links, and an attacker who edits those links at random. A tampered
// link is accepted when it parses and verifies under the secret its own kid
// names, as /img would (expiry left out, so that only the signature decides).

const tamperRounds = 20000

type tamperKey struct {
	account string
	secret  []byte
}

type signedLink struct {
	host, path string
	params     []qparam // the query as Sign wrote it
	link       Link
}

type qparam struct{ name, value string }

func (s signedLink) query() string {
	var b strings.Builder
	for i, p := range s.params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		if p.value != "\x00bare" {
			b.WriteByte('=')
			b.WriteString(p.value)
		}
	}
	return b.String()
}

func (s signedLink) clone() signedLink {
	s.params = slices.Clone(s.params)
	return s
}

func (s signedLink) index(name string) int {
	return slices.IndexFunc(s.params, func(p qparam) bool { return p.name == name })
}

func (s signedLink) get(name string) string {
	if i := s.index(name); i >= 0 {
		return s.params[i].value
	}
	return ""
}

func (s *signedLink) set(name, value string) {
	if i := s.index(name); i >= 0 {
		s.params[i].value = value
	} else {
		s.params = append(s.params, qparam{name, value})
	}
}

func parseParams(query string) []qparam {
	var out []qparam
	for _, part := range strings.Split(query, "&") {
		name, value, _ := strings.Cut(part, "=")
		out = append(out, qparam{name, value})
	}
	return out
}

const (
	tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	hexChars   = "0123456789abcdef"
)

func randUUID(rng *rand.Rand) string {
	b := []byte("xxxxxxxx-xxxx-4xxx-axxx-xxxxxxxxxxxx")
	for i, c := range b {
		if c == 'x' {
			b[i] = hexChars[rng.IntN(16)]
		}
	}
	return string(b)
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// tamperWorld signs links for many charts, two accounts (one with two keys)
// and two sites.
func tamperWorld(t testing.TB, rng *rand.Rand) (map[string]tamperKey, []signedLink) {
	keys := map[string]tamperKey{}
	var kids []string
	for _, account := range []string{"acct-a", "acct-a", "acct-b"} {
		kid := randUUID(rng)
		keys[kid] = tamperKey{account, randBytes(rng, 32)}
		kids = append(kids, kid)
	}
	charts := make([]string, 12)
	for i := range charts {
		charts[i] = randUUID(rng)
	}
	hosts := []string{"chartd.example", "127.0.0.1:8080", "img.chartd.example:8443"}
	var links []signedLink
	for range 120 {
		l := Link{ChartID: charts[rng.IntN(len(charts))], Format: "png", KID: kids[rng.IntN(len(kids))], Scale: []int{1, 2, 4}[rng.IntN(3)]}
		if rng.IntN(4) == 0 {
			l.Format, l.Scale = "svg", 1
		}
		if rng.IntN(2) == 0 {
			l.Width = 100 + rng.IntN(3901)
		}
		if rng.IntN(2) == 0 {
			l.Height = 100 + rng.IntN(3901)
		}
		l.Transparent = rng.IntN(3) == 0
		if rng.IntN(2) == 0 {
			l.Expires = 1_700_000_000 + rng.Int64N(400_000_000)
		}
		if rng.IntN(3) == 0 {
			l.Data = randBytes(rng, 1+rng.IntN(600))
			l.DataFormat = []string{"", "csv", "tsv", "json"}[rng.IntN(4)]
		}
		host := hosts[rng.IntN(len(hosts))]
		path, query := mustSign(t, host, l, keys[l.KID].secret)
		links = append(links, signedLink{host: host, path: path, params: parseParams(query), link: l})
	}
	return keys, links
}

// accept is the server's decision: parse, find the key, verify.
func accept(t testing.TB, keys map[string]tamperKey, host, path, query string) (Request, bool) {
	r, err := Parse(host, path, query)
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("Parse error %v is not ErrInvalid", err)
		}
		return r, false
	}
	k, ok := keys[r.Link.KID]
	return r, ok && r.Verify(k.secret)
}

// flipCase changes the case of one letter of s, or reports false when s has
// none.
func flipCase(rng *rand.Rand, s string) (string, bool) {
	var letters []int
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			letters = append(letters, i)
		}
	}
	if len(letters) == 0 {
		return s, false
	}
	b := []byte(s)
	b[letters[rng.IntN(len(letters))]] ^= 0x20
	return string(b), true
}

// editChar replaces, inserts or deletes one character of s.
func editChar(rng *rand.Rand, s, alphabet string) string {
	i := rng.IntN(len(s) + 1)
	c := string(alphabet[rng.IntN(len(alphabet))])
	switch {
	case i == len(s) || rng.IntN(3) == 0:
		return s[:i] + c + s[i:]
	case rng.IntN(2) == 0 && len(s) > 1:
		return s[:i] + s[i+1:]
	default:
		return s[:i] + c + s[i+1:]
	}
}

func percentEncode(rng *rand.Rand, s string) string {
	if s == "" {
		return "%41"
	}
	i := rng.IntN(len(s))
	format := "%%%02X"
	if rng.IntN(2) == 0 {
		format = "%%%02x"
	}
	return s[:i] + fmt.Sprintf(format, s[i]) + s[i+1:]
}

// otherValue is a replacement value for a parameter: plausible, out of
// range, or spelled another way.
func otherValue(rng *rand.Rand, links []signedLink, name, old string) string {
	switch rng.IntN(4) {
	case 0: // the same parameter from another link
		if v := links[rng.IntN(len(links))].get(name); v != "" {
			return v
		}
	case 1: // a number near, or spelled another way
		if n, err := strconv.ParseInt(old, 10, 64); err == nil {
			return []string{
				strconv.FormatInt(n+1, 10), strconv.FormatInt(n-1, 10), strconv.FormatInt(n*2, 10),
				"0" + old, "+" + old, "-" + old, old + ".0", " " + old, "1", "2", "4", "3", "0", "",
			}[rng.IntN(14)]
		}
	case 2: // a small fixed set
		return []string{"1", "2", "4", "8", "100", "4000", "4001", "99", "csv", "tsv", "json", "true", "", "x"}[rng.IntN(14)]
	}
	if old == "" {
		return "A"
	}
	return editChar(rng, old, tokenChars)
}

// The tamperings. Each returns the edited link, or false when it does not
// apply to this link.
var tamperOps = []struct {
	name string
	// sameMeaning marks the edits that leave the signed content unchanged
	// (order of parameters, case of the host): they must be accepted.
	sameMeaning bool
	do          func(rng *rand.Rand, s signedLink, links []signedLink, keys map[string]tamperKey) (signedLink, bool)
}{
	{"change a value", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		p := &s.params[rng.IntN(len(s.params))]
		p.value = otherValue(rng, links, p.name, p.value)
		return s, true
	}},
	{"add a parameter", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		name := []string{"w", "h", "t", "exp", "d", "df", "x", "foo", "W", "SIG", "sig2", "kid ", "", "scale", "kid", "sig"}[rng.IntN(16)]
		if s.index(name) >= 0 {
			return s, false
		}
		value := otherValue(rng, links, name, "")
		if name == "t" && rng.IntN(2) == 0 {
			value = "1"
		}
		at := rng.IntN(len(s.params) + 1)
		s.params = slices.Insert(s.params, at, qparam{name, value})
		return s, true
	}},
	{"remove a parameter", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		i := rng.IntN(len(s.params))
		s.params = slices.Delete(s.params, i, i+1)
		return s, true
	}},
	{"duplicate a parameter", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		p := s.params[rng.IntN(len(s.params))]
		if rng.IntN(2) == 0 {
			p.value = otherValue(rng, links, p.name, p.value)
		}
		s.params = slices.Insert(s.params, rng.IntN(len(s.params)+1), p)
		return s, true
	}},
	{"change the case of a name", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		p := &s.params[rng.IntN(len(s.params))]
		p.name, _ = flipCase(rng, p.name)
		return s, true
	}},
	{"change the case of a value", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		p := &s.params[rng.IntN(len(s.params))]
		var ok bool
		p.value, ok = flipCase(rng, p.value)
		return s, ok
	}},
	{"swap kid with another link's", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.set("kid", links[rng.IntN(len(links))].get("kid"))
		return s, true
	}},
	{"swap kid with another account's", false, func(rng *rand.Rand, s signedLink, _ []signedLink, keys map[string]tamperKey) (signedLink, bool) {
		own := keys[s.get("kid")].account
		var others []string
		for kid, k := range keys {
			if k.account != own {
				others = append(others, kid)
			}
		}
		slices.Sort(others)
		s.set("kid", others[rng.IntN(len(others))])
		return s, true
	}},
	{"swap sig with another link's", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.set("sig", links[rng.IntN(len(links))].get("sig"))
		return s, true
	}},
	{"swap kid and sig with another link's", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		o := links[rng.IntN(len(links))]
		s.set("kid", o.get("kid"))
		s.set("sig", o.get("sig"))
		return s, true
	}},
	{"another link's query on this path", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.params = slices.Clone(links[rng.IntN(len(links))].params)
		return s, true
	}},
	{"another link's path with this query", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.path = links[rng.IntN(len(links))].path
		return s, true
	}},
	{"replay on another host", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		hosts := []string{"evil.example", "chartd.example:8443", "chartd.example.", "www.chartd.example",
			"127.0.0.1:8081", "localhost:8080", "chartd.example:80", "127.0.0.1", "img.chartd.example", links[rng.IntN(len(links))].host}
		s.host = hosts[rng.IntN(len(hosts))]
		return s, true
	}},
	{"move exp", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		n, _ := strconv.ParseInt(s.get("exp"), 10, 64)
		if n == 0 {
			n = 1_700_000_000
		}
		n += []int64{1, -1, 60, 3600, 86400 * 365, -86400, 1 << 40}[rng.IntN(7)]
		s.set("exp", strconv.FormatInt(n, 10))
		return s, true
	}},
	{"edit one character of d", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		d := s.get("d")
		if d == "" {
			return s, false
		}
		i := rng.IntN(len(d))
		s.set("d", d[:i]+string(tokenChars[rng.IntN(len(tokenChars))])+d[i+1:])
		return s, true
	}},
	{"give d to a live link", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		if s.get("d") != "" {
			return s, false
		}
		for _, o := range links {
			if o.get("d") != "" {
				s.set("d", o.get("d"))
				return s, true
			}
		}
		return s, false
	}},
	{"change the chart id", false, func(rng *rand.Rand, s signedLink, links []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		id := []byte(s.path[5:41])
		switch rng.IntN(3) {
		case 0:
			i := rng.IntN(len(id))
			if id[i] == '-' {
				return s, false
			}
			id[i] = hexChars[rng.IntN(16)]
		case 1:
			id = []byte(links[rng.IntN(len(links))].path[5:41])
		default:
			id = []byte(strings.ToUpper(string(id)))
		}
		s.path = "/img/" + string(id) + s.path[41:]
		return s, true
	}},
	{"change the format", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.path = s.path[:42] + []string{"png", "svg", "PNG", "Svg", "jpg", "png2", "pn", "gif"}[rng.IntN(8)]
		return s, true
	}},
	{"append junk to the path", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.path += []string{"/", "x", ".png", "%00", "/../x", ";x", "%2F", "?", " ", "\x00"}[rng.IntN(10)]
		return s, true
	}},
	{"prepend junk to the path", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.path = []string{"/", "/x", "/api/v1", "/img"}[rng.IntN(4)] + s.path
		return s, true
	}},
	{"append junk to the query", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		last := &s.params[len(s.params)-1]
		last.value += []string{"&", "&x", "&x=1", "=", "&sig", ";x=1", "&&", "#frag", "%20", " ", "+", "&=", "\n"}[rng.IntN(13)]
		return s, true
	}},
	{"bare parameter", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		s.params[rng.IntN(len(s.params))].value = "\x00bare"
		return s, true
	}},
	{"percent-encode a character", false, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		switch rng.IntN(3) {
		case 0:
			s.path = percentEncode(rng, s.path)
		case 1:
			p := &s.params[rng.IntN(len(s.params))]
			p.name = percentEncode(rng, p.name)
		default:
			p := &s.params[rng.IntN(len(s.params))]
			p.value = percentEncode(rng, p.value)
		}
		return s, true
	}},
	{"reorder the parameters", true, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		rng.Shuffle(len(s.params), func(i, j int) { s.params[i], s.params[j] = s.params[j], s.params[i] })
		return s, true
	}},
	{"change the case of the host", true, func(rng *rand.Rand, s signedLink, _ []signedLink, _ map[string]tamperKey) (signedLink, bool) {
		var ok bool
		s.host, ok = flipCase(rng, s.host)
		return s, ok
	}},
}

func TestTamper(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260301, 10))
	keys, links := tamperWorld(t, rng)

	// genuine holds the canonical string of every signed link: accepting one
	// of those is no forgery, even when an edit turned one link into another
	// (another link's query on a path of the same chart, format and site).
	genuine := map[string]bool{}
	for _, s := range links {
		r, ok := accept(t, keys, s.host, s.path, s.query())
		if !ok || !sameLink(r.Link, s.link) {
			t.Fatalf("untouched link refused: %s%s?%s", s.host, s.path, s.query())
		}
		genuine[string(r.canonical())] = true
	}

	type tally struct{ tried, refused, accepted, genuine, wrongMeaning int }
	counts := make([]tally, len(tamperOps))
	var total, noops int
	for total < tamperRounds {
		s := links[rng.IntN(len(links))]
		oi := rng.IntN(len(tamperOps))
		op := tamperOps[oi]
		e, ok := op.do(rng, s.clone(), links, keys)
		if !ok {
			continue
		}
		if e.host == s.host && e.path == s.path && e.query() == s.query() {
			noops++ // the edit happened to change nothing: not a tampering
			continue
		}
		total++
		c := &counts[oi]
		c.tried++
		r, accepted := accept(t, keys, e.host, e.path, e.query())
		switch {
		case !accepted:
			c.refused++
		case sameLink(r.Link, s.link) && strings.EqualFold(e.host, s.host):
			c.accepted++
			if !op.sameMeaning {
				t.Errorf("%s: accepted an edited link: %s%s?%s (from %s?%s)", op.name, e.host, e.path, e.query(), s.path, s.query())
			}
		case genuine[string(r.canonical())] && !op.sameMeaning:
			c.genuine++
		default:
			c.wrongMeaning++
			t.Errorf("%s: accepted a link that means something else: %s%s?%s (from %s%s?%s)",
				op.name, e.host, e.path, e.query(), s.host, s.path, s.query())
		}
		if op.sameMeaning && !accepted {
			t.Errorf("%s: refused a link with the same canonical string: %s%s?%s", op.name, e.host, e.path, e.query())
		}
	}

	var refused, sameAccepted, otherGenuine, wrong int
	for i, op := range tamperOps {
		c := counts[i]
		t.Logf("%-38s tried %5d  refused %5d  same link %4d  another genuine link %3d  forged %d",
			op.name, c.tried, c.refused, c.accepted, c.genuine, c.wrongMeaning)
		refused += c.refused
		sameAccepted += c.accepted
		otherGenuine += c.genuine
		wrong += c.wrongMeaning
		if c.tried == 0 {
			t.Errorf("%s never tried", op.name)
		}
	}
	t.Logf("untouched: %d of %d verify; tamperings: %d (%d no-op edits skipped), refused %d, "+
		"accepted with the same canonical string %d, turned into another genuine link %d, forged (accepted with another meaning) %d",
		len(links), len(links), total, noops, refused, sameAccepted, otherGenuine, wrong)
}
