// Package store is chartd's persistence layer: the domain records it keeps
// (accounts, API keys, signing keys, brand palettes, charts with their data) and the
// interfaces every backend implements. Two backends exist, chosen by the
// deployment: store/sqlite for the one-machine setup and store/postgres for
// the cluster; store/storetest is the one conformance suite both must pass.
//
// Conventions shared by every backend:
//   - every chart and key query is scoped to an account: a record
//     that exists but belongs to another account is ErrNotFound;
//   - timestamps are UTC and truncated to microseconds, so a value read back
//     equals the value returned when it was written, on either backend;
//   - errors wrap the sentinels below, test them with errors.Is.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"chartd.dev/libs/plan"
)

// Sentinel errors; backends wrap them with context, callers use errors.Is.
var (
	// ErrNotFound means the record does not exist in the caller's account
	// (or is revoked, for key lookups).
	ErrNotFound = errors.New("store: not found")
	// ErrConflict means a write lost a race: a stale expected updated_at, or
	// a duplicate id or key hash.
	ErrConflict = errors.New("store: conflict")
	// ErrLimit means creating the record would exceed the account's limit.
	ErrLimit = errors.New("store: limit reached")
	// ErrLinkLimit is the ErrLimit of an account holding its data links
	// (LinkLimits.Links), told apart from its designs so the refusal can
	// say which to free.
	ErrLinkLimit = fmt.Errorf("%w: data links", ErrLimit)
	// ErrBadCursor means a ListCharts cursor was not produced by this store.
	ErrBadCursor = errors.New("store: malformed cursor")
	// ErrInvalidPlan means a plan id other than PlanFree or PlanPro.
	ErrInvalidPlan = errors.New("store: invalid plan")
	// ErrStorageFull means the backend's disk (or quota) is full: the
	// write was refused whole, nothing of it was kept. It is no fault of
	// the request, and it lasts until an operator frees space or deletes
	// free some. libs/apierr answers it by its StorageFull method, so the
	// mapping needs no import of this package.
	ErrStorageFull error = storageFull{}
	// ErrDeleteFull comes with ErrStorageFull when the disk is so full
	// that even a delete, which would free space, found no room: nothing
	// was deleted, and the answer must not say that deletes work.
	ErrDeleteFull error = deleteFull{}
)

// storageFull is the type of ErrStorageFull.
type storageFull struct{}

func (storageFull) Error() string { return "store: storage full" }

// StorageFull marks the error for libs/apierr (see ErrStorageFull).
func (storageFull) StorageFull() bool { return true }

// FullError wraps cause, a driver's "disk full" error, in ErrStorageFull,
// keeping the cause for the log.
func FullError(cause error) error {
	return fmt.Errorf("%w: %w", ErrStorageFull, cause)
}

// deleteFull is the type of ErrDeleteFull.
type deleteFull struct{}

func (deleteFull) Error() string { return "nothing was deleted" }

// DeleteRefused marks the error for libs/apierr (see ErrDeleteFull).
func (deleteFull) DeleteRefused() bool { return true }

// DeleteFullError wraps cause, a driver's "disk full" error met by a
// delete, in ErrStorageFull and ErrDeleteFull.
func DeleteFullError(cause error) error {
	return fmt.Errorf("%w (%w): %w", ErrStorageFull, ErrDeleteFull, cause)
}

// FreeSpace answers the bytes an unprivileged writer may still use on
// dir's file system: what the store's reserves and the image cache's floor
// are measured against.
func FreeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// IsNoSpace reports a file system's "no space left" or "quota exceeded"
// in err's chain: what a backend writing files sees on a full disk.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Plan ids an account can hold; the plan package is their one source.
const (
	// PlanFree is the default plan with the lower limits.
	PlanFree = plan.Free
	// PlanPro is the paid plan.
	PlanPro = plan.Pro
)

// ValidPlan reports whether p is a plan id the store accepts.
func ValidPlan(p string) bool { return plan.Valid(p) }

// Account is a customer; its plan decides its limits.
type Account struct {
	ID        string
	Plan      string
	CreatedAt time.Time
}

// APIKey is a stored API key. Only the SHA-256 hash of the full key is kept;
// Prefix is the visible start shown on the account page.
type APIKey struct {
	ID        string
	AccountID string
	Name      string
	Prefix    string
	Hash      []byte
	CreatedAt time.Time
	RevokedAt *time.Time
}

