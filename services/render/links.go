package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/imagelink"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
)

// LinkConfig sets how public image links are served (flags -render.*).
type LinkConfig struct {
	// KeyTTL is how long a signing key (or its absence) is remembered. A
	// rotation or revocation drops the key at once (Deps.Revocations); the
	// TTL bounds one whose event was lost.
	KeyTTL time.Duration
	// LiveMaxAge is the Cache-Control max-age of a live link's answer,
	// never past the link's expiry.
	LiveMaxAge time.Duration
	// PerAddress and PerLink are the requests a minute one client address,
	// and one link, may make.
	PerAddress, PerLink int
}

// RegisterFlags declares the link flags under prefix.
func (c *LinkConfig) RegisterFlags(prefix string, fs *flag.FlagSet) {
	fs.DurationVar(&c.KeyTTL, prefix+".signing-key-ttl", 30*time.Second, "how long image-link signing keys are cached; rotation and revocation drop them at once through Redis, this bounds one whose message is lost")
	fs.DurationVar(&c.LiveMaxAge, prefix+".live-link-max-age", 30*time.Second, "Cache-Control max-age of a live image link (at most 60s)")
	fs.IntVar(&c.PerAddress, prefix+".link-rate-address", 600, "image-link requests a minute per client address")
	fs.IntVar(&c.PerLink, prefix+".link-rate-link", 1200, "image-link requests a minute per link")
}

// dataLinkMaxAge is how long a data link's answer may be cached (a year,
// or until the link expires).
const dataLinkMaxAge = 365 * 24 * time.Hour

// Link expiry bounds of create_image_url (spec).
const (
	minExpiresIn = 60
	maxExpiresIn = 315_360_000
)

// ImageURLRequest is the create_image_url body.
type ImageURLRequest struct {
	ID          *string        `json:"id" api:"required"`
	Format      *string        `json:"format" enum:"png,svg"`
	Scale       *int           `json:"scale" enum:"1,2,4"`
	Width       *int           `json:"width"`
	Height      *int           `json:"height"`
	Transparent *bool          `json:"transparent"`
	Theme       *string        `json:"theme" enum:"light,dark,auto"`
	Data        jsontext.Value `json:"data"`
	DataFormat  *string        `json:"data_format" enum:"csv,tsv,json"`
	ExpiresIn   *int64         `json:"expires_in"`
}

// ImageURLAnswer is the create_image_url answer.
type ImageURLAnswer struct {
	URL       string           `json:"url"`
	ExpiresAt *string          `json:"expires_at"`
	Chart     aggregate.Record `json:"chart"`
}

