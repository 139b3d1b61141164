// Package aggregate reads a saved chart as the one unit it is: its record,
// its spec and its data parsed into a table. The chart service owns the
// aggregate and writes it in one store transaction; every reader (the
// chart, data and render services, and the public image links) loads it
// through a Loader, which keeps parsed tables by data version so edits
// that leave the data alone never parse it again.
package aggregate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
)

// Source reads saved charts from their owner.
type Source interface {
	// LoadChart loads one of p's charts and decodes its spec. The chart's
	// Data is set unless have is not "" and is the chart's data version
	// (the caller holds that data parsed already); nil Data otherwise
	// means the chart has no data. have == AnyVersion never loads data.
	LoadChart(ctx context.Context, p auth.Principal, id, have string) (store.Chart, *chartspec.Spec, error)
}

// AnyVersion asks a Source for the spec alone.
const AnyVersion = "*"

// Store is the Source of the aggregate's owner: the store itself.
type Store struct{ Charts store.Charts }

var _ Source = Store{}

// LoadChart reads the chart row alone when the caller's data version is
// current, else the chart with its data in one consistent read.
func (s Store) LoadChart(ctx context.Context, p auth.Principal, id, have string) (store.Chart, *chartspec.Spec, error) {
	if !ValidID(id) {
		return store.Chart{}, nil, NotFound(id)
	}
	if have != "" {
		c, err := s.Charts.GetChart(ctx, p.AccountID, id)
		if err != nil {
			return store.Chart{}, nil, StoreError(id, err, "load chart")
		}
		spec, err := DecodeSpec(c)
		if err != nil {
			return store.Chart{}, nil, err
		}
		if have == AnyVersion || spec.DataVersion == have {
			return c, spec, nil
		}
	}
	c, err := s.Charts.GetChartWithData(ctx, p.AccountID, id)
	if err != nil {
		return store.Chart{}, nil, StoreError(id, err, "load chart")
	}
	spec, err := DecodeSpec(c)
	if err != nil {
		return store.Chart{}, nil, err
	}
	return c, spec, nil
}

// ValidID tells whether id can name a chart; anything else is not_found.
func ValidID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// NotFound is the refusal for a chart missing from the caller's account.
func NotFound(id string) error {
	return apierr.New(apierr.NotFound, "no chart %s in this account; list your charts with GET /charts", id)
}

// StoreError maps a store error on chart id to the API's: missing is
// not_found, a lost compare-and-set conflict, anything else wrapped.
func StoreError(id string, err error, what string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NotFound(id)
	case errors.Is(err, store.ErrConflict):
		return apierr.New(apierr.Conflict, "chart %s changed since expected_updated_at; read it again (GET /charts/%s) and retry with its updated_at", id, id)
	}
	return fmt.Errorf("%s %s: %w", what, id, err)
}

// DecodeSpec decodes a stored chart's spec.
func DecodeSpec(c store.Chart) (*chartspec.Spec, error) {
	var spec chartspec.Spec
	if err := json.Unmarshal(c.Spec, &spec); err != nil {
		return nil, fmt.Errorf("decode spec of chart %s: %w", c.ID, err)
	}
	return &spec, nil
}

// Chart is a loaded chart: the stored record (without its raw data), the
// decoded spec and the data parsed, before the chart's steps.
type Chart struct {
	Stored store.Chart
	Spec   *chartspec.Spec
	// Table is the data before steps; an empty table when the chart has
	// none or the load asked for the spec only. Shared read-only.
	Table *dataset.Table
	// Format is the format the data was sent in ("" when none).
	Format string
}

// Mode says how much of a chart to load.
type Mode int

const (
	// SpecOnly loads the record and spec.
	SpecOnly Mode = iota
	// WithTable adds the parsed data.
	WithTable
)

// CacheConfig is the one size policy of parsed tables.
type CacheConfig struct {
	// Charts is how many charts' tables are kept.
	Charts int
	// MaxCells is the largest table kept; bigger ones are parsed per read.
	MaxCells int
}

// RegisterFlags declares the cache flags under prefix (e.g. "render.").
// The defaults hold 64 tables of at most 100,000 cells: ~100 MB at worst.
func (c *CacheConfig) RegisterFlags(prefix string, fs *flag.FlagSet) {
	fs.IntVar(&c.Charts, prefix+"table-cache-charts", 64, "how many charts' parsed data the service keeps in memory")
	fs.IntVar(&c.MaxCells, prefix+"table-cache-max-cells", 100_000, "largest table (cells) the service keeps parsed; bigger ones are parsed on each read")
}

// Loader loads charts from a Source and keeps their parsed tables.
type Loader struct {
	src      Source
	tables   *lru.Cache[string, cached]
	maxCells int
}

type cached struct {
	account string
	version string
	format  string
	table   *dataset.Table
}

// NewLoader builds a loader over src with cfg's cache.
func NewLoader(src Source, cfg CacheConfig) (*Loader, error) {
	if cfg.Charts < 1 {
		return nil, fmt.Errorf("table cache: Charts %d, want at least 1", cfg.Charts)
	}
	l, err := lru.New[string, cached](cfg.Charts)
	if err != nil {
		return nil, fmt.Errorf("table cache: %w", err)
	}
	return &Loader{src: src, tables: l, maxCells: cfg.MaxCells}, nil
}

