package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

// benchKeys is how many API keys (and charts) the benchmark store holds, so
// lookups go through a real index rather than a one-row table.
const benchKeys = 1000

// Bench runs the hot-path benchmarks: the per-request API key lookup and
// chart load. open must answer a fresh store closed through b.Cleanup.
func Bench(b *testing.B, open func(tb testing.TB) store.Store) {
	ctx := context.Background()
	s := open(b)
	a := newAccount(b, s, store.PlanPro)
	var hashes [][]byte
	var chartIDs []string
	spec := bytes.Repeat([]byte(`{"k":"v"},`), 200) // ~2 KB, a typical spec
	// 1,000 rows of CSV, as a JSON string: what set_data stores.
	var csv bytes.Buffer
	csv.WriteString(`"month,sales,profit\n`)
	for i := range 1000 {
		fmt.Fprintf(&csv, "2024-%02d-%02d,%d,%d\\n", i%12+1, i%28+1, i*7, i*3)
	}
	csv.WriteString(`"`)
	data := &store.Dataset{Format: "csv", Raw: csv.Bytes()}
	for i := range benchKeys {
		h := hashOf(fmt.Sprintf("bench-key-%d", i))
		if _, err := s.CreateAPIKey(ctx, a.ID, "bench", "cd_", h); err != nil {
			b.Fatalf("seed api key: %v", err)
		}
		hashes = append(hashes, h)
		c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "bench", Type: "bar", Spec: spec, Data: data}, 0)
		if err != nil {
			b.Fatalf("seed chart: %v", err)
		}
		chartIDs = append(chartIDs, c.ID)
	}

	b.Run("LookupAPIKey", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, _, err := s.LookupAPIKey(ctx, hashes[i%len(hashes)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("LookupAPIKeyParallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, _, err := s.LookupAPIKey(ctx, hashes[i%len(hashes)]); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
	b.Run("GetChart", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := s.GetChart(ctx, a.ID, chartIDs[i%len(chartIDs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("GetChartParallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, err := s.GetChart(ctx, a.ID, chartIDs[i%len(chartIDs)]); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
	b.Run("GetChartWithData", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c, err := s.GetChartWithData(ctx, a.ID, chartIDs[i%len(chartIDs)])
			if err != nil || c.Data == nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("UpdateChartWithData", func(b *testing.B) {
		i := 0
		for b.Loop() {
			id := chartIDs[i%len(chartIDs)]
			if _, err := s.UpdateChart(ctx, store.Chart{ID: id, AccountID: a.ID, Name: "bench", Type: "bar", Spec: spec, Data: data}, nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// DataLinkBytes stores n data links of one account as create_image_url
// does (43-character signature ids, a UUID chart and kid, one design
// shared by all) and answers the bytes each link added to the backend's
// storage, as size (the backend's own measure of its link tables or file)
// tells before and after.
func DataLinkBytes(tb testing.TB, s store.Store, n int, size func() int64) float64 {
	tb.Helper()
	ctx := context.Background()
	a := newAccount(tb, s, store.PlanPro)
	kid := uuid.NewString()
	if _, err := s.CreateSigningKey(ctx, a.ID, kid, []byte("secret")); err != nil {
		tb.Fatal(err)
	}
	chart := uuid.NewString()
	design := bytes.Repeat([]byte("d"), 2000)
	if err := s.PutLinkDesign(ctx, a.ID, store.DataLink{ID: "first", ChartID: chart, KID: kid, Design: design}, store.LinkLimits{}); err != nil {
		tb.Fatal(err)
	}
	before := size()
	for i := range n {
		sum := sha256.Sum256(fmt.Appendf(nil, "link %d", i))
		id := base64.RawURLEncoding.EncodeToString(sum[:])
		if err := s.PutLinkDesign(ctx, a.ID, store.DataLink{ID: id, ChartID: chart, KID: kid, Design: design}, store.LinkLimits{}); err != nil {
			tb.Fatalf("link %d: %v", i, err)
		}
	}
	return float64(size()-before) / float64(n)
}