// createImageURL signs a public link to a chart's picture; it costs
// nothing until the picture is opened.
func (s *Service) createImageURL(ctx context.Context, p auth.Principal, req ImageURLRequest) (ImageURLAnswer, error) {
	if s.deps.Accounts == nil || s.deps.Box == nil {
		return ImageURLAnswer{}, errors.New("image links need the account store and the server key")
	}
	if req.ID == nil || *req.ID == "" {
		return ImageURLAnswer{}, apierr.New(apierr.InvalidRequest, "id is required: the chart to link to")
	}
	o, err := BodyOptions{Format: req.Format, Scale: req.Scale, Width: req.Width, Height: req.Height, Transparent: req.Transparent, Theme: req.Theme}.options()
	if err != nil {
		return ImageURLAnswer{}, err
	}
	link := imagelink.Link{ChartID: *req.ID, Format: o.format, Scale: o.scale, Width: o.width, Height: o.height, Transparent: o.transparent, Theme: o.theme}
	now := s.deps.Now()
	var expiresAt *string
	if req.ExpiresIn != nil {
		if *req.ExpiresIn < minExpiresIn || *req.ExpiresIn > maxExpiresIn {
			return ImageURLAnswer{}, apierr.New(apierr.InvalidRequest, "expires_in %d: use %d to %d seconds, or leave it out for a link that lasts until its signing key is rotated", *req.ExpiresIn, minExpiresIn, maxExpiresIn)
		}
		exp := now.Add(time.Duration(*req.ExpiresIn) * time.Second).Truncate(time.Second)
		link.Expires = exp.Unix()
		at := exp.UTC().Format(aggregate.TimeLayout)
		expiresAt = &at
	}
	c, err := s.charts.Load(ctx, p, *req.ID, aggregate.WithTable)
	if err != nil {
		return ImageURLAnswer{}, err
	}
	format, err := dataset.CheckFormat("data_format", req.DataFormat)
	if err != nil {
		return ImageURLAnswer{}, err
	}
	if httpx.Present(req.Data) {
		// The link draws this data: check now that it fits the chart.
		if _, _, err := s.withData(c.Spec, c.Table, req.Data, format); err != nil {
			return ImageURLAnswer{}, err
		}
		link.Data, link.DataFormat, err = linkData(req.Data, format)
		if err != nil {
			return ImageURLAnswer{}, err
		}
		if n := encodedLen(len(link.Data)); n > imagelink.MaxDataLen {
			return ImageURLAnswer{}, apierr.New(apierr.InvalidRequest, "data is %d characters once encoded; a link holds at most %d (about 3,000 characters of CSV): send less data, or save it with set_data and link to the live chart", n, imagelink.MaxDataLen)
		}
	} else if req.DataFormat != nil {
		return ImageURLAnswer{}, apierr.New(apierr.InvalidRequest, "data_format is given without data")
	}
	key, secret, err := s.signingKey(ctx, p.AccountID)
	if err != nil {
		return ImageURLAnswer{}, err
	}
	link.KID = key
	site, err := url.Parse(s.cfg.PublicURL)
	if err != nil {
		return ImageURLAnswer{}, fmt.Errorf("public url: %w", err)
	}
	path, err := imagelink.Sign(site.Host, link, secret)
	if err != nil {
		return ImageURLAnswer{}, fmt.Errorf("sign image link: %w", err)
	}
	if len(link.Data) > 0 {
		// A data link keeps the design it was made with: its picture never
		// changes, whatever happens to the chart later.
		if err := s.keepDesign(ctx, p, path, link, c); err != nil {
			return ImageURLAnswer{}, err
		}
	}
	return ImageURLAnswer{URL: strings.TrimRight(s.cfg.PublicURL, "/") + path, ExpiresAt: expiresAt,
		Chart: aggregate.RecordOf(s.cfg.PublicURL, c.Stored)}, nil
}

// linkData is what a link carries of sent data: the text itself for CSV
// or TSV sent as a string (not its JSON spelling, whose quotes and escapes
// would eat the 4,000 characters), the compact JSON for rows.
func linkData(v jsontext.Value, format string) ([]byte, string, error) {
	if v.Kind() == '"' {
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return nil, "", apierr.New(apierr.InvalidRequest, "data: %v", err)
		}
		return []byte(text), format, nil
	}
	compact := jsontext.Value(bytes.Clone(v))
	if err := compact.Compact(); err != nil {
		return nil, "", apierr.New(apierr.InvalidRequest, "data: %v", err)
	}
	return compact, "json", nil
}

// linkTable is the data a link carries, as the request parser takes it.
func linkTable(data []byte, format string) (jsontext.Value, string, error) {
	if format == "json" {
		return jsontext.Value(data), "", nil
	}
	quoted, err := json.Marshal(string(data))
	if err != nil {
		return nil, "", err
	}
	return jsontext.Value(quoted), format, nil
}

// linkDesign is what a data link draws its data with: the chart's spec
// and columns when the link was made.
type linkDesign struct {
	Spec    *chartspec.Spec   `json:"spec"`
	Columns []*dataset.Column `json:"columns"`
}

// designID names a data link's design: its signature, unique per link.
func designID(pathAndQuery string) (string, error) {
	_, query, _ := strings.Cut(pathAndQuery, "?")
	v, err := url.ParseQuery(query)
	if err != nil || v.Get("sig") == "" {
		return "", fmt.Errorf("image link without a signature: %q", pathAndQuery)
	}
	return v.Get("sig"), nil
}

