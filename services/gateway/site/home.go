package site

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/people"
	"chartd.dev/libs/quota"
)

// The try-it box's own allowance per client address: a visitor who has
// not signed in draws this many charts an hour (the API's render
// allowances are per account and do not apply).
const (
	tryRate   = 20
	tryPeriod = time.Hour
	// tryMaxBytes bounds the pasted data.
	tryMaxBytes = 64 << 10
)

// homeExamples are the examples the home page shows, drawn by the
// service.
func homeExamples() []string {
	return []string{"bar-gdp-by-country", "line-co2-mauna-loa", "pie-browser-share"}
}

// homeData is the home page: a few example pictures (inline SVG; their
// faces come from /home/fonts.css) and the try-it box's chart types.
type homeData struct {
	Examples []template.HTML
	// Types are the try-it box's chart types, by their names.
	Types []typeName
	// Try is the try-it box as a form post without script left it.
	Try tryResult
}

// tryResult is the try-it box after a plain form post: what was sent,
// and the picture (a data: URL of the SVG) or why there is none.
type tryResult struct {
	Type, Data, Status string
	Picture            template.URL
	Alt                string
}

func (s *Site) home(w http.ResponseWriter, r *http.Request) error {
	return s.homePage(w, r, http.StatusOK, tryResult{})
}

// homePage answers the home page, with the try-it box as tr left it.
func (s *Site) homePage(w http.ResponseWriter, r *http.Request, status int, tr tryResult) error {
	v, ok, err := s.visitor(r)
	if err != nil {
		return err
	}
	var csrf string
	if ok {
		csrf = people.CSRFToken(v.token)
	}
	d := homeData{Types: typeNames(s.catalog), Try: tr}
	if g := s.gallery(r); g != nil {
		for _, id := range homeExamples() {
			if svg, ok := g.Examples[id]; ok {
				// The service's own drawing: escaped text, no script.
				d.Examples = append(d.Examples, template.HTML(svg))
			}
		}
	}
	s.render(w, r, status, "home", view{Title: "Charts from your data", SignedIn: ok, Email: v.user.Email, CSRF: csrf, Data: d})
	return nil
}

// gallery answers the render service's pictures, or nil (logged) while
// it does not answer: the home page then goes without them.
func (s *Site) gallery(r *http.Request) *gallery.Gallery {
	if s.deps.Gallery == nil {
		return nil
	}
	g, err := s.deps.Gallery.Get(r.Context())
	if err != nil {
		s.deps.Log.WarnContext(r.Context(), "site: the home page goes without its pictures", "err", err)
		return nil
	}
	return g
}

// homeFonts serves the faces of the home page's pictures as a style
// sheet (the site's policy takes styles from files only).
func (s *Site) homeFonts(w http.ResponseWriter, r *http.Request) error {
	g := s.gallery(r)
	if g == nil {
		return &pageError{status: http.StatusServiceUnavailable, msg: "The pictures are not ready yet; try again in a moment."}
	}
	css := g.FontCSS()
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(css)))
	h.Set("Cache-Control", "public, max-age=3600")
	_, err := io.WriteString(w, css)
	return err
}

// tryForm is what the try-it box sends.
type tryForm struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

// try draws pasted data for anyone, signed in or not (POST /try): the
// render service draws it and the site counts it against the client
// address's own small allowance, answering 429 with Retry-After past it.
// The box's script sends JSON and gets JSON (errors in the contract's
// body); a browser without script posts the form and gets the home page
// with the picture, or the reason, in the box.
func (s *Site) try(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	page := mt == "application/x-www-form-urlencoded"
	var f tryForm
	fail := func(err *apierr.Error) error {
		if page {
			return s.homePage(w, r, err.Status(), tryResult{Type: f.Type, Data: f.Data, Status: err.Message})
		}
		apierr.Write(w, s.cfg.DocsURL(), err)
		return nil
	}
	if o := r.Header.Get("Origin"); o != "" && o != s.origin {
		return fail(apierr.New(apierr.InvalidRequest, "Draw charts here from this site's home page."))
	}
	body := http.MaxBytesReader(w, r.Body, tryMaxBytes)
	var err error
	if page {
		r.Body = body
		if err = r.ParseForm(); err == nil {
			f = tryForm{Type: r.PostForm.Get("type"), Data: r.PostForm.Get("data")}
		}
	} else {
		err = json.NewDecoder(body).Decode(&f)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(apierr.New(apierr.TooLarge, "That is more data than the try-it box takes (%d KB); sign up to send more.", tryMaxBytes>>10))
		}
		return fail(apierr.New(apierr.InvalidRequest, "Paste your data as CSV or TSV, with the column names in the first row."))
	}
	res, err := s.deps.Limiter.Allow(r.Context(), "try-addr:"+s.clientAddr(r), quota.Limit{Rate: tryRate, Period: tryPeriod})
	if err != nil {
		// The limiter survives Redis outages; an error here is worth a log line.
		s.deps.Log.ErrorContext(r.Context(), "site: try-it limiter", "err", err)
	} else {
		res.SetHeaders(w.Header())
		if !res.Allowed {
			return fail(apierr.New(apierr.RateLimited, "You have drawn %d charts here in the last hour. Sign up free to draw more, or try again in %s.",
				tryRate, wait(res.RetryAfterSeconds())))
		}
	}
	raw, err := json.Marshal(f.Data)
	if err != nil {
		return fmt.Errorf("encode try-it data: %w", err)
	}
	ans, err := s.deps.Renders.Try(r.Context(), clients.TryRequest{Type: f.Type, Data: raw})
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Status() < 500 {
		return fail(apierr.New(ae.Code, "%s", "This data cannot be drawn as a chart of this kind: "+ae.Message))
	}
	if err != nil {
		return fmt.Errorf("try-it drawing: %w", err)
	}
	if page {
		// The service's own SVG, shown as an image (an image runs no script).
		pic := template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(ans.SVG)))
		return s.homePage(w, r, http.StatusOK, tryResult{Type: f.Type, Data: f.Data, Status: "Drawn.", Picture: pic, Alt: ans.Description})
	}
	httpx.WriteJSON(w, http.StatusOK, ans)
	return nil
}

// wait writes a number of seconds as a person reads it.
func wait(sec int) string {
	if sec < 90 {
		return strconv.Itoa(sec) + " seconds"
	}
	return strconv.Itoa((sec+59)/60) + " minutes"
}
