package imagelink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Embed links are the responsive frames of create_embed:
//
//	{site_url}/embed/<chart_id>?kid=…&theme=…&sig=…       the page
//	{site_url}/embed/<chart_id>.svg?kid=…&theme=…&sig=…&w=…  its picture
//
// They are signed as image links are, with the account's signing key,
// under their own scheme line so that neither kind of MAC passes for the
// other. The canonical string is
//
//	chartd-embed-v1
//	<host>
//	/embed/<chart_id>
//	<name>=<value>    kid and theme (when given), sorted by name
//
// The page and its picture share one signature: the ".svg" suffix and w
// (the frame's width, which the reader's browser chooses) are outside it.

// Embed widths: the picture of an embed is drawn at w in this range.
const (
	EmbedMinWidth = 200
	EmbedMaxWidth = 2400
)

// EmbedPrefix is where embed pages live under the site.
const EmbedPrefix = "/embed/"

const embedScheme = "chartd-embed-v1\n"

// EmbedRefused is what every refusal of an embed (its page, its picture,
// its oEmbed answer) says, whatever failed, as Refused is for image links.
const EmbedRefused = "no chart at this address; the embed link may have been altered or revoked"

// Embed is what a signed embed link asks for.
type Embed struct {
	ChartID string // lower-case UUID
	KID     string // the signing key whose secret signs the link
	// Theme is "" (the chart's own), "auto" (the reader's
	// prefers-color-scheme), "light" or "dark".
	Theme string
}

// EmbedRequest is a parsed embed link waiting for its key's secret.
type EmbedRequest struct {
	Embed Embed
	// SVG says the request asks for the picture (/embed/<id>.svg), not
	// the page.
	SVG bool
	// Width is w, unchecked against EmbedMinWidth..EmbedMaxWidth (the
	// caller answers a clear 400 for it); 0 when absent.
	Width  int
	host   string
	sig    [macLen]byte
	parsed bool
}

func isTheme(s string) bool { return s == "auto" || s == "light" || s == "dark" }

// SignEmbed makes the path and query of the embed page of e for the site
// host: /embed/<id>?kid=…[&theme=…]&sig=….
func SignEmbed(host string, e Embed, secret []byte) (string, error) {
	if len(secret) < minSecretLen {
		return "", reason("secret shorter than 16 bytes")
	}
	if err := checkHost(host); err != nil {
		return "", err
	}
	if !isChartID(e.ChartID) {
		return "", reason("chart id is not a lower-case UUID")
	}
	if !isKID(e.KID) {
		return "", reason("kid is not 1..64 of [A-Za-z0-9_-]")
	}
	if e.Theme != "" && !isTheme(e.Theme) {
		return "", reason("theme is not auto, light or dark")
	}
	m := hmac.New(sha256.New, secret)
	m.Write(embedCanonical(host, e))
	q := "?kid=" + e.KID
	if e.Theme != "" {
		q += "&theme=" + e.Theme
	}
	return EmbedPrefix + e.ChartID + q + "&sig=" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// embedCanonical is the string an embed link's sig covers.
func embedCanonical(host string, e Embed) []byte {
	b := make([]byte, 0, 128)
	b = append(b, embedScheme...)
	b = append(b, strings.ToLower(host)...)
	b = append(b, '\n')
	b = append(b, EmbedPrefix...)
	b = append(b, e.ChartID...)
	b = append(b, '\n')
	b = appendParam(b, "kid", e.KID)
	return appendParam(b, "theme", e.Theme)
}

// ParseEmbed reads an embed link as it arrived (host, escaped path, raw
// query), as strictly as Parse reads an image link: an unknown,
// duplicated, empty or non-canonically spelled parameter fails with
// ErrInvalid. w is accepted on the picture only. It does not check the
// signature: look up the secret of Embed.KID and call Verify.
func ParseEmbed(host, path, rawQuery string) (EmbedRequest, error) {
	var r EmbedRequest
	if err := checkHost(host); err != nil {
		return r, err
	}
	id, ok := strings.CutPrefix(path, EmbedPrefix)
	if !ok {
		return r, reason("path is not /embed/<chart_id>")
	}
	if rest, ok := strings.CutSuffix(id, ".svg"); ok {
		id, r.SVG = rest, true
	}
	if !isChartID(id) {
		return r, reason("chart id is not a lower-case UUID")
	}
	r.Embed.ChartID = id
	var kid, theme, sig, w string
	for q, more := rawQuery, true; more; {
		var part string
		if i := strings.IndexByte(q, '&'); i >= 0 {
			part, q = q[:i], q[i+1:]
		} else {
			part, more = q, false
		}
		name, value, found := strings.Cut(part, "=")
		if !found {
			return r, reason("query part without '='")
		}
		var slot *string
		switch name {
		case "kid":
			slot = &kid
		case "theme":
			slot = &theme
		case "sig":
			slot = &sig
		case "w":
			if !r.SVG {
				return r, reason("w on the embed page")
			}
			slot = &w
		default:
			return r, reason("unknown parameter")
		}
		if *slot != "" {
			return r, reason("duplicated parameter")
		}
		if value == "" || !isToken(value) {
			return r, reason("empty value or a character other than [A-Za-z0-9_-]")
		}
		*slot = value
	}
	if !isKID(kid) || sig == "" {
		return r, reason("kid or sig missing")
	}
	if theme != "" && !isTheme(theme) {
		return r, reason("theme is not auto, light or dark")
	}
	if w != "" {
		n, ok := parseNum(w, 1, 1<<20)
		if !ok {
			return r, reason("w is not a width")
		}
		r.Width = int(n)
	}
	if len(sig) != sigLen || !decodeB64(r.sig[:], sig) {
		return r, reason("sig is not 32 bytes of canonical unpadded base64url")
	}
	r.Embed.KID, r.Embed.Theme = kid, theme
	r.host, r.parsed = host, true
	return r, nil
}

// Verify reports, in constant time, whether the link was signed with
// secret. A Request that ParseEmbed did not return never verifies.
func (r *EmbedRequest) Verify(secret []byte) bool {
	if len(secret) < minSecretLen || !r.parsed {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(embedCanonical(r.host, r.Embed))
	return hmac.Equal(m.Sum(nil), r.sig[:])
}