// keepDesign stores the design a data link was made with: the spec and
// only the columns it draws (a link's data brings its own), once per
// account however many links share it, within the plan's counts of
// designs and links; the row keeps the link's kid and expiry, which free
// its room.
func (s *Service) keepDesign(ctx context.Context, p auth.Principal, path string, link imagelink.Link, c *aggregate.Chart) error {
	id, err := designID(path)
	if err != nil {
		return err
	}
	drawn, err := drawnColumns(c.Spec)
	if err != nil {
		return err
	}
	var cols []*dataset.Column
	for _, col := range c.Table.Columns {
		if drawn[col.ID] {
			cols = append(cols, &dataset.Column{ID: col.ID, Name: col.Name, Kind: col.Kind})
		}
	}
	spec := c.Spec.Clone()
	// The data is the link's: the chart's data version would only keep
	// equal designs apart.
	spec.DataVersion = ""
	b, err := json.Marshal(linkDesign{Spec: spec, Columns: cols})
	if err != nil {
		return fmt.Errorf("encode link design: %w", err)
	}
	row := store.DataLink{ID: id, ChartID: c.Stored.ID, KID: link.KID, Design: b}
	if link.Expires > 0 {
		row.Expires = time.Unix(link.Expires, 0)
	}
	limits := plan.LimitsOf(p.Plan)
	err = s.deps.Accounts.PutLinkDesign(ctx, p.AccountID, row, store.LinkLimits{Designs: limits.LinkDesigns, Links: limits.DataLinks})
	if errors.Is(err, store.ErrLinkLimit) {
		return apierr.New(apierr.ImageLimitReached, "this account keeps its %d links made with data, the most its plan holds: rotate the signing key on the account page to stop the old links and free their room (links made with expires_in free theirs when they expire), or link to the live chart (a link without data keeps nothing)", limits.DataLinks)
	}
	if errors.Is(err, store.ErrLimit) {
		return apierr.New(apierr.ImageLimitReached, "this account keeps the designs of its data links, and holds its %d: link to the live chart, make data links of charts already linked, or rotate the signing key on the account page to stop the old links and free their designs", limits.LinkDesigns)
	}
	if err != nil {
		return fmt.Errorf("keep link design: %w", err)
	}
	return nil
}

// drawnColumns names the columns the spec draws: its roles and the
// columns its steps read.
func drawnColumns(spec *chartspec.Spec) (map[string]bool, error) {
	used := map[string]bool{}
	for _, ref := range spec.Mapping {
		for _, id := range ref.IDs {
			used[id] = true
		}
	}
	for i, raw := range spec.Steps {
		ids, err := stepColumns(raw)
		if err != nil {
			return nil, fmt.Errorf("steps[%d]: %w", i, err)
		}
		for _, id := range ids {
			used[id] = true
		}
	}
	return used, nil
}

// design loads the design a data link was made with; ok is false for a
// link made before designs were kept, which draws with the chart's own.
func (s *Service) design(ctx context.Context, account, sig string) (*chartspec.Spec, *dataset.Table, bool, error) {
	b, err := s.deps.Accounts.GetLinkDesign(ctx, account, sig)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("load link design: %w", err)
	}
	var d linkDesign
	if err := json.Unmarshal(b, &d); err != nil || d.Spec == nil {
		return nil, nil, false, fmt.Errorf("decode link design: %w", err)
	}
	return d.Spec, &dataset.Table{Columns: d.Columns}, true, nil
}

// encodedLen is the length of n bytes in unpadded base64url.
func encodedLen(n int) int { return (n*8 + 5) / 6 }

// signingKey answers the account's newest live signing key, making one
// when it has none.
func (s *Service) signingKey(ctx context.Context, account string) (kid string, secret []byte, err error) {
	keys, err := s.deps.Accounts.ListSigningKeys(ctx, account)
	if err != nil {
		return "", nil, fmt.Errorf("list signing keys: %w", err)
	}
	var newest *store.SigningKey
	for i := range keys {
		k := &keys[i]
		if k.RevokedAt == nil && (newest == nil || k.CreatedAt.After(newest.CreatedAt)) {
			newest = k
		}
	}
	if newest != nil {
		sec, _, err := signing.Open(s.deps.Box, *newest)
		if err != nil {
			return "", nil, fmt.Errorf("open signing key %s: %w", newest.ID, err)
		}
		return newest.ID, sec, nil
	}
	k, sec, err := signing.Create(ctx, s.deps.Accounts, s.deps.Box, account)
	if err != nil {
		return "", nil, fmt.Errorf("create signing key: %w", err)
	}
	return k.ID, sec, nil
}

