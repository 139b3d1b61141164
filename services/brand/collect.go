package brand

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/brand"
	"chartd.dev/libs/fetch"
)

// maxRefreshes is how many meta-refresh pages a lookup follows before it
// reads the page it lands on, the same bound as HTTP redirects.
const maxRefreshes = 5

// fetchParallel is how many of a site's documents are fetched at once.
const fetchParallel = 6

// collect fetches what brand.Extract reads from one website: the page (a
// meta refresh within brand.MaxRefreshDelay is followed like a redirect),
// then the stylesheets, manifest and images brand.Links names, then the
// logos the stylesheets draw (brand.CSSLogos), all under one fetch.Site
// budget. Only a failure of the page is an error; a
// stylesheet or icon that fails is left out, as a browser would. A page
// larger than its budget is read up to it.
func collect(ctx context.Context, f *fetch.Fetcher, pageURL string, log *slog.Logger) (brand.Site, error) {
	site := f.Site()
	var page *fetch.Response
	var want brand.Wanted
	for hop := 0; ; hop++ {
		resp, err := site.Get(ctx, pageURL, fetch.HTML)
		if err != nil && !(errors.Is(err, fetch.ErrTooLarge) && resp != nil) {
			return brand.Site{}, err
		}
		page, want = resp, brand.Links(resp.FinalURL, resp.Body)
		if want.Refresh == "" || want.Refresh == resp.FinalURL {
			break
		}
		if hop == maxRefreshes {
			return brand.Site{}, apierr.New(apierr.InvalidRequest, "%s sends the browser on (meta refresh) more than %d times; give the address of the page it ends on", pageURL, maxRefreshes)
		}
		pageURL = want.Refresh
	}

	out := brand.Site{URL: page.FinalURL, HTML: page.Body,
		Stylesheets: make([]brand.Doc, len(want.Stylesheets)),
		Images:      make([]brand.Image, len(want.Images))}
	var wg sync.WaitGroup
	slots := make(chan struct{}, fetchParallel)
	get := func(u string, kind fetch.Kind, keep func(*fetch.Response)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			r, err := site.Get(ctx, u, kind)
			if err != nil && !(errors.Is(err, fetch.ErrTooLarge) && r != nil) {
				log.DebugContext(ctx, "brand: document left out", "url", u, "kind", kind.String(), "err", err)
				return
			}
			keep(r)
		}()
	}
	for i, u := range want.Stylesheets {
		get(u, fetch.Stylesheet, func(r *fetch.Response) { out.Stylesheets[i] = brand.Doc{URL: r.FinalURL, Body: r.Body} })
	}
	if want.Manifest != "" {
		get(want.Manifest, fetch.Manifest, func(r *fetch.Response) { out.Manifest = r.Body })
	}
	for i, im := range want.Images {
		get(im.URL, fetch.Image, func(r *fetch.Response) {
			out.Images[i] = brand.Image{URL: r.FinalURL, ContentType: r.ContentType, Body: r.Body, Role: im.Role}
		})
	}
	wg.Wait()
	out.Stylesheets = slices.DeleteFunc(out.Stylesheets, func(d brand.Doc) bool { return d.Body == nil })
	out.Images = slices.DeleteFunc(out.Images, func(im brand.Image) bool { return im.Body == nil })
	// Then the logos the stylesheets draw, with the image fetches left.
	if css := brand.CSSLogos(out, brand.MaxImages-len(want.Images)); len(css) > 0 && ctx.Err() == nil {
		more := make([]brand.Image, len(css))
		for i, im := range css {
			get(im.URL, fetch.Image, func(r *fetch.Response) {
				more[i] = brand.Image{URL: r.FinalURL, ContentType: r.ContentType, Body: r.Body, Role: im.Role}
			})
		}
		wg.Wait()
		out.Images = append(out.Images, slices.DeleteFunc(more, func(im brand.Image) bool { return im.Body == nil })...)
	}
	if err := ctx.Err(); err != nil {
		return brand.Site{}, fmt.Errorf("fetch %s: %w", pageURL, err)
	}
	return out, nil
}
