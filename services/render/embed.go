package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/imagelink"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
)

//go:embed templates/embed.html
var embedFS embed.FS

// The embed routes, served from the site root without a key.
const (
	embedRoute  = imagelink.EmbedPrefix + "{id}"
	oembedRoute = "/oembed"
)

// embedMinText is the smallest type of an embed's picture, read at its
// own size on a phone.
const embedMinText = draw.ReadingMinText

// embedWidthStep is the step an embed's width is drawn at: a frame 333 px
// wide gets the 320 px picture stretched to fill it, so a chart read on
// every phone counts a few pictures a month, not one per pixel.
const embedWidthStep = 20

// embedMaxAge caps how long an embed's page and pictures are cached: an
// edit shows on the next load after at most this.
const embedMaxAge = 60 * time.Second

// embedPageRev changes the page ETags when the page's markup changes.
const embedPageRev = "1"

// EmbedCSP lets any site frame an embed's page, and the page run only the
// site's own script and reach only the site. Styles may be inline: the
// SVG carries its font faces in a <style>.
const EmbedCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src data:; connect-src 'self'; " +
	"frame-ancestors *; base-uri 'none'; form-action 'none'"

// EmbedRequest is the create_embed body.
type EmbedRequest struct {
	ID    string  `path:"id" json:"-"`
	Theme *string `json:"theme" enum:"auto,light,dark"`
}

// EmbedAnswer is the create_embed answer: the page, the code that frames
// it and its oEmbed address.
type EmbedAnswer struct {
	URL       string `json:"url"`
	HTML      string `json:"html"`
	OEmbedURL string `json:"oembed_url"`
}

// createEmbed signs a responsive embed of a chart; like an image link it
// costs nothing until it is opened.
func (s *Service) createEmbed(ctx context.Context, p auth.Principal, req EmbedRequest) (EmbedAnswer, error) {
	if s.deps.Accounts == nil || s.deps.Box == nil {
		return EmbedAnswer{}, errors.New("embeds need the account store and the server key")
	}
	theme := ""
	if req.Theme != nil {
		switch theme = *req.Theme; theme {
		case "auto", "light", "dark":
		default:
			return EmbedAnswer{}, apierr.New(apierr.InvalidRequest, "theme %q: use auto (the reader's light or dark setting), light or dark, or leave it out for the chart's own", theme)
		}
	}
	c, err := s.charts.Load(ctx, p, req.ID, aggregate.SpecOnly)
	if err != nil {
		return EmbedAnswer{}, err
	}
	kid, secret, err := s.signingKey(ctx, p.AccountID)
	if err != nil {
		return EmbedAnswer{}, err
	}
	site, err := url.Parse(s.cfg.PublicURL)
	if err != nil {
		return EmbedAnswer{}, fmt.Errorf("public url: %w", err)
	}
	path, err := imagelink.SignEmbed(site.Host, imagelink.Embed{ChartID: c.Stored.ID, KID: kid, Theme: theme}, secret)
	if err != nil {
		return EmbedAnswer{}, fmt.Errorf("sign embed: %w", err)
	}
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	_, h := embedSize(c.Spec, 0)
	return EmbedAnswer{URL: base + path, HTML: embedHTML(base, base+path, c.Stored.ID, embedTitle(c), h), OEmbedURL: oembedURL(base, base+path)}, nil
}

// embedHTML is the code a host page carries: the frame, as wide as its
// column, and the site's script that sets its height from the page's
// messages.
func embedHTML(base, pageURL, id, title string, height int) string {
	return `<iframe src="` + html.EscapeString(pageURL) + `" title="` + html.EscapeString(title) + `" data-chartd-embed="` + id +
		`" scrolling="no" style="width:100%;height:` + strconv.Itoa(height) + `px;border:0"></iframe><script async src="` + html.EscapeString(base) + `/embed.js"></script>`
}

// oembedURL is the oEmbed address of an embed page.
func oembedURL(base, pageURL string) string {
	return base + oembedRoute + "?url=" + url.QueryEscape(pageURL) + "&format=json"
}

