package charts

import (
	"fmt"
	"io/fs"
	"slices"
)

// DefaultPaletteID is the id of the palette every new chart starts with.
const DefaultPaletteID = "default"

// Palette is a preset palette. Its JSON form is exactly the contract's
// "preset palette" entry (id, name, colors, light).
type Palette struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Colors are upper-case #RRGGBB strings, used in order for series.
	Colors []string `json:"colors"`
	// Light marks palettes of light colours meant for dark backgrounds.
	Light bool `json:"light"`
	// Kind is qualitative (categories), sequential (low to high) or
	// diverging (around a middle), so lint and heatmaps can pick sensibly.
	Kind string `json:"-"`
	// Description tells a person when to choose the palette.
	Description string `json:"-"`
}

// paletteFile is a palette as written in palettes.json.
type paletteFile struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Light       bool     `json:"light"`
	Description string   `json:"description"`
	Colors      []string `json:"colors"`
}

// IsHexColor reports whether s is an upper-case #RRGGBB colour, the only
// form the catalog stores.
func IsHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func (p Palette) clone() Palette {
	p.Colors = slices.Clone(p.Colors)
	return p
}

// loadPalettes reads palettes.json and checks ids, colours and that the default comes first.
func loadPalettes(fsys fs.FS) ([]Palette, error) {
	var raw []paletteFile
	if err := decodeStrict(fsys, "palettes.json", &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 || raw[0].ID != DefaultPaletteID {
		return nil, fmt.Errorf("palettes.json: the first palette must be %q", DefaultPaletteID)
	}
	seen := map[string]bool{}
	out := make([]Palette, 0, len(raw))
	for _, pf := range raw {
		if pf.ID == "" || pf.Name == "" || pf.Description == "" {
			return nil, fmt.Errorf("palettes.json: palette %q: id, name and description are required", pf.ID)
		}
		if seen[pf.ID] {
			return nil, fmt.Errorf("palettes.json: palette id %q used twice", pf.ID)
		}
		seen[pf.ID] = true
		if pf.Kind != "qualitative" && pf.Kind != "sequential" && pf.Kind != "diverging" {
			return nil, fmt.Errorf("palettes.json: palette %s: kind %q is not qualitative, sequential or diverging", pf.ID, pf.Kind)
		}
		if len(pf.Colors) < 2 || len(pf.Colors) > 12 {
			return nil, fmt.Errorf("palettes.json: palette %s: %d colours, want 2 to 12", pf.ID, len(pf.Colors))
		}
		for _, col := range pf.Colors {
			if !IsHexColor(col) {
				return nil, fmt.Errorf("palettes.json: palette %s: colour %q is not upper-case #RRGGBB", pf.ID, col)
			}
		}
		if dup := firstDuplicate(pf.Colors); dup != "" {
			return nil, fmt.Errorf("palettes.json: palette %s: colour %s listed twice", pf.ID, dup)
		}
		out = append(out, Palette{ID: pf.ID, Name: pf.Name, Colors: pf.Colors, Light: pf.Light, Kind: pf.Kind, Description: pf.Description})
	}
	return out, nil
}

// firstDuplicate returns the first string that appears twice, or "".
func firstDuplicate(items []string) string {
	seen := make(map[string]bool, len(items))
	for _, s := range items {
		if seen[s] {
			return s
		}
		seen[s] = true
	}
	return ""
}
