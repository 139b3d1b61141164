package imagelink

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	testHost  = "chartd.example"
	testChart = "0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
	testKID   = "7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// splitLink cuts what Sign returns into the path and raw query a server sees.
func splitLink(t testing.TB, pathAndQuery string) (path, query string) {
	t.Helper()
	path, query, ok := strings.Cut(pathAndQuery, "?")
	if !ok {
		t.Fatalf("no query in %q", pathAndQuery)
	}
	return path, query
}

func mustSign(t testing.TB, host string, l Link, secret []byte) (path, query string) {
	t.Helper()
	s, err := Sign(host, l, secret)
	if err != nil {
		t.Fatalf("Sign(%q, %+v): %v", host, l, err)
	}
	return splitLink(t, s)
}

func sameLink(a, b Link) bool {
	return a.ChartID == b.ChartID && a.Format == b.Format && a.KID == b.KID && a.Scale == b.Scale &&
		a.Width == b.Width && a.Height == b.Height && a.Transparent == b.Transparent &&
		a.Expires == b.Expires && bytes.Equal(a.Data, b.Data) && a.DataFormat == b.DataFormat && a.Theme == b.Theme
}

func baseLink() Link {
	return Link{ChartID: testChart, Format: "png", KID: testKID, Scale: 1}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	datas := [][]byte{nil, {0}, {0xff, 0xfe}, []byte("a,b\n1,2\n"), bytes.Repeat([]byte{0xfb}, 2999), make([]byte, 3000)}
	for i := range datas[len(datas)-1] {
		datas[len(datas)-1][i] = byte(rng.Uint32())
	}
	hosts := []string{testHost, "127.0.0.1:8080", "[::1]:8443", "Chartd.Example"}
	n := 0
	for _, format := range []string{"png", "svg"} {
		for _, scale := range []int{1, 2, 4} {
			if format == "svg" && scale != 1 {
				continue
			}
			for _, w := range []int{0, 100, 1234, 4000} {
				for _, h := range []int{0, 100, 777, 4000} {
					for _, tr := range []bool{false, true} {
						for _, exp := range []int64{0, 1, 1_760_000_000, math.MaxInt64} {
							for di, d := range datas {
								for _, df := range []string{"", "csv", "tsv", "json"} {
									if d == nil && df != "" {
										continue
									}
									l := Link{ChartID: testChart, Format: format, KID: testKID, Scale: scale,
										Width: w, Height: h, Transparent: tr, Expires: exp, Data: d, DataFormat: df}
									host := hosts[(n+di)%len(hosts)]
									n++
									path, query := mustSign(t, host, l, testSecret)
									r, err := Parse(host, path, query)
									if err != nil {
										t.Fatalf("Parse(Sign(%+v)) = %v\n%s?%s", l, err, path, query)
									}
									if !sameLink(r.Link, l) {
										t.Fatalf("round trip changed the link:\n got %+v\nwant %+v", r.Link, l)
									}
									if !r.Verify(testSecret) {
										t.Fatalf("signed link does not verify: %s?%s", path, query)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d links round-tripped", n)
}

func TestSignOrder(t *testing.T) {
	l := Link{ChartID: testChart, Format: "png", KID: "k1", Scale: 2, Width: 800, Height: 600,
		Transparent: true, Expires: 1760000000, Data: []byte("a,b\n1,2\n"), DataFormat: "csv"}
	s, err := Sign(testHost, l, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	want := "/img/" + testChart + ".png?kid=k1&scale=2&w=800&h=600&t=1&exp=1760000000&df=csv&d=YSxiCjEsMgo&sig="
	if !strings.HasPrefix(s, want) || len(s) != len(want)+sigLen {
		t.Fatalf("Sign = %q\nwant %q<43 chars>", s, want)
	}
	s, err = Sign(testHost, Link{ChartID: testChart, Format: "svg", KID: "k1", Scale: 1}, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/img/" + testChart + ".svg?kid=k1&scale=1&sig="; !strings.HasPrefix(s, want) || len(s) != len(want)+sigLen {
		t.Fatalf("Sign = %q, want %q<43 chars>", s, want)
	}
}

// TestCanonicalForm pins the canonical string of the package comment and
// checks sig against crypto/hmac over that literal text, so a change to the
// form cannot go unnoticed.
func TestCanonicalForm(t *testing.T) {
	l := Link{ChartID: testChart, Format: "png", KID: "k1", Scale: 2, Width: 800, Height: 600,
		Transparent: true, Expires: 1760000000, Data: []byte("a,b\n1,2\n"), DataFormat: "csv"}
	path, query := mustSign(t, "ChartD.Example:8080", l, testSecret)
	r, err := Parse("chartd.example:8080", path, query)
	if err != nil {
		t.Fatal(err)
	}
	want := "chartd-imagelink-v1\n" +
		"chartd.example:8080\n" +
		"/img/" + testChart + ".png\n" +
		"d=YSxiCjEsMgo\n" +
		"df=csv\n" +
		"exp=1760000000\n" +
		"h=600\n" +
		"kid=k1\n" +
		"scale=2\n" +
		"t=1\n" +
		"w=800\n"
	if string(r.canonical()) != want {
		t.Fatalf("canonical:\n%s\nwant:\n%s", r.canonical(), want)
	}
	m := hmac.New(sha256.New, testSecret)
	m.Write([]byte(want))
	if sig := base64.RawURLEncoding.EncodeToString(m.Sum(nil)); !strings.HasSuffix(query, "&sig="+sig) {
		t.Fatalf("sig of %q is not HMAC-SHA256 of the canonical string %s", query, sig)
	}
	if !r.Verify(testSecret) {
		t.Fatal("does not verify")
	}
}

func TestSignRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		host   string
		edit   func(*Link)
		secret []byte
	}{
		{"upper-case chart id", testHost, func(l *Link) { l.ChartID = strings.ToUpper(testChart) }, nil},
		{"short chart id", testHost, func(l *Link) { l.ChartID = testChart[1:] }, nil},
		{"chart id not hex", testHost, func(l *Link) { l.ChartID = "g" + testChart[1:] }, nil},
		{"chart id without dashes", testHost, func(l *Link) { l.ChartID = strings.ReplaceAll(testChart, "-", "0") }, nil},
		{"empty format", testHost, func(l *Link) { l.Format = "" }, nil},
		{"jpg", testHost, func(l *Link) { l.Format = "jpg" }, nil},
		{"PNG", testHost, func(l *Link) { l.Format = "PNG" }, nil},
		{"empty kid", testHost, func(l *Link) { l.KID = "" }, nil},
		{"kid with dot", testHost, func(l *Link) { l.KID = "a.b" }, nil},
		{"kid too long", testHost, func(l *Link) { l.KID = strings.Repeat("k", 65) }, nil},
		{"scale 0", testHost, func(l *Link) { l.Scale = 0 }, nil},
		{"scale 3", testHost, func(l *Link) { l.Scale = 3 }, nil},
		{"scale 8", testHost, func(l *Link) { l.Scale = 8 }, nil},
		{"svg scale 2", testHost, func(l *Link) { l.Format, l.Scale = "svg", 2 }, nil},
		{"width 99", testHost, func(l *Link) { l.Width = 99 }, nil},
		{"width 4001", testHost, func(l *Link) { l.Width = 4001 }, nil},
		{"width negative", testHost, func(l *Link) { l.Width = -100 }, nil},
		{"height 99", testHost, func(l *Link) { l.Height = 99 }, nil},
		{"height 4001", testHost, func(l *Link) { l.Height = 4001 }, nil},
		{"negative expiry", testHost, func(l *Link) { l.Expires = -1 }, nil},
		{"data too long", testHost, func(l *Link) { l.Data = make([]byte, 3001) }, nil},
		{"data format without data", testHost, func(l *Link) { l.DataFormat = "csv" }, nil},
		{"bad data format", testHost, func(l *Link) { l.Data, l.DataFormat = []byte("x"), "xml" }, nil},
		{"upper-case data format", testHost, func(l *Link) { l.Data, l.DataFormat = []byte("x"), "CSV" }, nil},
		{"empty host", "", func(*Link) {}, nil},
		{"host with newline", "a\nb", func(*Link) {}, nil},
		{"host with slash", "a/b", func(*Link) {}, nil},
		{"host too long", strings.Repeat("a", 256), func(*Link) {}, nil},
		{"short secret", testHost, func(*Link) {}, []byte("0123456789abcde")},
		{"no secret", testHost, func(*Link) {}, []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := baseLink()
			tc.edit(&l)
			secret := testSecret
			if tc.secret != nil {
				secret = tc.secret
			}
			s, err := Sign(tc.host, l, secret)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Sign = %q, %v; want ErrInvalid", s, err)
			}
		})
	}
	l := baseLink()
	l.Data = make([]byte, 3000)
	if _, err := Sign(testHost, l, testSecret); err != nil {
		t.Fatalf("3,000 bytes of data (4,000 characters) refused: %v", err)
	}
}

// TestParseRefuses starts from one valid link and breaks it one way at a
// time; every case must fail with ErrInvalid.
func TestParseRefuses(t *testing.T) {
	l := Link{ChartID: testChart, Format: "png", KID: "k1", Scale: 2, Width: 800, Height: 600,
		Expires: 1760000000, Data: []byte("a,b\n1,2\n"), DataFormat: "csv"}
	path, query := mustSign(t, testHost, l, testSecret)
	sig := query[strings.LastIndex(query, "sig=")+4:]
	if _, err := Parse(testHost, path, query); err != nil {
		t.Fatal(err)
	}
	rest := "&df=csv&d=YSxiCjEsMgo&sig=" + sig
	q := func(s string) string { return s + "&sig=" + sig }
	cases := []struct{ name, host, path, query string }{
		{"empty host", "", path, query},
		{"host with space", "chartd .example", path, query},
		{"host with newline", "chartd.example\n", path, query},
		{"host with percent", "chartd%2eexample", path, query},
		{"host with user", "a@chartd.example", path, query},
		{"empty path", testHost, "", query},
		{"no /img prefix", testHost, "/image/" + testChart + ".png", query},
		{"upper-case IMG", testHost, "/IMG/" + testChart + ".png", query},
		{"double slash", testHost, "//img/" + testChart + ".png", query},
		{"upper-case chart id", testHost, "/img/" + strings.ToUpper(testChart) + ".png", query},
		{"chart id not hex", testHost, "/img/" + "x" + testChart[1:] + ".png", query},
		{"chart id dash moved", testHost, "/img/" + testChart[:7] + "-0" + testChart[9:] + ".png", query},
		{"escaped chart id", testHost, "/img/%30" + testChart[1:] + ".png", query},
		{"format PNG", testHost, "/img/" + testChart + ".PNG", query},
		{"format jpg", testHost, "/img/" + testChart + ".jpg", query},
		{"no format", testHost, "/img/" + testChart, query},
		{"format underscore", testHost, "/img/" + testChart + "_png", query},
		{"trailing slash", testHost, path + "/", query},
		{"trailing junk", testHost, path + "x", query},
		{"empty query", testHost, path, ""},
		{"only sig", testHost, path, "sig=" + sig},
		{"missing kid", testHost, path, "scale=2&w=800&h=600&exp=1760000000" + rest},
		{"missing scale", testHost, path, "kid=k1&w=800&h=600&exp=1760000000" + rest},
		{"missing sig", testHost, path, "kid=k1&scale=2&w=800&h=600&exp=1760000000&df=csv&d=YSxiCjEsMgo"},
		{"unknown param", testHost, path, query + "&x=1"},
		{"upper-case name", testHost, path, strings.Replace(query, "kid=", "KID=", 1)},
		{"mixed-case name", testHost, path, strings.Replace(query, "scale=", "Scale=", 1)},
		{"upper-case Sig", testHost, path, strings.Replace(query, "sig=", "Sig=", 1)},
		{"duplicated kid", testHost, path, "kid=k1&" + query},
		{"duplicated w same value", testHost, path, "w=800&" + query},
		{"duplicated sig", testHost, path, query + "&sig=" + sig},
		{"duplicated d", testHost, path, query + "&d=YSxiCjEsMgo"},
		{"empty value", testHost, path, query + "&t="},
		{"empty kid", testHost, path, strings.Replace(query, "kid=k1", "kid=", 1)},
		{"bare name", testHost, path, query + "&t"},
		{"trailing ampersand", testHost, path, query + "&"},
		{"leading ampersand", testHost, path, "&" + query},
		{"double ampersand", testHost, path, strings.Replace(query, "&", "&&", 1)},
		{"semicolon", testHost, path, strings.Replace(query, "&scale", ";scale", 1)},
		{"empty name", testHost, path, query + "&=1"},
		{"plus for space", testHost, path, strings.Replace(query, "kid=k1", "kid=k+1", 1)},
		{"percent-escaped value", testHost, path, strings.Replace(query, "kid=k1", "kid=%6b1", 1)},
		{"percent-escaped name", testHost, path, strings.Replace(query, "kid=k1", "%6bid=k1", 1)},
		{"percent-escaped equals", testHost, path, strings.Replace(query, "kid=k1", "kid%3Dk1", 1)},
		{"percent-escaped ampersand", testHost, path, strings.Replace(query, "&scale", "%26scale", 1)},
		{"equals in value", testHost, path, strings.Replace(query, "kid=k1", "kid=k=1", 1)},
		{"dot in kid", testHost, path, strings.Replace(query, "kid=k1", "kid=k.1", 1)},
		{"kid too long", testHost, path, strings.Replace(query, "kid=k1", "kid="+strings.Repeat("k", 65), 1)},
		{"scale 3", testHost, path, strings.Replace(query, "scale=2", "scale=3", 1)},
		{"scale 0", testHost, path, strings.Replace(query, "scale=2", "scale=0", 1)},
		{"scale 02", testHost, path, strings.Replace(query, "scale=2", "scale=02", 1)},
		{"scale +2", testHost, path, strings.Replace(query, "scale=2", "scale=+2", 1)},
		{"scale -2", testHost, path, strings.Replace(query, "scale=2", "scale=-2", 1)},
		{"scale 2.0", testHost, path, strings.Replace(query, "scale=2", "scale=2.0", 1)},
		{"svg scale 2", testHost, "/img/" + testChart + ".svg", query},
		{"w 99", testHost, path, strings.Replace(query, "w=800", "w=99", 1)},
		{"w 4001", testHost, path, strings.Replace(query, "w=800", "w=4001", 1)},
		{"w 0800", testHost, path, strings.Replace(query, "w=800", "w=0800", 1)},
		{"w +800", testHost, path, strings.Replace(query, "w=800", "w=+800", 1)},
		{"w 8e2", testHost, path, strings.Replace(query, "w=800", "w=8e2", 1)},
		{"w 0x320", testHost, path, strings.Replace(query, "w=800", "w=0x320", 1)},
		{"w huge", testHost, path, strings.Replace(query, "w=800", "w=99999999999999999999999", 1)},
		{"h 0", testHost, path, strings.Replace(query, "h=600", "h=0", 1)},
		{"h 00600", testHost, path, strings.Replace(query, "h=600", "h=00600", 1)},
		{"t 0", testHost, path, q("kid=k1&scale=2&t=0")},
		{"t true", testHost, path, q("kid=k1&scale=2&t=true")},
		{"t 01", testHost, path, q("kid=k1&scale=2&t=01")},
		{"exp 0", testHost, path, strings.Replace(query, "exp=1760000000", "exp=0", 1)},
		{"exp leading zero", testHost, path, strings.Replace(query, "exp=1760000000", "exp=01760000000", 1)},
		{"exp negative", testHost, path, strings.Replace(query, "exp=1760000000", "exp=-1760000000", 1)},
		{"exp overflow", testHost, path, strings.Replace(query, "exp=1760000000", "exp=9223372036854775808", 1)},
		{"exp far overflow", testHost, path, strings.Replace(query, "exp=1760000000", "exp=99999999999999999999", 1)},
		{"d padded", testHost, path, strings.Replace(query, "d=YSxiCjEsMgo", "d=YSxiCjEsMgo=", 1)},
		{"d standard alphabet", testHost, path, strings.Replace(query, "d=YSxiCjEsMgo", "d=YSxi+jEsMgo", 1)},
		{"d trailing bits", testHost, path, strings.Replace(query, "d=YSxiCjEsMgo", "d=YSxiCjEsMgp", 1)},
		{"d lone char", testHost, path, strings.Replace(query, "d=YSxiCjEsMgo", "d=YSxiCjEsMgoAA", 1)},
		{"d too long", testHost, path, strings.Replace(query, "d=YSxiCjEsMgo", "d="+strings.Repeat("A", 4004), 1)},
		{"df without d", testHost, path, q("kid=k1&scale=2&df=csv")},
		{"df xml", testHost, path, strings.Replace(query, "df=csv", "df=xml", 1)},
		{"df CSV", testHost, path, strings.Replace(query, "df=csv", "df=CSV", 1)},
		{"sig short", testHost, path, strings.Replace(query, "sig="+sig, "sig="+sig[1:], 1)},
		{"sig long", testHost, path, strings.Replace(query, "sig="+sig, "sig="+sig+"A", 1)},
		{"sig padded", testHost, path, strings.Replace(query, "sig="+sig, "sig="+sig+"=", 1)},
		{"sig trailing bits", testHost, path, strings.Replace(query, "sig="+sig, "sig="+sig[:42]+string(flipLowBits(sig[42])), 1)},
		{"sig standard alphabet", testHost, path, strings.Replace(query, "sig="+sig, "sig=+"+sig[1:], 1)},
		{"sig hex", testHost, path, strings.Replace(query, "sig="+sig, "sig="+strings.Repeat("ab", 32), 1)},
		{"fragment", testHost, path, query + "#x"},
		{"space", testHost, path, query + " "},
		{"nul", testHost, path, query + "\x00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(tc.host, tc.path, tc.query)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q, %q, %q) = %+v, %v; want ErrInvalid", tc.host, tc.path, tc.query, r.Link, err)
			}
			if r.Verify(testSecret) {
				t.Fatal("a refused Request verifies")
			}
			if !strings.HasPrefix(err.Error(), "imagelink: invalid link: ") {
				t.Fatalf("error %q does not carry its reason", err)
			}
		})
	}
}

// flipLowBits changes one of the two bits the last sig character carries
// beyond the 256 of the MAC, leaving the decoded bytes as they were.
func flipLowBits(c byte) byte {
	v, _ := b64Value(c)
	return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[v^1]
}

func TestParseAccepts(t *testing.T) {
	l := Link{ChartID: testChart, Format: "png", KID: testKID, Scale: 4, Width: 100, Height: 4000,
		Transparent: true, Expires: math.MaxInt64, Data: []byte{0}, DataFormat: "json"}
	path, query := mustSign(t, testHost, l, testSecret)
	parts := strings.Split(query, "&")
	slices.Reverse(parts)
	for _, tc := range []struct{ name, host, query string }{
		{"as signed", testHost, query},
		{"upper-case host", "CHARTD.EXAMPLE", query},
		{"reversed params", testHost, strings.Join(parts, "&")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(tc.host, path, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if !sameLink(r.Link, l) || !r.Verify(testSecret) {
				t.Fatalf("got %+v, verifies %v", r.Link, r.Verify(testSecret))
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	path, query := mustSign(t, testHost, baseLink(), testSecret)
	r, err := Parse(testHost, path, query)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(testSecret)
	other[len(other)-1] ^= 1
	// Not tested: the secret with zero bytes appended. HMAC pads keys with
	// zeros, so that one verifies by design; secrets are random and of fixed
	// length, so it never names another key.
	for name, secret := range map[string][]byte{
		"other secret":     other,
		"prefix of secret": testSecret[:16],
		"short secret":     testSecret[:15],
		"nil secret":       nil,
	} {
		if r.Verify(secret) {
			t.Errorf("%s verifies", name)
		}
	}
	var zero Request
	if zero.Verify(testSecret) {
		t.Error("zero Request verifies")
	}
	for _, host := range []string{"chartd.example:443", "www.chartd.example", "chartd.example.", "evil.example"} {
		r, err := Parse(host, path, query)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verify(testSecret) {
			t.Errorf("link for %s verifies on %s", testHost, host)
		}
	}
}

func TestExpired(t *testing.T) {
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const ttl = 3600
	l := baseLink()
	l.Expires = created.Unix() + ttl
	path, query := mustSign(t, testHost, l, testSecret)
	r, err := Parse(testHost, path, query)
	if err != nil || !r.Verify(testSecret) {
		t.Fatalf("Parse: %v", err)
	}
	for _, tc := range []struct {
		now  time.Time
		want bool
	}{
		{created, false},
		{created.Add(-24 * time.Hour), false},
		{created.Add(ttl*time.Second - time.Nanosecond), false},
		{created.Add(ttl * time.Second), true},
		{created.Add(ttl*time.Second + 999*time.Millisecond), true},
		{created.Add(ttl*time.Second + time.Second), true},
		{created.AddDate(10, 0, 0), true},
	} {
		if got := r.Expired(tc.now); got != tc.want {
			t.Errorf("Expired(%v) = %v, want %v", tc.now, got, tc.want)
		}
	}
	path, query = mustSign(t, testHost, baseLink(), testSecret)
	r, err = Parse(testHost, path, query)
	if err != nil {
		t.Fatal(err)
	}
	if r.Expired(time.Unix(math.MaxInt64/2, 0)) {
		t.Error("link without exp expired")
	}
}

// TestMAC holds the allocation-free HMAC to crypto/hmac across key lengths
// and message lengths around the block size and the stack buffer.
func TestMAC(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, kl := range []int{0, 1, 16, 32, 63, 64, 65, 100, 128, 200} {
		for _, ml := range []int{0, 1, 55, 56, 64, 200, 447, 448, 449, 512, 1000, 4200} {
			key, msg := make([]byte, kl), make([]byte, ml)
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			for i := range msg {
				msg[i] = byte(rng.Uint32())
			}
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			in := append(make([]byte, sha256.BlockSize), msg...)
			if got := mac(key, in); !bytes.Equal(got[:], m.Sum(nil)) {
				t.Fatalf("mac differs from crypto/hmac for key %d, message %d bytes", kl, ml)
			}
		}
	}
}

// TestDecodeB64 holds decodeB64 to encoding/base64's strict unpadded URL
// decoder, on valid encodings and on random strings of its alphabet.
func TestDecodeB64(t *testing.T) {
	std := base64.RawURLEncoding.Strict()
	rng := rand.New(rand.NewPCG(3, 3))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range 20000 {
		var s string
		if i%2 == 0 {
			b := make([]byte, rng.IntN(40))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			s = base64.RawURLEncoding.EncodeToString(b)
		} else {
			b := make([]byte, rng.IntN(12))
			for j := range b {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
			s = string(b)
		}
		want, err := std.DecodeString(s)
		got := make([]byte, len(s)*6/8)
		ok := decodeB64(got, s)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("decodeB64(%q) = %x, %v; encoding/base64: %x, %v", s, got, ok, want, err)
		}
	}
}

// benchLinks are the links BenchmarkVerify reads: the spec's minimal link, a
// typical one with size and expiry, and one carrying data.
func benchLinks(b *testing.B) map[string][2]string {
	links := map[string]Link{
		"minimal": {ChartID: testChart, Format: "png", KID: testKID, Scale: 2},
		"typical": {ChartID: testChart, Format: "png", KID: testKID, Scale: 2, Width: 800, Height: 600,
			Transparent: true, Expires: 1_900_000_000},
		"data": {ChartID: testChart, Format: "png", KID: testKID, Scale: 2, Width: 800, Height: 600,
			Data: bytes.Repeat([]byte("month,sales\nJan,120\n"), 40), DataFormat: "csv"},
	}
	out := map[string][2]string{}
	for name, l := range links {
		path, query := mustSign(b, testHost, l, testSecret)
		out[name] = [2]string{path, query}
	}
	return out
}

// BenchmarkVerify measures what a /img request pays before its key lookup
// and cache: Parse plus Verify (budget: 2 µs, 5 allocs without data).
func BenchmarkVerify(b *testing.B) {
	links := benchLinks(b)
	for _, name := range []string{"minimal", "typical", "data"} {
		pq := links[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := Parse(testHost, pq[0], pq[1])
				if err != nil || !r.Verify(testSecret) {
					b.Fatal("does not verify", err)
				}
			}
		})
	}
}

// BenchmarkParseRefused measures the cost of refusing a malformed link, the
// path a flood of junk requests takes.
func BenchmarkParseRefused(b *testing.B) {
	pq := benchLinks(b)["typical"]
	query := pq[1] + "&x=1"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(testHost, pq[0], query); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkSign(b *testing.B) {
	l := Link{ChartID: testChart, Format: "png", KID: testKID, Scale: 2, Width: 800, Height: 600, Expires: 1_900_000_000}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Sign(testHost, l, testSecret); err != nil {
			b.Fatal(err)
		}
	}
}