// liveMaxAge is the max-age, in whole seconds, of a live link's answer
// sent at now: maxAge, but never past the link's expiry (Unix seconds, 0
// for none), so no cache shows the picture once the link has stopped.
func liveMaxAge(maxAge time.Duration, expires int64, now time.Time) int64 {
	if expires > 0 {
		maxAge = min(maxAge, time.Unix(expires, 0).Sub(now))
	}
	return int64(max(maxAge, 0) / time.Second)
}

// errNoImage is every refusal of a link: one answer for every cause, so a
// prober learns nothing about which check failed.
func errNoImage(cause error) error {
	return apierr.Wrap(apierr.NotFound, cause, imagelink.Refused)
}

// image serves a public image link (GET /img/<id>.<format>): no key, the
// link's own signature.
func (s *Service) image(w http.ResponseWriter, r *http.Request) error {
	if !s.limitLink(w, r) {
		return nil
	}
	if s.keys == nil {
		return errNoImage(errors.New("image links are not configured"))
	}
	lr, err := imagelink.Parse(r.Host, r.URL.EscapedPath(), r.URL.RawQuery)
	if err != nil {
		return errNoImage(err)
	}
	l := lr.Link
	account, secret, err := s.keys.Secret(r.Context(), l.KID)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, signing.ErrLegacy):
		return errNoImage(err)
	case err != nil:
		return fmt.Errorf("signing key %s: %w", l.KID, err)
	}
	if !lr.Verify(secret) {
		return errNoImage(errors.New("signature does not verify"))
	}
	now := s.deps.Now()
	if lr.Expired(now) {
		return errNoImage(errors.New("link expired"))
	}
	acct, err := s.deps.Accounts.GetAccount(r.Context(), account)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errNoImage(err)
		}
		return fmt.Errorf("load account: %w", err)
	}
	p := auth.Principal{AccountID: account, Plan: acct.Plan}
	match := r.Header.Get("If-None-Match")
	month := quota.Month.Start(now)
	// The link's path and query, verified above: the key of what the
	// process knows of its answer.
	key := r.Host + r.URL.EscapedPath() + "?" + r.URL.RawQuery
	if k, ok := s.known.links.Get(key); ok {
		// One read of the chart's record (no data, no drawing) proves the
		// picture unchanged: its last save is the one the answer was drawn at.
		c, err := s.charts.Load(r.Context(), p, l.ChartID, aggregate.SpecOnly)
		if err != nil {
			s.known.links.Remove(key)
			var ae *apierr.Error
			if errors.As(err, &ae) && ae.Code == apierr.NotFound {
				return errNoImage(err)
			}
			return err
		}
		if k.fresh(account, acct.Plan, c.Stored.UpdatedAt, month) {
			pic := picture{hash: k.hash, lint: k.lint, notices: k.notices}
			if match != "" && etagMatch(match, pictureETag(k.hash)) {
				pic.notModified = true
				s.answerLink(w, r, l, pic, now)
				return nil
			}
			if b, ok := s.known.bodies.Get(k.hash); ok {
				pic.body, pic.contentType = b.body, b.contentType
				s.answerLink(w, r, l, pic, now)
				return nil
			}
		}
	}
	c, err := s.charts.Load(r.Context(), p, l.ChartID, aggregate.WithTable)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Code == apierr.NotFound {
			return errNoImage(err)
		}
		return err
	}
	spec, t := c.Spec, c.Table
	if len(l.Data) > 0 {
		if dspec, dtable, ok, err := s.design(r.Context(), account, r.URL.Query().Get("sig")); err != nil {
			return err
		} else if ok {
			spec, t = dspec, dtable
		}
		raw, format, err := linkTable(l.Data, l.DataFormat)
		if err != nil {
			return errNoImage(err)
		}
		if spec, t, err = s.withData(spec, t, raw, format); err != nil {
			// The chart changed under the link's data: no picture.
			return errNoImage(err)
		}
	}
	o := imageOptions{format: l.Format, scale: l.Scale, width: l.Width, height: l.Height, transparent: l.Transparent, theme: l.Theme, name: "chart", fonts: fontsEmbedded}
	// Each different picture counts once a month, by the picture hash,
	// as every render does; a 304 is decided after the count and before
	// any rasterizing.
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: o, charge: chargeImage, viaLink: true,
		fresh: func(hash string) bool { return match != "" && etagMatch(match, pictureETag(hash)) }})
	if isDrawFailure(err) {
		return errNoImage(err)
	}
	if err != nil {
		return err
	}
	// Counted in this month, drawn from the chart as saved at c's last
	// save: until either changes, the same link answers the same.
	s.known.links.Add(key, knownLink{account: account, plan: acct.Plan, saved: c.Stored.UpdatedAt, month: month,
		hash: pic.hash, lint: pic.lint, notices: pic.notices})
	if !pic.notModified {
		s.known.keepBody(pic.hash, pic.contentType, pic.body)
	}
	s.answerLink(w, r, l, pic, now)
	return nil
}

