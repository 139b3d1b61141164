package chart

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/store"
)

// TimeLayout is the timestamp layout of every answer.
const TimeLayout = aggregate.TimeLayout

// Record is the chart record of spec §2.
type Record = aggregate.Record

func (s *Service) record(c store.Chart) Record { return aggregate.RecordOf(s.siteURL, c) }

// parseExpected reads expected_updated_at: any RFC 3339 time, compared at
// microseconds.
func parseExpected(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil, apierr.New(apierr.InvalidRequest, "expected_updated_at %q is not a timestamp; send the chart's updated_at as you read it, e.g. 2026-11-22T09:41:07.123456+00:00", *s)
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t, nil
}

func encodeSpec(spec *chartspec.Spec) ([]byte, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	return b, nil
}

// checkName validates a chart name.
func checkName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", apierr.New(apierr.InvalidRequest, "name is empty; give the chart a name of 1 to 200 characters")
	}
	if len([]rune(n)) > 200 {
		return "", apierr.New(apierr.InvalidRequest, "name is %d characters long; use at most 200", len([]rune(n)))
	}
	return n, nil
}

// defaultName names a chart after its title, or after its type.
func defaultName(spec *chartspec.Spec, label string) string {
	if t := strings.TrimSpace(spec.Style.Title.Text); t != "" {
		if r := []rune(t); len(r) > 200 {
			return string(r[:200])
		}
		return t
	}
	return "Untitled " + strings.ToLower(label)
}