// SigningKey signs public image links; ID is the kid carried in the link.
//
// The store keeps Secret as opaque bytes and never interprets them. The
// owner of signing keys (libs/signing) stores them sealed under the server
// key and bound to AccountID and ID (libs/secrets), so a dump of the table
// alone cannot sign links; rows written before sealing existed hold the raw
// secret until they are re-sealed (SetSigningKeySecret) or rotated away.
type SigningKey struct {
	ID        string
	AccountID string
	Secret    []byte
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Accounts keeps accounts and what hangs off them: API keys, signing keys
// and the brand palette.
type Accounts interface {
	// CreateAccount makes an account with a fresh UUID id.
	CreateAccount(ctx context.Context, plan string) (Account, error)
	// GetAccount loads one account.
	GetAccount(ctx context.Context, id string) (Account, error)
	// SetPlan changes an account's plan.
	SetPlan(ctx context.Context, id, plan string) error
	// ListAccounts lists every account, oldest first.
	ListAccounts(ctx context.Context) ([]Account, error)

	// CreateAPIKey stores a key by its hash; a duplicate hash is ErrConflict.
	CreateAPIKey(ctx context.Context, accountID, name, prefix string, hash []byte) (APIKey, error)
	// ListAPIKeys lists an account's keys, revoked ones included, oldest first.
	ListAPIKeys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeAPIKey revokes one of the account's keys; revoking twice keeps
	// the first revocation time. Another account's key is ErrNotFound.
	RevokeAPIKey(ctx context.Context, accountID, keyID string) error
	// LookupAPIKey authenticates a request: the live key with this hash and
	// its account. Missing or revoked is ErrNotFound.
	LookupAPIKey(ctx context.Context, hash []byte) (APIKey, Account, error)

	// CreateSigningKey stores a new image-link signing key under kid, which
	// the caller picks (a fresh UUID) so that it can bind the stored secret
	// to it before the row exists. An empty kid is refused; a kid already
	// used, by any account, is ErrConflict; an unknown account ErrNotFound.
	CreateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (SigningKey, error)
	// ListSigningKeys lists an account's signing keys, revoked ones included,
	// oldest first.
	ListSigningKeys(ctx context.Context, accountID string) ([]SigningKey, error)
	// RevokeSigningKey revokes one of the account's signing keys; the data
	// links it signed stop, so their rows (and designs no link keeps) go.
	RevokeSigningKey(ctx context.Context, accountID, kid string) error
	// GetSigningKey loads one of the account's signing keys, revoked or not.
	GetSigningKey(ctx context.Context, accountID, kid string) (SigningKey, error)
	// LookupSigningKey finds a live signing key by kid alone, for verifying a
	// public image link that names no account. Missing or revoked is
	// ErrNotFound.
	LookupSigningKey(ctx context.Context, kid string) (SigningKey, error)
	// SetSigningKeySecret replaces the stored secret bytes of one of the
	// account's signing keys (revoked or not) when they still equal old: a
	// compare-and-set, for re-sealing a key in place. Bytes other than old
	// are ErrConflict; a missing key, or another account's, ErrNotFound.
	SetSigningKeySecret(ctx context.Context, accountID, kid string, old, secret []byte) error
	// RotateSigningKey, in one transaction, stores a new signing key under
	// kid (none when kid is empty) and revokes every other live key of
	// the account, answering the new key and the kids revoked: a failure
	// leaves the account's keys as they were. An unknown account is
	// ErrNotFound, a kid already used ErrConflict.
	RotateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (SigningKey, []string, error)
	// ResealSigningKeys passes every signing key of every account, revoked
	// ones included, to reseal and stores the secret it answers when
	// changed, all in one transaction that holds the rows: one error from
	// reseal (or the store) and nothing is written. It answers how many
	// keys it saw and how many it changed.
	ResealSigningKeys(ctx context.Context, reseal func(SigningKey) (secret []byte, changed bool, err error)) (seen, changed int, err error)

	// SetBrandPalette replaces the account's brand colors; nil (or empty)
	// clears them.
	SetBrandPalette(ctx context.Context, accountID string, colors []string) error
	// GetBrandPalette answers the brand colors, nil when none are set.
	GetBrandPalette(ctx context.Context, accountID string) ([]string, error)
}

// Dataset is a chart's data exactly as sent: the request's `data` JSON
// value and its format. Parsing is the readers' job.
type Dataset struct {
	Format string
	Raw    []byte
}

// Chart is a saved chart: one aggregate of its record, its spec and its
// data, always written together. Spec is opaque JSON owned by the chart
// service; UpdatedAt doubles as the optimistic-concurrency token.
type Chart struct {
	ID        string
	AccountID string
	Name      string
	Type      string
	Spec      []byte
	// Data is the chart's data. On writes, nil leaves the stored data as
	// it is; on reads only GetChartWithData sets it (nil when the chart
	// has none).
	Data      *Dataset
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ChartEdit is the change EditChart makes. data reads the chart's data as
// it is while the edit holds the chart (nil when it has none); an edit
// that does not need it never pays for reading it.
type ChartEdit func(cur Chart, data func() (*Dataset, error)) (Chart, error)

// Page sizes for ListCharts.
const (
	// DefaultPageSize is used when ListCharts is given limit <= 0.
	DefaultPageSize = 50
	// MaxPageSize caps ListCharts' limit so one call stays cheap.
	MaxPageSize = 1000
)

// Charts keeps saved charts. Every write of a chart and its data is one
// transaction, so no reader ever sees the spec of one call with the data
// of another.
type Charts interface {
	// CreateChart inserts c and, when c.Data is set, its data, with fresh
	// timestamps (and a fresh UUID when c.ID is empty). When limit > 0 and
	// the account already holds limit charts it answers ErrLimit; the
	// check and insert are atomic.
	CreateChart(ctx context.Context, c Chart, limit int) (Chart, error)
	// GetChart loads one of the account's charts without its data.
	GetChart(ctx context.Context, accountID, id string) (Chart, error)
	// GetChartWithData loads the chart and its data in one consistent read.
	GetChartWithData(ctx context.Context, accountID, id string) (Chart, error)
	// UpdateChart saves c's name, type and spec and, when c.Data is set,
	// replaces its data, in one transaction. updated_at always moves
	// forward (see NextUpdatedAt). When expected is non-nil and differs
	// from the stored updated_at, nothing is written and the answer is
	// ErrConflict; concurrent writers holding the same token: one wins.
	UpdateChart(ctx context.Context, c Chart, expected *time.Time) (Chart, error)
	// EditChart changes one of the account's charts as one read-modify-
	// write: edits of the same chart (on any replica sharing the database)
	// run one after another, so edit always sees the newest version, an
	// edit never loses to another and none is lost. edit gets the chart as
	// stored (Data nil) and answers what to save, as UpdateChart takes it;
	// only its ID and AccountID are kept from cur. An error from edit
	// writes nothing and is answered wrapped. A missing chart is
	// ErrNotFound.
	EditChart(ctx context.Context, accountID, id string, edit ChartEdit) (Chart, error)
	// DeleteChart removes one of the account's charts and its data.
	DeleteChart(ctx context.Context, accountID, id string) error
	// ListCharts pages through the account's charts, most recently changed
	// first (updated_at DESC, id DESC). cursor is "" for the first page or a
	// previous answer's next; next is "" on the last page. A malformed
	// cursor wraps ErrBadCursor.
	ListCharts(ctx context.Context, accountID string, limit int, cursor string) (charts []Chart, next string, err error)
	// CountCharts answers how many charts the account holds.
	CountCharts(ctx context.Context, accountID string) (int, error)
	// FindCharts answers one page of the account's charts whose name or
	// drawn title holds q.Text (ASCII letters in any case; every chart
	// when empty), in q's order, and whether more follow: the site's
	// chart list, searched and ordered by the database, not in memory.
	FindCharts(ctx context.Context, accountID string, q ChartSearch) (charts []Chart, more bool, err error)
}

// ChartSearch is one page of a chart search.
type ChartSearch struct {
	// Text is found in the name or the drawn title (spec style.title.text).
	Text string
	// Oldest lists least recently changed first; else most recent first.
	Oldest bool
	// Offset charts are skipped; Limit (1..MaxPageSize) are answered.
	Offset, Limit int
}

// LikePattern is text as a LIKE pattern that finds it anywhere, with
// the pattern's own characters (% _ \) escaped by backslash.
func LikePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(text) + "%"
}

// Store is everything a backend provides.
// LinkDesigns keeps the design (spec and drawn columns) a data image link
// was made with, so its picture never changes; owned by the render
// service. Each design is kept once per account, by its SHA-256: a link
// stores only its id, its signing key and the design's hash, so links
// made from one chart state cost a couple of hundred bytes each. Both
// designs and links are bounded per account (LinkLimits); revoking or
// rotating a signing key deletes the links it signed and the designs no
// link keeps.
type LinkDesigns interface {
	// PutLinkDesign stores l's design under l.ID (a hash of the link);
	// storing the same id again keeps the first and counts against no
	// limit. A new link is refused with ErrLinkLimit once the account
	// holds limits.Links links (those expired are deleted first), and a
	// design the account does not hold yet with ErrLimit once it holds
	// limits.Designs designs.
	PutLinkDesign(ctx context.Context, accountID string, l DataLink, limits LinkLimits) error
	// GetLinkDesign loads a design of the account; ErrNotFound when none.
	GetLinkDesign(ctx context.Context, accountID, id string) ([]byte, error)
	// CountLinkDesigns answers how many distinct designs the account holds.
	CountLinkDesigns(ctx context.Context, accountID string) (int, error)
	// CountDataLinks answers how many data links the account holds.
	CountDataLinks(ctx context.Context, accountID string) (int, error)
}

// DataLink is one data image link as stored: which link, to which chart,
// signed by which key, drawn with which design.
type DataLink struct {
	// ID names the link (its signature).
	ID string
	// ChartID is the chart linked to.
	ChartID string
	// KID is the signing key that signed the link: revoking it deletes
	// the row.
	KID string
	// Design is the spec and drawn columns, kept once per account.
	Design []byte
	// Expires is when the link stops (zero: never); an account at its
	// limit drops the rows of its links past it.
	Expires time.Time
}

// LinkLimits bound an account's data links; 0 is no bound.
type LinkLimits struct {
	// Designs is the most distinct designs the account may keep.
	Designs int
	// Links is the most data links the account may keep.
	Links int
}

type Store interface {
	Accounts
	Charts
	LinkDesigns
	People
	OAuth
	// Ping checks that the backend answers (readiness probes).
	Ping(ctx context.Context) error
	// Close releases the backend's connections.
	Close() error
}
