// Package subset cuts a font face down to the characters a picture draws,
// as WOFF2, for an SVG that carries its own fonts (libs/draw's
// Fonts.EmbedFonts).
//
// The cutting is HarfBuzz's subsetter, run as its command-line tool
// hb-subset (Debian package libharfbuzz-bin): it keeps the glyphs of the
// characters asked for together with their layout closure (the ligatures,
// contextual and positional forms GSUB can reach from them, GPOS kerning
// and mark positioning among them, GDEF), so the browser shapes the subset
// as it shapes the whole face. The encoder is Google's woff2_compress
// (Debian package woff2). Both run as child processes: the Go binaries are
// built without cgo (docs/decisions/rendering.md, "SVGs carry their fonts").
//
// A Tool runs them; a Cache in front of it keeps the subsets by face and
// character set, bounded in bytes. Both are safe for concurrent use.
package subset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"chartd.dev/libs/fontstack"
)

// Tool subsets faces with hb-subset and encodes them with woff2_compress.
type Tool struct {
	hbSubset string
	woff2    string
	// slots bounds the subsetting processes run at once.
	slots chan struct{}
}

// Packages names the Debian packages the tools come from.
const Packages = "libharfbuzz-bin woff2"

// NewTool finds hb-subset and woff2_compress on PATH; parallel bounds how
// many faces are subset at once (at least 1). A machine without them
// fails here with what to install.
func NewTool(parallel int) (*Tool, error) {
	hb, err1 := exec.LookPath("hb-subset")
	w2, err2 := exec.LookPath("woff2_compress")
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("subset: font subsetting needs hb-subset and woff2_compress; install them with: apt-get install %s: %w", Packages, err)
	}
	return &Tool{hbSubset: hb, woff2: w2, slots: make(chan struct{}, max(1, parallel))}, nil
}

// Subset answers face cut down to runes (hinting, names and layout tables
// kept; notdef only for characters the face lacks) as a WOFF2 file.
func (t *Tool) Subset(ctx context.Context, face fontstack.Face, runes []rune) ([]byte, error) {
	if len(runes) == 0 {
		return nil, errors.New("subset: no characters given")
	}
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("subset %s: %w", face.File, ctx.Err())
	}
	dir, err := os.MkdirTemp("", "chartd-subset-")
	if err != nil {
		return nil, fmt.Errorf("subset %s: %w", face.File, err)
	}
	defer os.RemoveAll(dir)
	sfnt := filepath.Join(dir, "face.ttf")
	args := []string{"--face-index=" + strconv.Itoa(face.Index), "--unicodes=" + unicodes(runes), "--output-file=" + sfnt}
	var stdin []byte
	if face.Path != "" {
		args = append(args, "--font-file="+face.Path)
	} else {
		// A face built into the binary goes in on standard input.
		if stdin, err = face.Data(); err != nil {
			return nil, fmt.Errorf("subset %s: %w", face.File, err)
		}
		args = append(args, "--font-file=-")
	}
	if err := run(ctx, t.hbSubset, args, stdin); err != nil {
		return nil, fmt.Errorf("subset %s (%s): %w", face.File, face.Family, err)
	}
	if err := run(ctx, t.woff2, []string{sfnt}, nil); err != nil {
		return nil, fmt.Errorf("subset %s (%s): encode WOFF2: %w", face.File, face.Family, err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "face.woff2"))
	if err != nil {
		return nil, fmt.Errorf("subset %s (%s): %w", face.File, face.Family, err)
	}
	return out, nil
}

// run runs one tool, its standard error in the error it fails with.
func run(ctx context.Context, bin string, args []string, stdin []byte) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, msg)
	}
	return nil
}

// unicodes writes runes as hb-subset's list of hex code points.
func unicodes(runes []rune) string {
	b := make([]byte, 0, len(runes)*5)
	for i, r := range runes {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(r), 16)
	}
	return string(b)
}