// Load loads one of p's charts as far as mode says. A chart missing from
// the account is not_found.
func (l *Loader) Load(ctx context.Context, p auth.Principal, id string, mode Mode) (*Chart, error) {
	if !ValidID(id) {
		return nil, NotFound(id)
	}
	have := ""
	var hit cached
	if mode == WithTable {
		if e, ok := l.tables.Get(id); ok && e.account == p.AccountID {
			hit, have = e, e.version
		}
	}
	if mode == SpecOnly {
		have = AnyVersion
	}
	c, spec, err := l.src.LoadChart(ctx, p, id, have)
	if err != nil {
		return nil, err
	}
	out := &Chart{Stored: c, Spec: spec, Table: &dataset.Table{}}
	out.Stored.Data = nil
	switch {
	case mode == SpecOnly:
	case c.Data == nil && have != "" && spec.DataVersion == have:
		out.Table, out.Format = hit.table, hit.format
	case c.Data != nil:
		if err := l.parse(p, id, spec, c.Data, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parse sets out's table from the chart's stored data and keeps it.
func (l *Loader) parse(p auth.Principal, id string, spec *chartspec.Spec, d *store.Dataset, out *Chart) error {
	t, _, err := dataset.Parse(json.RawMessage(d.Raw), d.Format)
	if err != nil {
		return fmt.Errorf("parse stored data of chart %s: %w", id, err)
	}
	out.Table, out.Format = t, d.Format
	if spec.DataVersion != "" && dataset.Cells(t) <= l.maxCells {
		l.tables.Add(id, cached{account: p.AccountID, version: spec.DataVersion, format: d.Format, table: t})
	}
	return nil
}

// Edit changes one of p's charts with charts.EditChart, the store's
// serialised read-modify-write: change sees the newest version, loaded as
// far as mode says (a kept table when its data version is current), and
// sets on save what to store (name, spec, type, and data when it replaces
// it). Concurrent edits of one chart run one after another, so none is
// lost and none conflicts. An API error from change is answered as is.
func (l *Loader) Edit(ctx context.Context, charts store.Charts, p auth.Principal, id string, mode Mode, change func(c *Chart, save *store.Chart) error) (store.Chart, error) {
	if !ValidID(id) {
		return store.Chart{}, NotFound(id)
	}
	saved, err := charts.EditChart(ctx, p.AccountID, id, func(cur store.Chart, data func() (*store.Dataset, error)) (store.Chart, error) {
		spec, err := DecodeSpec(cur)
		if err != nil {
			return store.Chart{}, err
		}
		c := &Chart{Stored: cur, Spec: spec, Table: &dataset.Table{}}
		c.Stored.Data = nil
		if mode == WithTable {
			if e, ok := l.tables.Get(id); ok && e.account == p.AccountID && spec.DataVersion != "" && e.version == spec.DataVersion {
				c.Table, c.Format = e.table, e.format
			} else if d, err := data(); err != nil {
				return store.Chart{}, fmt.Errorf("load data: %w", err)
			} else if d != nil {
				if err := l.parse(p, id, spec, d, c); err != nil {
					return store.Chart{}, err
				}
			}
		}
		save := c.Stored
		if err := change(c, &save); err != nil {
			return store.Chart{}, err
		}
		return save, nil
	})
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return store.Chart{}, ae
	}
	if err != nil {
		return store.Chart{}, StoreError(id, err, "edit chart")
	}
	return saved, nil
}

// Remember keeps a table the caller has just parsed and saved as version
// of the chart's data (create, set_data), so the next read skips parsing.
func (l *Loader) Remember(accountID, id, version, format string, t *dataset.Table) {
	if version != "" && dataset.Cells(t) <= l.maxCells {
		l.tables.Add(id, cached{account: accountID, version: version, format: format, table: t})
	}
}

// ReaderConfig is the settings of a service that reads chart aggregates
// (chart, data, render): where it runs and how many parsed tables it keeps.
type ReaderConfig struct {
	route.Site
	// Tables sizes the parsed-data cache.
	Tables CacheConfig
}

// RegisterFlags declares the service's flags under its name, e.g.
// -render.table-cache-charts for service "render".
func (c *ReaderConfig) RegisterFlags(service string, fs *flag.FlagSet) {
	c.Tables.RegisterFlags(service+".", fs)
}

// TimeLayout writes timestamps as ISO 8601 with microseconds and a UTC
// offset (spec §1 rule 5): 2026-11-22T09:41:07.123456+00:00.
const TimeLayout = "2006-01-02T15:04:05.000000-07:00"

// Record is the chart record of spec §2, as every answer that names a
// chart carries it.
type Record struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Type      string `json:"type" enum:"$chart_type"`
	URL       string `json:"url"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// RecordOf is c's record on the site at siteURL ({site_url}).
func RecordOf(siteURL string, c store.Chart) Record {
	return Record{
		ID:        c.ID,
		Name:      c.Name,
		Type:      c.Type,
		URL:       strings.TrimRight(siteURL, "/") + "/charts/" + c.ID,
		CreatedAt: c.CreatedAt.UTC().Format(TimeLayout),
		UpdatedAt: c.UpdatedAt.UTC().Format(TimeLayout),
	}
}
