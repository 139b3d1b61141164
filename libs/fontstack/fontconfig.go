package fontstack

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"

	"chartd.dev/charts"
)

// WriteFontconfig prepares dir for Chromium and returns the path of the
// fontconfig file to start it with (FONTCONFIG_FILE=<path>). It writes:
//
//   - dir/fonts/: the embedded Roboto and DejaVu Sans files (and their
//     licences) and a symbolic link to every installed file of the stack,
//     nothing else;
//   - dir/cache/: fontconfig's cache for that directory;
//   - dir/fonts.conf: reads only dir/fonts, accepts only the stack's
//     families (a CJK collection also holds JP, KR, TC, HK and monospaced
//     faces: those are rejected, so fontconfig lists exactly the stack), makes sans-serif prefer the stack in
//     order, and asks for slight hinting. Slight hinting matters: with
//     fontconfig's built-in default (full hinting, which applies when no
//     system configuration is read) Chromium rounds every glyph advance to
//     whole pixels, up to 15 % off the font's advances at 9–12 px; with
//     slight hinting it lays text out with the unrounded advances libs/draw
//     measures.
//
// Calling it again on the same dir rewrites everything in place.
func (s *Stack) WriteFontconfig(dir string) (path string, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("fontstack: %w", err)
	}
	fonts := filepath.Join(dir, "fonts")
	cache := filepath.Join(dir, "cache")
	for _, d := range []string{fonts, cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("fontstack: %w", err)
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Faces() {
		if seen[f.File] { // a collection's faces share one file
			continue
		}
		seen[f.File] = true
		dst := filepath.Join(fonts, f.File)
		if f.Path == "" {
			err = writeFile(dst, f.embedded)
		} else {
			err = symlink(f.Path, dst)
		}
		if err != nil {
			return "", err
		}
	}
	for _, set := range charts.Fonts() {
		if err := writeFile(filepath.Join(fonts, set.LicenseFile), []byte(set.License)); err != nil {
			return "", err
		}
	}
	path = filepath.Join(dir, "fonts.conf")
	if err := writeFile(path, s.fontconfig(fonts, cache)); err != nil {
		return "", err
	}
	return path, nil
}

// fontconfig is the text of fonts.conf.
func (s *Stack) fontconfig(fonts, cache string) []byte {
	var b bytes.Buffer
	esc := func(v string) string {
		var e bytes.Buffer
		xml.EscapeText(&e, []byte(v))
		return e.String()
	}
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- Written by chartd (libs/fontstack): the font stack libs/draw measures text with. -->
<fontconfig>
`)
	fmt.Fprintf(&b, "  <dir>%s</dir>\n  <cachedir>%s</cachedir>\n", esc(fonts), esc(cache))
	b.WriteString("  <selectfont>\n    <acceptfont>\n")
	for _, f := range s.families {
		fmt.Fprintf(&b, "      <pattern><patelt name=\"family\"><string>%s</string></patelt></pattern>\n", esc(f.Name))
	}
	b.WriteString("    </acceptfont>\n    <rejectfont><pattern></pattern></rejectfont>\n  </selectfont>\n")
	b.WriteString("  <alias binding=\"strong\">\n    <family>sans-serif</family>\n    <prefer>\n")
	for _, f := range s.families {
		fmt.Fprintf(&b, "      <family>%s</family>\n", esc(f.Name))
	}
	b.WriteString(`    </prefer>
  </alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
`)
	return b.Bytes()
}

// writeFile replaces path with data atomically (a reader sees the old or
// the new file, never a part).
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("fontstack: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("fontstack: %w", err)
	}
	return nil
}

// symlink makes path a symbolic link to target, replacing what was there.
func symlink(target, path string) error {
	if cur, err := os.Readlink(path); err == nil && cur == target {
		return nil
	}
	tmp := path + ".tmp-link"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("fontstack: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fontstack: %w", err)
	}
	return nil
}
