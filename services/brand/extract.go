package brand

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/brand"
	"chartd.dev/libs/fetch"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
)

// ExtractRequest is the body of extract_brand_palette.
type ExtractRequest struct {
	// URL is the website; "stripe.com" (no scheme) means https://stripe.com/.
	URL *string `json:"url" api:"required"`
}

// Extracted is the answer of extract_brand_palette: the brand's colours,
// most salient first, and how many of them the saved palette lacks
// (DESIGN §7). Nothing is saved.
type Extracted struct {
	Colors []string `json:"colors"`
	Added  int      `json:"added"`
	// Sources says why each colour was picked, so a person can check the
	// answer against the page; in the order of Colors.
	Sources []ColorSource `json:"sources"`
}

// ColorSource is the strongest evidence for one extracted colour, in a few
// words ("logo SVG fill", "CSS --brand-red", "painted area 31 %").
type ColorSource struct {
	Color  string `json:"color"`
	Source string `json:"source"`
}

// lookupsKey is the counter of the websites an account looked up today.
func lookupsKey(account string) string { return "brand-lookups:" + account }

// mayExtract refuses a plan without website lookups, before the body is
// read.
func mayExtract(p auth.Principal) error {
	if plan.LimitsOf(p.Plan).BrandLookups == 0 {
		return apierr.New(apierr.ForbiddenPlan, "extracting a brand palette from a website needs the Pro plan; this account is on the %s plan (set_brand_palette is Pro too; get_brand_palette works on every plan)", p.Plan)
	}
	return nil
}

func (s *Service) extract(ctx context.Context, p auth.Principal, req ExtractRequest) (Extracted, error) {
	limits := plan.LimitsOf(p.Plan)
	if req.URL == nil {
		return Extracted{}, apierr.New(apierr.InvalidRequest, "url is required: the website to read the brand colours from, e.g. stripe.com")
	}
	pageURL, err := fetch.NormalizeURL(*req.URL)
	if err != nil {
		return Extracted{}, fetchRefusal(err)
	}
	if err := s.takeLookup(ctx, p, limits.BrandLookups, pageURL); err != nil {
		return Extracted{}, err
	}
	start := time.Now()
	res, err := s.lookup(ctx, pageURL)
	s.metrics.looked(ctx, time.Since(start), err)
	if err != nil {
		return Extracted{}, err
	}
	saved, err := s.saved(ctx, p)
	if err != nil {
		return Extracted{}, err
	}
	added := 0
	for _, c := range res.Colors {
		if !slices.Contains(saved, c) {
			added++
		}
	}
	sources := make([]ColorSource, len(res.Colors))
	for i, c := range res.Colors {
		sources[i] = ColorSource{Color: c, Source: res.Sources[i]}
	}
	return Extracted{Colors: res.Colors, Added: added, Sources: sources}, nil
}

// takeLookup counts the website against the account's daily allowance: a
// site already looked up today is free, a new one needs room.
func (s *Service) takeLookup(ctx context.Context, p auth.Principal, limit int, pageURL string) error {
	site := SiteOf(pageURL)
	_, ok, err := s.deps.Counter.AddUniqueWithin(ctx, lookupsKey(p.AccountID), quota.Day, site, limit)
	if err != nil {
		return fmt.Errorf("count brand lookup of %s: %w", site, err)
	}
	if !ok {
		reset := quota.Day.Reset(s.deps.Now())
		e := apierr.New(apierr.RateLimited, "this account has looked up %d different websites today, the %s plan's daily allowance; the sites already looked up today can be looked up again for free, and new ones wait until the allowance resets at 00:00 UTC, in %s",
			limit, p.Plan, resetIn(reset))
		e.RetryAfter = reset
		return e
	}
	return nil
}

// lookup fetches the site and extracts its colours; every failure a user
// can act on is an invalid_request saying what happened.
func (s *Service) lookup(ctx context.Context, pageURL string) (brand.Result, error) {
	site, err := collect(ctx, s.deps.Fetcher, pageURL, s.deps.Log)
	if err != nil {
		return brand.Result{}, fetchRefusal(err)
	}
	res, err := brand.Extract(site)
	if errors.Is(err, brand.ErrNoColors) {
		return brand.Result{}, apierr.New(apierr.InvalidRequest, "no brand colours found at %s: its page, stylesheets, web manifest and icons name no colour; save the palette yourself with set_brand_palette", site.URL)
	}
	if err != nil {
		return brand.Result{}, fmt.Errorf("extract brand colours of %s: %w", site.URL, err)
	}
	s.logWhy(ctx, site.URL, res)
	return res, nil
}

// logWhy writes, at debug level, why each colour ranks where it does (its
// heaviest evidence: logo, theme-color, brand variable, button on N
// elements…), one record per colour, so an operator can see why a site got
// the palette it got. It costs nothing when debug is off.
func (s *Service) logWhy(ctx context.Context, site string, res brand.Result) {
	if !s.deps.Log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	why := brand.Explain(res)
	for i, c := range res.Colors {
		s.deps.Log.DebugContext(ctx, "brand: colour", "site", site, "rank", i+1, "color", c, "why", why[c])
	}
}

// fetchRefusal turns a fetcher's refusal or failure into invalid_request
// with its sentence; anything else (the client went away) passes through.
func fetchRefusal(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return apierr.Wrap(apierr.InvalidRequest, err, "%s", fe.Error())
	}
	return err
}

// SiteOf is the identity of a website for the daily allowance: its host
// name without "www.", with the port when one is named, so stripe.com,
// https://www.stripe.com/pricing and http://Stripe.com count once.
func SiteOf(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		return pageURL
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		return net.JoinHostPort(host, port)
	}
	return host
}

// resetIn says a wait in whole hours or minutes.
func resetIn(d time.Duration) string {
	if d >= 2*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Hours()+0.5))
	}
	return fmt.Sprintf("%d minutes", max(1, int(d.Minutes()+0.5)))
}