// answerLink writes an image link's answer: pic, or 304 when the caller
// has it.
func (s *Service) answerLink(w http.ResponseWriter, r *http.Request, l imagelink.Link, pic picture, now time.Time) {
	h := w.Header()
	h.Set("ETag", pictureETag(pic.hash))
	setNotices(h, pic)
	if len(l.Data) > 0 {
		// A data link never changes: cache it until it expires.
		age := int64(dataLinkMaxAge / time.Second)
		if l.Expires > 0 {
			age = min(age, l.Expires-now.Unix())
		}
		h.Set("Cache-Control", "public, max-age="+strconv.FormatInt(max(age, 0), 10)+", immutable")
	} else {
		h.Set("Cache-Control", "public, max-age="+strconv.FormatInt(liveMaxAge(s.cfg.Links.LiveMaxAge, l.Expires, now), 10))
	}
	if pic.notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", pic.contentType)
	h.Set("Content-Length", strconv.Itoa(len(pic.body)))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": "chart." + l.Format}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", PictureCSP)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(pic.body)
	}
}

// pictureETag is an image link's ETag: the picture hash, cut short.
func pictureETag(hash string) string { return `"` + hash[:32] + `"` }

// etagMatch reads an If-None-Match list.
func etagMatch(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == etag || v == "*" {
			return true
		}
	}
	return false
}

// limitLink applies the per-address and per-link allowances and writes the
// rate-limit headers of the tighter one.
func (s *Service) limitLink(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Limiter == nil {
		return true
	}
	addr, ok := auth.ClientIP(r.Header, s.cfg.Site.InternalToken)
	if !ok {
		// Not through the gateway (an ingress sends /img here): read
		// the address behind this service's own trusted proxies.
		addr = s.cfg.TrustedProxies.ClientIP(r)
	}
	sig := r.URL.Query().Get("sig")
	if len(sig) > 64 {
		sig = sig[:64]
	}
	byAddr, err1 := s.deps.Limiter.Allow(r.Context(), "img-addr:"+addr, quota.Limit{Rate: s.cfg.Links.PerAddress, Period: time.Minute})
	byLink, err2 := s.deps.Limiter.Allow(r.Context(), "img-link:"+r.URL.Path+"?"+sig, quota.Limit{Rate: s.cfg.Links.PerLink, Period: time.Minute})
	if err1 != nil || err2 != nil {
		// The limiter survives Redis outages; an error here is a bug worth a log line.
		s.deps.Log.ErrorContext(r.Context(), "image link limiter", "err", errors.Join(err1, err2))
		return true
	}
	res := byAddr
	if !byLink.Allowed || (byAddr.Allowed && byLink.Remaining < byAddr.Remaining) {
		res = byLink
	}
	res.SetHeaders(w.Header())
	if res.Allowed {
		return true
	}
	s.errs.Write(w, r, apierr.New(apierr.RateLimited, "too many requests for this image: the allowance is %d a minute; retry in %d s", res.Limit, res.RetryAfterSeconds()))
	return false
}

// imageRoute is the public link path, served without a key.
const imageRoute = "/img/{id}.{format}"
