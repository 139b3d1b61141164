package brand

import (
	"context"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/brand"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/route"
)

// Palette is the answer of get_brand_palette and set_brand_palette:
// upper-case #RRGGBB colours, null when none are saved (DESIGN §7).
type Palette struct {
	Colors []string `json:"colors"`
}

// SetRequest is the body of set_brand_palette. Colors is kept raw to tell
// a missing member (refused) from null (clears the palette).
type SetRequest struct {
	Colors jsontext.Value `json:"colors" api:"required"`
}

func (s *Service) getPalette(ctx context.Context, p auth.Principal, _ route.None) (Palette, error) {
	colors, err := s.saved(ctx, p)
	if err != nil {
		return Palette{}, err
	}
	return Palette{Colors: colors}, nil
}

// mayKeepPalette refuses a plan without a saved brand palette, before the
// palette sent is read.
func mayKeepPalette(p auth.Principal) error {
	if !plan.LimitsOf(p.Plan).BrandPalette {
		return apierr.New(apierr.ForbiddenPlan, "saving a brand palette needs the Pro plan; this account is on the %s plan (get_brand_palette works on every plan)", p.Plan)
	}
	return nil
}

func (s *Service) setPalette(ctx context.Context, p auth.Principal, req SetRequest) (Palette, error) {
	colors, err := ParseColors(req.Colors)
	if err != nil {
		return Palette{}, err
	}
	if err := s.deps.Accounts.SetBrandPalette(ctx, p.AccountID, colors); err != nil {
		return Palette{}, fmt.Errorf("save brand palette of %s: %w", p.AccountID, err)
	}
	return Palette{Colors: colors}, nil
}

// ParseColors reads set_brand_palette's colors member: null clears (nil, no
// error); otherwise 1 to brand.MaxColors strings of #RRGGBB or #RGB in
// either case, answered as upper-case #RRGGBB. Every refusal names the
// element and says what is allowed.
func ParseColors(raw jsontext.Value) ([]string, error) {
	switch raw.Kind() {
	case 0:
		return nil, apierr.New(apierr.InvalidRequest, `colors is required: a list of 1 to %d colours such as ["#635BFF", "#0A2540"], or null to clear the palette`, brand.MaxColors)
	case 'n':
		return nil, nil
	case '[':
	default:
		return nil, apierr.New(apierr.InvalidRequest, `colors must be a list of 1 to %d colours such as ["#635BFF", "#0A2540"], or null to clear the palette`, brand.MaxColors)
	}
	var items []jsontext.Value
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, apierr.Wrap(apierr.InvalidRequest, err, "colors is not a valid JSON list")
	}
	switch {
	case len(items) == 0:
		return nil, apierr.New(apierr.InvalidRequest, "colors is empty: give 1 to %d colours, or null to clear the palette", brand.MaxColors)
	case len(items) > brand.MaxColors:
		return nil, apierr.New(apierr.InvalidRequest, "colors has %d colours; a brand palette holds 1 to %d", len(items), brand.MaxColors)
	}
	out := make([]string, len(items))
	for i, it := range items {
		var v string
		if it.Kind() != '"' || json.Unmarshal(it, &v) != nil {
			return nil, apierr.New(apierr.InvalidRequest, `colors[%d] is %s, not a string; write each colour as "#RRGGBB" or "#RGB"`, i, it)
		}
		_, hex, ok := chartspec.ParseColor(v)
		if !ok || strings.TrimSpace(v) != v {
			return nil, apierr.New(apierr.InvalidRequest, `colors[%d] is %q; write each colour as "#RRGGBB" or "#RGB" in hex digits, e.g. "#635BFF" or "#0AF"`, i, v)
		}
		out[i] = hex
	}
	return out, nil
}
