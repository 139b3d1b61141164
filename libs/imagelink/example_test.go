package imagelink_test

import (
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
