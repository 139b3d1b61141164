package chartspec

import (
	"fmt"

	"golang.org/x/text/language"
)

// NumberLocale checks a number locale (a BCP 47 tag such as "de", "fr-CH"
// or "zh-Hans") and returns its canonical spelling, so a stored spec holds
// one form per locale ("DE" and "de" are one).
func NumberLocale(s string) (string, error) {
	if len(s) > 35 {
		return "", fmt.Errorf("must be a BCP 47 language tag of at most 35 characters, such as \"de\" or \"fr-CH\"; got %d characters", len(s))
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", fmt.Errorf("must be a BCP 47 language tag such as \"de\", \"fr-CH\" or \"zh\"; %q is not one (%v)", s, err)
	}
	if _, conf := tag.Base(); conf != language.Exact {
		return "", fmt.Errorf("must name a language, such as \"de\", \"fr-CH\" or \"zh\"; %q names none", s)
	}
	return tag.String(), nil
}

// localeSchema is the JSON Schema of setNumberFormat's locale.
func localeSchema() *schema {
	s := nullable(str("a BCP 47 language tag whose number marks and compact units (CLDR) to use, such as \"de\" (1.234,5; 84,5 Mio.), \"fr\" (1 234,5), \"hi\" (12,34,567; 25 लाख) or \"zh\" (2487万); null is English, or the language a chart's text implies by its script alone (Han zh, kana ja, Hangul ko, Arabic ar, Hebrew he), which the answer's notices then name"))
	s.maxLen = 35
	return s
}
