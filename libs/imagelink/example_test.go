package imagelink_test

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"chartd.dev/libs/imagelink"
)

// The whole life of a link: create_image_url signs it for the site's host,
// and /img parses the request, finds the secret by kid, verifies and checks
// the expiry, answering the same 404 for every refusal.
func Example() {
	secret := []byte("a random secret of 32 bytes.....")
	site, _ := url.Parse("https://chartd.example")
	created := time.Unix(1_760_000_000, 0)

	pq, err := imagelink.Sign(site.Host, imagelink.Link{
		ChartID: "0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b", Format: "png", KID: "k1", Scale: 2,
		Expires: created.Add(time.Hour).Unix(),
	}, secret)
	if err != nil {
		panic(err)
	}
	u, _ := url.Parse(site.String() + pq)

	// On the render target, with u standing in for the request's r.URL and
	// u.Host for r.Host:
	lookup := func(kid string) ([]byte, bool) { return secret, kid == "k1" }
	serve := func(host string, u *url.URL, now time.Time) string {
		r, err := imagelink.Parse(host, u.EscapedPath(), u.RawQuery)
		if err != nil {
			return "404" // log err: it names the reason
		}
		key, ok := lookup(r.Link.KID)
		if !ok || !r.Verify(key) || r.Expired(now) {
			return "404"
		}
		return fmt.Sprintf("200 chart %s at scale %d", r.Link.ChartID, r.Link.Scale)
	}
	fmt.Println(serve(u.Host, u, created))
	fmt.Println(serve("evil.example", u, created))
	fmt.Println(serve(u.Host, u, created.Add(time.Hour)))
	// Output:
	// 200 chart 0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b at scale 2
	// 404
	// 404
}

// Sign makes the path and query of a link for the site's host; the site
// prepends its own origin. Parameters come in a fixed order, sig last.
func ExampleSign() {
	secret := []byte("a random secret of 32 bytes.....")
	pq, err := imagelink.Sign("chartd.example", imagelink.Link{
		ChartID: "0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b", Format: "png", KID: "k1", Scale: 2, Width: 800, Height: 450,
	}, secret)
	if err != nil {
		panic(err)
	}
	fmt.Println("https://chartd.example" + pq)

	_, err = imagelink.Sign("chartd.example", imagelink.Link{
		ChartID: "0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b", Format: "png", KID: "k1", Scale: 3,
	}, secret)
	fmt.Println(errors.Is(err, imagelink.ErrInvalid), err)
	// Output:
	// https://chartd.example/img/0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b.png?kid=k1&scale=2&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y
	// true imagelink: invalid link: scale is not 1, 2 or 4
}

// Parse reads a link as it arrived, strictly, and answers what it asks for
// and the kid of the secret to verify it with; it does not check the
// signature. Any other spelling of the same value is refused.
func ExampleParse() {
	const path = "/img/0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b.png"
	r, err := imagelink.Parse("chartd.example", path, "kid=k1&scale=2&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Link.KID, r.Link.Format, r.Link.Scale, r.Link.Width, r.Link.Height)

	_, err = imagelink.Parse("chartd.example", path, "kid=k1&scale=02&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y")
	fmt.Println(err)
	// Output:
	// k1 png 2 800 450
	// imagelink: invalid link: scale is not 1, 2 or 4
}

// Verify checks a parsed link against the secret its kid names: an edited
// parameter, another host or another secret fails.
func ExampleRequest_Verify() {
	secret := []byte("a random secret of 32 bytes.....")
	const path = "/img/0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b.png"
	for _, c := range []struct{ host, query string }{
		{"chartd.example", "kid=k1&scale=2&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y"},
		{"chartd.example", "kid=k1&scale=4&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y"},
		{"other.example", "kid=k1&scale=2&w=800&h=450&sig=is8d441S32-b2nwe7Y5FiFZWpN46_9aHC7XDIp8x72Y"},
	} {
		r, err := imagelink.Parse(c.host, path, c.query)
		if err != nil {
			panic(err)
		}
		fmt.Println(c.host, c.query[:15], r.Verify(secret), r.Verify([]byte("another secret of 32 bytes......")))
	}
	// Output:
	// chartd.example kid=k1&scale=2& true false
	// chartd.example kid=k1&scale=4& false false
	// other.example kid=k1&scale=2& false false
}