// embedTitle names the chart: its title when it shows one, else its name.
func embedTitle(c *aggregate.Chart) string {
	if t := strings.TrimSpace(c.Spec.Style.Title.Text); t != "" && c.Spec.Style.Title.Show {
		return t
	}
	if c.Stored.Name != "" {
		return c.Stored.Name
	}
	return "Chart"
}

// embedSize is the canvas an embed draws at width w (0: the chart's own
// size; see draw.SizeAtWidth).
func embedSize(spec *chartspec.Spec, w int) (int, int) { return draw.SizeAtWidth(spec, w) }

// snapWidth is the width an embed's picture is drawn at for a frame w
// wide (w already in range).
func snapWidth(w int) int { return max(imagelink.EmbedMinWidth, w-w%embedWidthStep) }

// errNoEmbed is every refusal of an embed link, page, picture or oEmbed:
// one answer whatever failed.
func errNoEmbed(cause error) error {
	return apierr.Wrap(apierr.NotFound, cause, imagelink.EmbedRefused)
}

// embedOwner checks an embed link's signature and answers its owner and
// chart (with its data when withTable), or the one refusal.
func (s *Service) embedOwner(ctx context.Context, er *imagelink.EmbedRequest, mode aggregate.Mode) (auth.Principal, *aggregate.Chart, error) {
	if s.keys == nil {
		return auth.Principal{}, nil, errNoEmbed(errors.New("embeds are not configured"))
	}
	account, secret, err := s.keys.Secret(ctx, er.Embed.KID)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, signing.ErrLegacy):
		return auth.Principal{}, nil, errNoEmbed(err)
	case err != nil:
		return auth.Principal{}, nil, fmt.Errorf("signing key %s: %w", er.Embed.KID, err)
	}
	if !er.Verify(secret) {
		return auth.Principal{}, nil, errNoEmbed(errors.New("signature does not verify"))
	}
	acct, err := s.deps.Accounts.GetAccount(ctx, account)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return auth.Principal{}, nil, errNoEmbed(err)
		}
		return auth.Principal{}, nil, fmt.Errorf("load account: %w", err)
	}
	p := auth.Principal{AccountID: account, Plan: acct.Plan}
	c, err := s.charts.Load(ctx, p, er.Embed.ChartID, mode)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Code == apierr.NotFound {
			return auth.Principal{}, nil, errNoEmbed(err)
		}
		return auth.Principal{}, nil, err
	}
	return p, c, nil
}

// embed serves an embed's page (GET /embed/<id>) and its picture at a
// width (GET /embed/<id>.svg?…&w=): no key, the link's own signature.
func (s *Service) embed(w http.ResponseWriter, r *http.Request) error {
	if !s.limitLink(w, r) {
		return nil
	}
	er, err := imagelink.ParseEmbed(r.Host, r.URL.EscapedPath(), r.URL.RawQuery)
	if err != nil {
		return errNoEmbed(err)
	}
	if er.SVG && (er.Width < imagelink.EmbedMinWidth || er.Width > imagelink.EmbedMaxWidth) {
		// w is outside the signature: saying what is wrong with it tells
		// a prober nothing about the link
		return apierr.New(apierr.InvalidRequest, "w %d: an embed's picture is drawn %d to %d px wide; send the frame's width", er.Width, imagelink.EmbedMinWidth, imagelink.EmbedMaxWidth)
	}
	if er.SVG {
		return s.embedSVG(w, r, &er)
	}
	return s.embedPage(w, r, &er)
}

