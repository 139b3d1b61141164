package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/subset"
)

// The values of the fonts option (DESIGN §7, "SVG fonts").
const (
	// fontsEmbedded: an SVG answered to a client carries the faces its
	// text is drawn with, cut to the characters drawn, so it looks the
	// same on any machine and equals the PNG. The default.
	fontsEmbedded = "embedded"
	// fontsSystem: the SVG only names the families, for a viewer that has
	// the font stack installed (smaller; what the render fleet draws).
	fontsSystem = "system"
)

// checkFonts accepts the fonts option's values. It applies to SVG; a PNG
// is the same picture either way and takes either value.
func checkFonts(v string) error {
	switch v {
	case fontsEmbedded, fontsSystem:
		return nil
	}
	return apierr.New(apierr.InvalidRequest, "fonts %q: use embedded (the SVG carries the fonts its text is drawn with, the default) or system (it only names them)", v)
}

// newSubsets is the font subsetter of the SVG answers: HarfBuzz's
// hb-subset and woff2_compress behind a cache of budgetMiB.
func newSubsets(budgetMiB int) (*subset.Cache, error) {
	tool, err := subset.NewTool(2)
	if err != nil {
		return nil, err
	}
	return subset.NewCache(tool, int64(budgetMiB)<<20, 30*time.Second), nil
}

// withFonts makes pic's answer the SVG carrying its fonts, unless the
// picture is a PNG or the client asked for system fonts. A subsetter
// failure answers the system-font SVG (a correct picture that names its
// fonts) and is logged.
func (s *Service) withFonts(ctx context.Context, pic picture, o imageOptions) (picture, error) {
	if o.format != "svg" || o.fonts == fontsSystem {
		return pic, nil
	}
	out, err := s.deps.Fonts.EmbedFonts(ctx, pic.svg, s.subsets)
	switch {
	case err == nil:
		pic.body = out
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return picture{}, fmt.Errorf("embed fonts: %w", err)
	default:
		s.deps.Log.WarnContext(ctx, "render: the SVG goes without its fonts", "err", err)
	}
	return pic, nil
}
