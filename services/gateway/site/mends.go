package site

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// favicon is the site's icon: a small bar chart in the accent colour.
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
	`<rect width="32" height="32" rx="6" fill="#0b57d0"/>` +
	`<rect x="7" y="16" width="5" height="9" fill="#fff"/>` +
	`<rect x="14" y="9" width="5" height="16" fill="#fff"/>` +
	`<rect x="21" y="13" width="5" height="12" fill="#fff"/></svg>`

// faviconTag is the icon's version, its ETag.
func faviconTag() string {
	h := sha256.Sum256([]byte(favicon))
	return hex.EncodeToString(h[:6])
}

// serveFavicon answers the icon as SVG, at /favicon.svg (linked from every
// page) and at /favicon.ico (where browsers look without a link). Browsers
// keep it a day, then ask again with its ETag.
func (s *Site) serveFavicon(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	tag := `"` + faviconTag() + `"`
	h.Set("Content-Type", "image/svg+xml")
	h.Set("ETag", tag)
	h.Set("Cache-Control", "public, max-age=86400")
	// A picture is a document of its own: no script, no fetch.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(favicon)))
	_, err := w.Write([]byte(favicon))
	if err != nil {
		s.deps.Log.DebugContext(r.Context(), "write favicon", "err", err)
	}
	return nil
}

// keyFlash is what the account page says once after a key form was sent:
// the new key (shown only this once) or why none was made. It travels in
// a short-lived cookie so the form's answer can be a redirect
// (redirect-after-POST): a reload never sends the form again and the
// address bar shows /account. The cookie is sealed (AES-GCM) with a key
// derived from the session's token, so the new API key is never stored
// in the browser in the clear, and the flash opens only in the session
// that made it.
type keyFlash struct {
	Key    string `json:"k,omitempty"`
	Name   string `json:"n,omitempty"`
	Notice string `json:"e,omitempty"`
}

// flashCookie names the cookie; it is sent to /account only.
const flashCookie = "chartd_flash"

// flashAEAD is the flash cookie's cipher for the session token.
func flashAEAD(token string) (cipher.AEAD, error) {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("chartd account flash"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("flash cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// setFlash sets the flash for the next account page of the session
// token: sealed, HttpOnly, a minute long, for the account pages only.
func (s *Site) setFlash(w http.ResponseWriter, token string, f keyFlash) error {
	aead, err := flashAEAD(token)
	if err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode flash: %w", err)
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, b, []byte(flashCookie))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(sealed), Path: "/account", MaxAge: 60,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
	return nil
}

// takeFlash reads and removes the flash of the session token; a
// missing, forged or another session's one is empty.
func (s *Site) takeFlash(w http.ResponseWriter, r *http.Request, token string) keyFlash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return keyFlash{}
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/account", MaxAge: -1, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
	var f keyFlash
	aead, err := flashAEAD(token)
	if err != nil {
		return keyFlash{}
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) < aead.NonceSize() {
		return keyFlash{}
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(flashCookie))
	if err != nil || json.Unmarshal(plain, &f) != nil {
		return keyFlash{}
	}
	return f
}

// keysPage answers GET /account/keys, where the key form posts: the keys
// are on the account page.
func (s *Site) keysPage(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, "/account#api-keys", http.StatusSeeOther)
	return nil
}

// chartHeading is the editor's heading: the chart's title when it shows
// one, else its name.
func chartHeading(c []byte, name string) string {
	var sp struct {
		Style struct {
			Title struct {
				Show *bool  `json:"show"`
				Text string `json:"text"`
			} `json:"title"`
		} `json:"style"`
	}
	if json.Unmarshal(c, &sp) != nil {
		return name
	}
	t := sp.Style.Title
	if t.Text == "" || (t.Show != nil && !*t.Show) {
		return name
	}
	return t.Text
}