// embedSVG answers an embed's picture at the frame's width, counted as an
// image link's picture is: once per different drawing a month.
func (s *Service) embedSVG(w http.ResponseWriter, r *http.Request, er *imagelink.EmbedRequest) error {
	p, c, err := s.embedOwner(r.Context(), er, aggregate.WithTable)
	if err != nil {
		return err
	}
	width, height := embedSize(c.Spec, snapWidth(er.Width))
	o := imageOptions{format: "svg", scale: 1, width: width, height: height, name: "chart", fonts: fontsEmbedded,
		theme: er.Embed.Theme, marks: true, minText: embedMinText}
	match := r.Header.Get("If-None-Match")
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: c.Spec, table: c.Table, o: o, charge: chargeImage, viaLink: true,
		fresh: func(hash string) bool { return match != "" && etagMatch(match, pictureETag(hash)) }})
	if isDrawFailure(err) {
		return errNoEmbed(err)
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("ETag", pictureETag(pic.hash))
	h.Set("Cache-Control", "public, max-age="+strconv.FormatInt(liveMaxAge(min(s.cfg.Links.LiveMaxAge, embedMaxAge), 0, s.deps.Now()), 10))
	setNotices(h, pic)
	if pic.notModified {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", pic.contentType)
	h.Set("Content-Length", strconv.Itoa(len(pic.body)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", PictureCSP)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(pic.body)
	}
	return nil
}

// embedPageETag names a page: the chart's version (its last edit and
// data), the link's key and theme, and the page's markup.
func embedPageETag(c *aggregate.Chart, e imagelink.Embed) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%d|%s|%s|%s|%s", c.Stored.ID, c.Stored.UpdatedAt.UnixNano(), c.Spec.DataVersion, e.KID, e.Theme, embedPageRev)
	return `"e` + hex.EncodeToString(h.Sum(nil))[:31] + `"`
}

// embedView is what the page template gets.
type embedView struct {
	ID, Title, Site, OEmbed, SVG, PNG, Theme string
	Width, Height                            int
	Table                                    embedTable
}

// embedTable is the chart's drawn data as the page's <table>: a row per
// category, a column per series.
type embedTable struct {
	Head []string
	Rows [][]string
}

// tableOf builds the data table from the marks a picture lists, in the
// order they were drawn.
func tableOf(marks []draw.Mark) embedTable {
	var t embedTable
	col := map[string]int{}
	var series []string
	for _, m := range marks {
		if _, ok := col[m.Series]; !ok {
			col[m.Series] = len(series)
			series = append(series, m.Series)
		}
	}
	row := map[string]int{}
	for _, m := range marks {
		i, ok := row[m.Category]
		if !ok || t.Rows[i][1+col[m.Series]] != "" {
			// a new category, or a point that shares one (a scatter's)
			i = len(t.Rows)
			row[m.Category] = i
			t.Rows = append(t.Rows, make([]string, 1+len(series)))
			t.Rows[i][0] = m.Category
		}
		t.Rows[i][1+col[m.Series]] = m.Value
	}
	t.Head = append([]string{"Category"}, series...)
	if len(series) == 1 && series[0] == "" {
		t.Head[1] = "Value"
	}
	return t
}

// embedPage answers the page: the frame's script draws the picture at
// the frame's width; the data table and the no-script PNG are here.
func (s *Service) embedPage(w http.ResponseWriter, r *http.Request, er *imagelink.EmbedRequest) error {
	p, c, err := s.embedOwner(r.Context(), er, aggregate.SpecOnly)
	if err != nil {
		return err
	}
	etag := embedPageETag(c, er.Embed)
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age="+strconv.FormatInt(liveMaxAge(min(s.cfg.Links.LiveMaxAge, embedMaxAge), 0, s.deps.Now()), 10))
	h.Set("Content-Security-Policy", EmbedCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if m := r.Header.Get("If-None-Match"); m != "" && etagMatch(m, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if c, err = s.charts.Load(r.Context(), p, er.Embed.ChartID, aggregate.WithTable); err != nil {
		return err
	}
	width, height := embedSize(c.Spec, 0)
	// the table is the drawing's: drawn, never counted or sent as a picture
	pic, err := s.draw(r.Context(), p, c.Spec, c.Table, imageOptions{format: "svg", scale: 1, theme: er.Embed.Theme, marks: true}, false)
	if err != nil {
		return errNoEmbed(err)
	}
	site, err := url.Parse(s.cfg.PublicURL)
	if err != nil {
		return fmt.Errorf("public url: %w", err)
	}
	_, secret, err := s.keys.Secret(r.Context(), er.Embed.KID)
	if err != nil {
		return fmt.Errorf("signing key %s: %w", er.Embed.KID, err)
	}
	png, err := imagelink.Sign(site.Host, imagelink.Link{ChartID: c.Stored.ID, Format: "png", KID: er.Embed.KID, Scale: 1}, secret)
	if err != nil {
		return fmt.Errorf("sign the no-script picture: %w", err)
	}
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	page := base + r.URL.EscapedPath() + "?" + r.URL.RawQuery
	theme := er.Embed.Theme
	if theme == "" {
		theme = "own"
	}
	v := embedView{ID: c.Stored.ID, Title: embedTitle(c), Site: base, OEmbed: oembedURL(base, page),
		SVG: base + r.URL.EscapedPath() + ".svg?" + r.URL.RawQuery, PNG: base + png, Theme: theme,
		Width: width, Height: height, Table: tableOf(pic.marks)}
	var b bytes.Buffer
	if err := s.embedTmpl.Execute(&b, v); err != nil {
		return fmt.Errorf("embed page: %w", err)
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
	return nil
}

// OEmbedRequest is an oEmbed consumer's question (oEmbed 1.0 §2.2).
type OEmbedRequest struct {
	URL       *string `query:"url" json:"-"`
	MaxWidth  *string `query:"maxwidth" json:"-"`
	MaxHeight *string `query:"maxheight" json:"-"`
	Format    *string `query:"format" json:"-"`
}

// OEmbedAnswer is the oEmbed 1.0 rich answer.
type OEmbedAnswer struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Title        string `json:"title"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
}

// oembed answers oEmbed for an embed page's URL, and the one refusal for
// every other URL: it never tells of a chart that was not shared.
func (s *Service) oembed(w http.ResponseWriter, r *http.Request, _ auth.Principal, req OEmbedRequest) error {
	if !s.limitLink(w, r) {
		return nil
	}
	if req.Format != nil && *req.Format != "json" {
		return apierr.New(apierr.InvalidRequest, "format %q: oEmbed answers json", *req.Format)
	}
	maxw, err := oembedBound("maxwidth", req.MaxWidth)
	if err != nil {
		return err
	}
	maxh, err := oembedBound("maxheight", req.MaxHeight)
	if err != nil {
		return err
	}
	if req.URL == nil {
		return apierr.New(apierr.InvalidRequest, "url is required: the embed page's address")
	}
	site, err := url.Parse(s.cfg.PublicURL)
	if err != nil {
		return fmt.Errorf("public url: %w", err)
	}
	u, err := url.Parse(*req.URL)
	if err != nil || u.Scheme != site.Scheme || !strings.EqualFold(u.Host, site.Host) {
		return errNoEmbed(fmt.Errorf("url %q is not this site's", *req.URL))
	}
	er, err := imagelink.ParseEmbed(u.Host, u.EscapedPath(), u.RawQuery)
	if err != nil || er.SVG {
		return errNoEmbed(fmt.Errorf("url %q is no embed page: %v", *req.URL, err))
	}
	_, c, err := s.embedOwner(r.Context(), &er, aggregate.SpecOnly)
	if err != nil {
		return err
	}
	width, height := embedSize(c.Spec, 0)
	if maxw > 0 && maxw < width {
		width, height = embedSize(c.Spec, max(maxw, imagelink.EmbedMinWidth))
	}
	if maxh > 0 {
		height = min(height, maxh)
	}
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	pageURL := base + u.EscapedPath() + "?" + u.RawQuery
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(embedMaxAge/time.Second)))
	httpx.WriteJSON(w, http.StatusOK, OEmbedAnswer{Version: "1.0", Type: "rich", HTML: embedHTML(base, pageURL, c.Stored.ID, embedTitle(c), height),
		Width: width, Height: height, Title: embedTitle(c), ProviderName: "chartd", ProviderURL: base})
	return nil
}

// oembedBound reads maxwidth or maxheight: absent is 0.
func oembedBound(name string, v *string) (int, error) {
	if v == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(*v)
	if err != nil || n < 1 {
		return 0, apierr.New(apierr.InvalidRequest, "%s %q: a positive whole number of pixels", name, *v)
	}
	return n, nil
}

// parseEmbedPage parses the page template once, when the service is built.
func parseEmbedPage() (*template.Template, error) {
	return template.ParseFS(embedFS, "templates/embed.html")
}
