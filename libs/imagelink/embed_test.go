package imagelink

import (
	"errors"
	"strings"
	"testing"
)

// TestEmbedLinks: an embed link verifies for its page and its picture at
// any width, and nothing altered, moved to another host or signed as an
// image link does.
func TestEmbedLinks(t *testing.T) {
	e := Embed{ChartID: testChart, KID: testKID, Theme: "auto"}
	signed, err := SignEmbed(testHost, e, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	path, query := splitLink(t, signed)
	imgPath, imgQuery := mustSign(t, testHost, Link{ChartID: testChart, Format: "svg", KID: testKID, Scale: 1}, testSecret)
	imgSig := imgQuery[strings.LastIndex(imgQuery, "sig="):]
	other, err := SignEmbed(testHost, Embed{ChartID: testChart, KID: testKID}, []byte("another secret, sixteen bytes+"))
	if err != nil {
		t.Fatal(err)
	}
	_, otherQuery := splitLink(t, other)
	for _, tc := range []struct {
		name, host, path, query string
		// parsed: ParseEmbed accepts it; verifies: the signature holds.
		parsed, verifies bool
		svg              bool
		width            int
	}{
		{"the page", testHost, path, query, true, true, false, 0},
		{"the host in capitals", strings.ToUpper(testHost), path, query, true, true, false, 0},
		{"the picture at a width", testHost, path + ".svg", query + "&w=320", true, true, true, 320},
		{"the picture, w first", testHost, path + ".svg", "w=1200&" + query, true, true, true, 1200},
		{"the picture out of range still parses (the caller answers 400)", testHost, path + ".svg", query + "&w=5000", true, true, true, 5000},
		{"w on the page", testHost, path, query + "&w=320", false, false, false, 0},
		{"w twice", testHost, path + ".svg", query + "&w=320&w=640", false, false, false, 0},
		{"w spelled with a zero", testHost, path + ".svg", query + "&w=0320", false, false, false, 0},
		{"theme changed", testHost, path, strings.Replace(query, "theme=auto", "theme=dark", 1), true, false, false, 0},
		{"theme dropped", testHost, path, strings.Replace(query, "&theme=auto", "", 1), true, false, false, 0},
		{"unknown theme", testHost, path, strings.Replace(query, "theme=auto", "theme=blue", 1), false, false, false, 0},
		{"another host", "evil.example", path, query, true, false, false, 0},
		{"another chart", testHost, "/embed/1b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b", query, true, false, false, 0},
		{"another key's signature", testHost, path, otherQuery, true, false, false, 0},
		{"an image link's signature", testHost, path, "kid=" + testKID + "&" + imgSig, true, false, false, 0},
		{"an image link's path", testHost, imgPath, query, false, false, false, 0},
		{"an unknown parameter", testHost, path, query + "&x=1", false, false, false, 0},
		{"a percent escape", testHost, path, strings.Replace(query, "theme=auto", "theme=aut%6F", 1), false, false, false, 0},
		{"no sig", testHost, path, "kid=" + testKID, false, false, false, 0},
		{"an upper-case chart id", testHost, strings.ToUpper(path), query, false, false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseEmbed(tc.host, tc.path, tc.query)
			if (err == nil) != tc.parsed {
				t.Fatalf("ParseEmbed: %v, want parsed %v", err, tc.parsed)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("error %v does not match ErrInvalid", err)
				}
				return
			}
			if got := r.Verify(testSecret); got != tc.verifies {
				t.Errorf("Verify = %v, want %v", got, tc.verifies)
			}
			if r.SVG != tc.svg || r.Width != tc.width {
				t.Errorf("svg %v width %d, want %v %d", r.SVG, r.Width, tc.svg, tc.width)
			}
		})
	}
	var zero EmbedRequest
	if zero.Verify(testSecret) {
		t.Error("a zero EmbedRequest verifies")
	}
}

// TestSignEmbedRefuses: SignEmbed makes no link ParseEmbed would refuse.
func TestSignEmbedRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		e      Embed
		secret []byte
	}{
		{"short secret", Embed{ChartID: testChart, KID: testKID}, []byte("short")},
		{"bad chart id", Embed{ChartID: "x", KID: testKID}, testSecret},
		{"bad kid", Embed{ChartID: testChart, KID: "a b"}, testSecret},
		{"bad theme", Embed{ChartID: testChart, KID: testKID, Theme: "blue"}, testSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := SignEmbed(testHost, tc.e, tc.secret); !errors.Is(err, ErrInvalid) {
				t.Errorf("SignEmbed: %v, want ErrInvalid", err)
			}
		})
	}
}
