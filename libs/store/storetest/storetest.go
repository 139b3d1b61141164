// Package storetest is the one conformance suite every store.Store backend
// must pass, plus shared benchmarks. Backends call Run from their own tests
// with a function that opens a fresh, empty store (and closes it through
// t.Cleanup).
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

// Run runs the conformance suite. open must answer a fresh, empty store for
// each call and arrange for it to be closed when t ends.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Ping", testPing},
		{"Accounts", testAccounts},
		{"ListAccounts", testListAccounts},
		{"APIKeys", testAPIKeys},
		{"SigningKeys", testSigningKeys},
		{"SigningKeySecret", testSigningKeySecret},
		{"RotateSigningKey", testRotateSigningKey},
		{"ResealSigningKeys", testResealSigningKeys},
		{"BrandPalette", testBrandPalette},
		{"LinkDesigns", testLinkDesigns},
		{"DataLinkLimit", testDataLinkLimit},
		{"ChartCRUD", testChartCRUD},
		{"ChartScoping", testChartScoping},
		{"ChartMicroseconds", testChartMicroseconds},
		{"ChartLimit", testChartLimit},
		{"ChartLimitRace", testChartLimitRace},
		{"ChartConflict", testChartConflict},
		{"ChartUpdateRace", testChartUpdateRace},
		{"ChartUpdatedAtMonotonic", testChartUpdatedAtMonotonic},
		{"ListCharts", testListCharts},
		{"ListChartsBadCursor", testListChartsBadCursor},
		{"FindCharts", testFindCharts},
		{"ListChartsConcurrent", testListChartsConcurrent},
		{"ChartData", testChartData},
		{"ChartDataScoping", testChartDataScoping},
		{"ChartDataRace", testChartDataRace},
		{"ChartDataRaceSpecEdits", testChartDataRaceSpecEdits},
		{"ChartDataRaceBlind", testChartDataRaceBlind},
		{"ChartEdit", testChartEdit},
		{"ChartEditRace", testChartEditRace},
		{"ChartEditRaceData", testChartEditRaceData},
		{"People", testPeople},
		{"Sessions", testSessions},
		{"SignInTokens", testSignInTokens},
		{"PendingSignUps", testPendingSignUps},
		{"APIKeyUses", testAPIKeyUses},
		{"OAuth", testOAuth},
		{"OAuthSpendRace", testOAuthSpendRace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// wantErr fails t unless err wraps target.
func wantErr(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error = %v, want %v", what, err, target)
	}
}

// must fails t on err.
func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// normalised fails t unless ts is UTC with whole microseconds.
func normalised(t testing.TB, what string, ts time.Time) {
	t.Helper()
	if ts.IsZero() || ts != store.Micro(ts) || ts.Location() != time.UTC {
		t.Fatalf("%s: timestamp %v (%s) is not UTC with whole microseconds", what, ts, ts.Location())
	}
}

func newAccount(t testing.TB, s store.Store, plan string) store.Account {
	t.Helper()
	a, err := s.CreateAccount(context.Background(), plan)
	must(t, "create account", err)
	return a
}

func newChart(t testing.TB, s store.Store, accountID, name string) store.Chart {
	t.Helper()
	c, err := s.CreateChart(context.Background(), store.Chart{
		AccountID: accountID, Name: name, Type: "bar", Spec: []byte(`{"type":"bar","name":"` + name + `"}`),
	}, 0)
	must(t, "create chart "+name, err)
	return c
}

func hashOf(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

func testPing(t *testing.T, s store.Store) {
	must(t, "ping", s.Ping(context.Background()))
}

func testAccounts(t *testing.T, s store.Store) {
	ctx := context.Background()
	before := store.Micro(time.Now())
	a := newAccount(t, s, store.PlanFree)
	if _, err := uuid.Parse(a.ID); err != nil {
		t.Fatalf("account id %q is not a UUID: %v", a.ID, err)
	}
	if a.Plan != store.PlanFree {
		t.Fatalf("plan = %q, want free", a.Plan)
	}
	normalised(t, "account created_at", a.CreatedAt)
	if a.CreatedAt.Before(before) || a.CreatedAt.After(time.Now()) {
		t.Fatalf("created_at %v not within the call", a.CreatedAt)
	}
	got, err := s.GetAccount(ctx, a.ID)
	must(t, "get account", err)
	if got != a {
		t.Fatalf("GetAccount = %+v, want %+v", got, a)
	}

	must(t, "set plan", s.SetPlan(ctx, a.ID, store.PlanPro))
	got, err = s.GetAccount(ctx, a.ID)
	must(t, "get account", err)
	if got.Plan != store.PlanPro {
		t.Fatalf("plan after SetPlan = %q, want pro", got.Plan)
	}

	_, err = s.GetAccount(ctx, uuid.NewString())
	wantErr(t, "get unknown account", err, store.ErrNotFound)
	wantErr(t, "set plan of unknown account", s.SetPlan(ctx, uuid.NewString(), store.PlanPro), store.ErrNotFound)
	wantErr(t, "set invalid plan", s.SetPlan(ctx, a.ID, "gold"), store.ErrInvalidPlan)
	_, err = s.CreateAccount(ctx, "")
	wantErr(t, "create account with empty plan", err, store.ErrInvalidPlan)
	got, err = s.GetAccount(ctx, a.ID)
	must(t, "get account", err)
	if got.Plan != store.PlanPro {
		t.Fatalf("invalid SetPlan changed the plan to %q", got.Plan)
	}
}

func testListAccounts(t *testing.T, s store.Store) {
	ctx := context.Background()
	empty, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	if len(empty) != 0 {
		t.Fatalf("fresh store lists %d accounts", len(empty))
	}
	var want []store.Account
	for i := range 3 {
		want = append(want, newAccount(t, s, []string{store.PlanFree, store.PlanPro}[i%2]))
	}
	got, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	slices.SortFunc(want, func(a, b store.Account) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListAccounts = %+v, want %+v", got, want)
	}
}

func testAPIKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	other := newAccount(t, s, store.PlanFree)

	k1, err := s.CreateAPIKey(ctx, a.ID, "ci", "cd_live_ab", hashOf("key-1"))
	must(t, "create api key", err)
	k2, err := s.CreateAPIKey(ctx, a.ID, "laptop", "cd_live_cd", hashOf("key-2"))
	must(t, "create api key", err)
	if k1.AccountID != a.ID || k1.Name != "ci" || k1.Prefix != "cd_live_ab" || !bytes.Equal(k1.Hash, hashOf("key-1")) || k1.RevokedAt != nil {
		t.Fatalf("created key = %+v", k1)
	}
	normalised(t, "api key created_at", k1.CreatedAt)

	_, err = s.CreateAPIKey(ctx, other.ID, "dup", "cd_live_ab", hashOf("key-1"))
	wantErr(t, "duplicate hash", err, store.ErrConflict)
	_, err = s.CreateAPIKey(ctx, uuid.NewString(), "x", "cd_live_x", hashOf("key-x"))
	wantErr(t, "key for unknown account", err, store.ErrNotFound)

	gotKey, gotAcc, err := s.LookupAPIKey(ctx, hashOf("key-1"))
	must(t, "lookup api key", err)
	if !reflect.DeepEqual(gotKey, k1) || gotAcc != a {
		t.Fatalf("LookupAPIKey = %+v, %+v; want %+v, %+v", gotKey, gotAcc, k1, a)
	}
	_, _, err = s.LookupAPIKey(ctx, hashOf("never issued"))
	wantErr(t, "lookup unknown key", err, store.ErrNotFound)

	list, err := s.ListAPIKeys(ctx, a.ID)
	must(t, "list api keys", err)
	if !reflect.DeepEqual(list, []store.APIKey{k1, k2}) && !reflect.DeepEqual(list, []store.APIKey{k2, k1}) {
		t.Fatalf("ListAPIKeys = %+v, want k1 and k2", list)
	}
	if list[0].CreatedAt.After(list[1].CreatedAt) {
		t.Fatalf("ListAPIKeys not oldest first: %+v", list)
	}
	otherList, err := s.ListAPIKeys(ctx, other.ID)
	must(t, "list api keys", err)
	if len(otherList) != 0 {
		t.Fatalf("other account lists %d keys, want 0", len(otherList))
	}

	wantErr(t, "revoke another account's key", s.RevokeAPIKey(ctx, other.ID, k1.ID), store.ErrNotFound)
	wantErr(t, "revoke unknown key", s.RevokeAPIKey(ctx, a.ID, uuid.NewString()), store.ErrNotFound)
	if _, _, err := s.LookupAPIKey(ctx, hashOf("key-1")); err != nil {
		t.Fatalf("key revoked by the wrong account stopped working: %v", err)
	}

	must(t, "revoke api key", s.RevokeAPIKey(ctx, a.ID, k1.ID))
	_, _, err = s.LookupAPIKey(ctx, hashOf("key-1"))
	wantErr(t, "lookup revoked key", err, store.ErrNotFound)
	if _, _, err := s.LookupAPIKey(ctx, hashOf("key-2")); err != nil {
		t.Fatalf("revoking k1 broke k2: %v", err)
	}

	list, err = s.ListAPIKeys(ctx, a.ID)
	must(t, "list api keys", err)
	revoked := findKey(list, k1.ID)
	if revoked == nil || revoked.RevokedAt == nil {
		t.Fatalf("revoked key listed without revoked_at: %+v", list)
	}
	normalised(t, "revoked_at", *revoked.RevokedAt)
	first := *revoked.RevokedAt
	time.Sleep(2 * time.Millisecond)
	must(t, "revoke twice", s.RevokeAPIKey(ctx, a.ID, k1.ID))
	list, err = s.ListAPIKeys(ctx, a.ID)
	must(t, "list api keys", err)
	if again := findKey(list, k1.ID); again == nil || again.RevokedAt == nil || *again.RevokedAt != first {
		t.Fatalf("second revoke moved revoked_at from %v: %+v", first, again)
	}
}

func findKey(keys []store.APIKey, id string) *store.APIKey {
	for i := range keys {
		if keys[i].ID == id {
			return &keys[i]
		}
	}
	return nil
}

func testSigningKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	other := newAccount(t, s, store.PlanFree)
	secret := bytes.Repeat([]byte{0x00, 0xff, 0x7f}, 11)

	kid := uuid.NewString()
	k, err := s.CreateSigningKey(ctx, a.ID, kid, secret)
	must(t, "create signing key", err)
	if k.ID != kid || k.AccountID != a.ID || !bytes.Equal(k.Secret, secret) || k.RevokedAt != nil {
		t.Fatalf("created signing key = %+v", k)
	}
	normalised(t, "signing key created_at", k.CreatedAt)
	k2, err := s.CreateSigningKey(ctx, a.ID, uuid.NewString(), []byte("second"))
	must(t, "create signing key", err)
	_, err = s.CreateSigningKey(ctx, uuid.NewString(), uuid.NewString(), secret)
	wantErr(t, "signing key for unknown account", err, store.ErrNotFound)
	_, err = s.CreateSigningKey(ctx, a.ID, kid, []byte("again"))
	wantErr(t, "signing key with a kid already used", err, store.ErrConflict)
	_, err = s.CreateSigningKey(ctx, other.ID, kid, []byte("again"))
	wantErr(t, "signing key with another account's kid", err, store.ErrConflict)
	if _, err := s.CreateSigningKey(ctx, a.ID, "", secret); err == nil {
		t.Fatal("signing key with an empty kid accepted")
	}

	got, err := s.GetSigningKey(ctx, a.ID, k.ID)
	must(t, "get signing key", err)
	if !reflect.DeepEqual(got, k) {
		t.Fatalf("GetSigningKey = %+v, want %+v", got, k)
	}
	looked, err := s.LookupSigningKey(ctx, k.ID)
	must(t, "lookup signing key", err)
	if !reflect.DeepEqual(looked, k) {
		t.Fatalf("LookupSigningKey = %+v, want %+v", looked, k)
	}
	_, err = s.GetSigningKey(ctx, other.ID, k.ID)
	wantErr(t, "get another account's signing key", err, store.ErrNotFound)
	_, err = s.LookupSigningKey(ctx, uuid.NewString())
	wantErr(t, "lookup unknown signing key", err, store.ErrNotFound)

	list, err := s.ListSigningKeys(ctx, a.ID)
	must(t, "list signing keys", err)
	if len(list) != 2 || list[0].CreatedAt.After(list[1].CreatedAt) {
		t.Fatalf("ListSigningKeys = %+v, want 2 keys oldest first", list)
	}
	otherList, err := s.ListSigningKeys(ctx, other.ID)
	must(t, "list signing keys", err)
	if len(otherList) != 0 {
		t.Fatalf("other account lists %d signing keys", len(otherList))
	}

	wantErr(t, "revoke another account's signing key", s.RevokeSigningKey(ctx, other.ID, k.ID), store.ErrNotFound)
	wantErr(t, "revoke unknown signing key", s.RevokeSigningKey(ctx, a.ID, uuid.NewString()), store.ErrNotFound)
	must(t, "revoke signing key", s.RevokeSigningKey(ctx, a.ID, k.ID))
	got, err = s.GetSigningKey(ctx, a.ID, k.ID)
	must(t, "get revoked signing key", err)
	if got.RevokedAt == nil {
		t.Fatalf("revoked signing key has no revoked_at")
	}
	normalised(t, "signing key revoked_at", *got.RevokedAt)
	_, err = s.LookupSigningKey(ctx, k.ID)
	wantErr(t, "lookup revoked signing key", err, store.ErrNotFound)
	if _, err := s.LookupSigningKey(ctx, k2.ID); err != nil {
		t.Fatalf("revoking one signing key broke another: %v", err)
	}
}

func testSigningKeySecret(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	other := newAccount(t, s, store.PlanFree)
	old := []byte("raw secret, written before sealing")
	k, err := s.CreateSigningKey(ctx, a.ID, uuid.NewString(), old)
	must(t, "create signing key", err)
	sealed := append([]byte{1}, bytes.Repeat([]byte{0x00, 0xff}, 30)...)

	wantErr(t, "set another account's signing key secret",
		s.SetSigningKeySecret(ctx, other.ID, k.ID, old, sealed), store.ErrNotFound)
	wantErr(t, "set an unknown signing key secret",
		s.SetSigningKeySecret(ctx, a.ID, uuid.NewString(), old, sealed), store.ErrNotFound)
	wantErr(t, "set a secret from stale bytes",
		s.SetSigningKeySecret(ctx, a.ID, k.ID, []byte("not what is stored"), sealed), store.ErrConflict)
	must(t, "set signing key secret", s.SetSigningKeySecret(ctx, a.ID, k.ID, old, sealed))
	got, err := s.GetSigningKey(ctx, a.ID, k.ID)
	must(t, "get signing key", err)
	if !bytes.Equal(got.Secret, sealed) || got.ID != k.ID || got.CreatedAt != k.CreatedAt || got.RevokedAt != nil {
		t.Fatalf("after SetSigningKeySecret: %+v", got)
	}
	wantErr(t, "set a secret twice from the same old bytes",
		s.SetSigningKeySecret(ctx, a.ID, k.ID, old, sealed), store.ErrConflict)

	// Revoked keys are re-sealed too (their secrets should not sit in a
	// dump either), and stay revoked.
	must(t, "revoke signing key", s.RevokeSigningKey(ctx, a.ID, k.ID))
	must(t, "set revoked signing key secret", s.SetSigningKeySecret(ctx, a.ID, k.ID, sealed, old))
	got, err = s.GetSigningKey(ctx, a.ID, k.ID)
	must(t, "get signing key", err)
	if !bytes.Equal(got.Secret, old) || got.RevokedAt == nil {
		t.Fatalf("after SetSigningKeySecret on a revoked key: %+v", got)
	}
	_, err = s.LookupSigningKey(ctx, k.ID)
	wantErr(t, "lookup re-sealed revoked key", err, store.ErrNotFound)
}

func testBrandPalette(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	other := newAccount(t, s, store.PlanFree)

	tests := []struct {
		name string
		set  []string
		want []string
	}{
		{"three colors", []string{"#1f77b4", "#ff7f0e", "#2ca02c"}, []string{"#1f77b4", "#ff7f0e", "#2ca02c"}},
		{"replace", []string{"#000000"}, []string{"#000000"}},
		{"nil clears", nil, nil},
		{"set again", []string{"#abcdef", "#123456"}, []string{"#abcdef", "#123456"}},
		{"empty clears", []string{}, nil},
	}
	got, err := s.GetBrandPalette(ctx, a.ID)
	must(t, "get brand palette", err)
	if got != nil {
		t.Fatalf("new account has palette %v, want nil", got)
	}
	for _, tt := range tests {
		must(t, tt.name, s.SetBrandPalette(ctx, a.ID, tt.set))
		got, err := s.GetBrandPalette(ctx, a.ID)
		must(t, tt.name, err)
		if !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%s: palette = %#v, want %#v", tt.name, got, tt.want)
		}
	}
	must(t, "set", s.SetBrandPalette(ctx, a.ID, []string{"#ffffff"}))
	otherGot, err := s.GetBrandPalette(ctx, other.ID)
	must(t, "get other palette", err)
	if otherGot != nil {
		t.Fatalf("palette leaked to another account: %v", otherGot)
	}
	wantErr(t, "set palette of unknown account", s.SetBrandPalette(ctx, uuid.NewString(), []string{"#fff"}), store.ErrNotFound)
	_, err = s.GetBrandPalette(ctx, uuid.NewString())
	wantErr(t, "get palette of unknown account", err, store.ErrNotFound)
}

func testChartCRUD(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	spec := []byte(`{"type": "line",  "options": {"title": "Ünïcode ✓"}}`)
	before := store.Micro(time.Now())
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "Revenue", Type: "line", Spec: spec}, 0)
	must(t, "create chart", err)
	if _, err := uuid.Parse(c.ID); err != nil {
		t.Fatalf("chart id %q is not a UUID: %v", c.ID, err)
	}
	if c.AccountID != a.ID || c.Name != "Revenue" || c.Type != "line" || !bytes.Equal(c.Spec, spec) {
		t.Fatalf("created chart = %+v", c)
	}
	if c.CreatedAt != c.UpdatedAt || c.CreatedAt.Before(before) {
		t.Fatalf("fresh chart timestamps: created %v updated %v (call began %v)", c.CreatedAt, c.UpdatedAt, before)
	}
	got, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get chart", err)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("GetChart = %+v, want %+v", got, c)
	}

	chosen := uuid.NewString()
	c2, err := s.CreateChart(ctx, store.Chart{ID: chosen, AccountID: a.ID, Name: "Chosen id", Type: "bar", Spec: []byte(`{}`)}, 0)
	must(t, "create chart with chosen id", err)
	if c2.ID != chosen {
		t.Fatalf("chosen id %s became %s", chosen, c2.ID)
	}
	_, err = s.CreateChart(ctx, store.Chart{ID: chosen, AccountID: a.ID, Name: "again", Type: "bar", Spec: []byte(`{}`)}, 0)
	wantErr(t, "create chart with duplicate id", err, store.ErrConflict)
	_, err = s.CreateChart(ctx, store.Chart{AccountID: uuid.NewString(), Name: "orphan", Type: "bar", Spec: []byte(`{}`)}, 0)
	wantErr(t, "create chart for unknown account", err, store.ErrNotFound)

	newSpec := []byte(`{"type":"area"}`)
	up, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "Revenue 2026", Type: "area", Spec: newSpec}, nil)
	must(t, "update chart", err)
	if up.Name != "Revenue 2026" || up.Type != "area" || !bytes.Equal(up.Spec, newSpec) || up.CreatedAt != c.CreatedAt || up.ID != c.ID || up.AccountID != a.ID {
		t.Fatalf("updated chart = %+v", up)
	}
	if !up.UpdatedAt.After(c.UpdatedAt) {
		t.Fatalf("updated_at did not move forward: %v -> %v", c.UpdatedAt, up.UpdatedAt)
	}
	got, err = s.GetChart(ctx, a.ID, c.ID)
	must(t, "get updated chart", err)
	if !reflect.DeepEqual(got, up) {
		t.Fatalf("GetChart after update = %+v, want %+v", got, up)
	}
	_, err = s.UpdateChart(ctx, store.Chart{ID: uuid.NewString(), AccountID: a.ID, Name: "x", Type: "bar"}, nil)
	wantErr(t, "update unknown chart", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: uuid.NewString(), AccountID: a.ID, Name: "x", Type: "bar"}, &up.UpdatedAt)
	wantErr(t, "update unknown chart with token", err, store.ErrNotFound)

	n, err := s.CountCharts(ctx, a.ID)
	must(t, "count charts", err)
	if n != 2 {
		t.Fatalf("CountCharts = %d, want 2", n)
	}
	must(t, "delete chart", s.DeleteChart(ctx, a.ID, c.ID))
	_, err = s.GetChart(ctx, a.ID, c.ID)
	wantErr(t, "get deleted chart", err, store.ErrNotFound)
	wantErr(t, "delete chart twice", s.DeleteChart(ctx, a.ID, c.ID), store.ErrNotFound)
	n, err = s.CountCharts(ctx, a.ID)
	must(t, "count charts", err)
	if n != 1 {
		t.Fatalf("CountCharts after delete = %d, want 1", n)
	}
}

func testChartScoping(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	c := newChart(t, s, a.ID, "mine")

	_, err := s.GetChart(ctx, b.ID, c.ID)
	wantErr(t, "get another account's chart", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "stolen", Type: "bar", Spec: []byte(`{}`)}, nil)
	wantErr(t, "update another account's chart", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "stolen", Type: "bar", Spec: []byte(`{}`)}, &c.UpdatedAt)
	wantErr(t, "update another account's chart with its token", err, store.ErrNotFound)
	wantErr(t, "delete another account's chart", s.DeleteChart(ctx, b.ID, c.ID), store.ErrNotFound)
	_, err = s.CreateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "same id", Type: "bar", Spec: []byte(`{}`)}, 0)
	wantErr(t, "create with another account's chart id", err, store.ErrConflict)

	list, next, err := s.ListCharts(ctx, b.ID, 10, "")
	must(t, "list charts", err)
	if len(list) != 0 || next != "" {
		t.Fatalf("account b lists %d charts (next %q), want none", len(list), next)
	}
	n, err := s.CountCharts(ctx, b.ID)
	must(t, "count charts", err)
	if n != 0 {
		t.Fatalf("account b counts %d charts", n)
	}
	got, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get own chart", err)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("chart changed by another account's calls: %+v, want %+v", got, c)
	}
}

func testChartMicroseconds(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	c := newChart(t, s, a.ID, "micro")
	for _, ts := range []time.Time{c.CreatedAt, c.UpdatedAt} {
		normalised(t, "chart timestamp", ts)
	}
	// The API hands updated_at out as RFC 3339 text and takes it back as
	// expected_updated_at: that round trip must still match.
	token, err := time.Parse(time.RFC3339Nano, c.UpdatedAt.In(time.FixedZone("X", -7*3600)).Format(time.RFC3339Nano))
	must(t, "parse token", err)
	up, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "micro 2", Type: "bar", Spec: c.Spec}, &token)
	must(t, "update with token that went through text", err)
	normalised(t, "updated_at", up.UpdatedAt)
	got, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get chart", err)
	if got.UpdatedAt != up.UpdatedAt || got.CreatedAt != c.CreatedAt {
		t.Fatalf("timestamps changed on read: got %v/%v want %v/%v", got.CreatedAt, got.UpdatedAt, c.CreatedAt, up.UpdatedAt)
	}

	// A token with extra nanoseconds compares at microsecond precision.
	nanos := got.UpdatedAt.Add(999 * time.Nanosecond)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "micro 3", Type: "bar", Spec: c.Spec}, &nanos)
	must(t, "update with token carrying nanoseconds", err)

}

func testChartLimit(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	mk := func(acc string, limit int) error {
		_, err := s.CreateChart(ctx, store.Chart{AccountID: acc, Name: "c", Type: "bar", Spec: []byte(`{}`)}, limit)
		return err
	}
	var first store.Chart
	for i := range 3 {
		c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: fmt.Sprint(i), Type: "bar", Spec: []byte(`{}`)}, 3)
		must(t, fmt.Sprintf("create chart %d of 3", i+1), err)
		if i == 0 {
			first = c
		}
	}
	wantErr(t, "create fourth chart with limit 3", mk(a.ID, 3), store.ErrLimit)
	wantErr(t, "create with limit below count", mk(a.ID, 2), store.ErrLimit)
	must(t, "limit is per account", mk(b.ID, 3))
	must(t, "limit 0 means unlimited", mk(a.ID, 0))
	must(t, "higher limit", mk(a.ID, 5))
	n, err := s.CountCharts(ctx, a.ID)
	must(t, "count", err)
	if n != 5 {
		t.Fatalf("CountCharts = %d, want 5", n)
	}
	wantErr(t, "at limit 5", mk(a.ID, 5), store.ErrLimit)
	must(t, "delete", s.DeleteChart(ctx, a.ID, first.ID))
	must(t, "create after delete frees a slot", mk(a.ID, 5))
	wantErr(t, "unknown account with limit", mk(uuid.NewString(), 5), store.ErrNotFound)
}

func testChartLimitRace(t *testing.T, s store.Store) {
	// Several rounds, each on a fresh account: a missing lock shows up as
	// an overshoot only when two counts interleave, so give it chances.
	for round := range 10 {
		limitRaceRound(t, s, round)
	}
}

func limitRaceRound(t *testing.T, s store.Store, round int) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	const writers, limit = 20, 5
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			_, errs[i] = s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: fmt.Sprint(i), Type: "bar", Spec: []byte(`{}`)}, limit)
		})
	}
	close(start)
	wg.Wait()
	ok, limited := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrLimit):
			limited++
		default:
			t.Fatalf("round %d: concurrent create: unexpected error %v", round, err)
		}
	}
	if ok != limit || limited != writers-limit {
		t.Fatalf("round %d: %d concurrent creates with limit %d: %d succeeded, %d limited", round, writers, limit, ok, limited)
	}
	n, err := s.CountCharts(ctx, a.ID)
	must(t, "count", err)
	if n != limit {
		t.Fatalf("round %d: CountCharts = %d, want %d", round, n, limit)
	}
}

func testChartConflict(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	c := newChart(t, s, a.ID, "v1")
	stale := c.UpdatedAt

	v2, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "v2", Type: "bar", Spec: []byte(`{"v":2}`)}, &stale)
	must(t, "update with current token", err)

	tests := []struct {
		name  string
		token time.Time
	}{
		{"stale token", stale},
		{"future token", v2.UpdatedAt.Add(time.Second)},
		{"off by one microsecond", v2.UpdatedAt.Add(-time.Microsecond)},
		{"zero time", time.Time{}},
	}
	for _, tt := range tests {
		token := tt.token
		_, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "lost", Type: "pie", Spec: []byte(`{"lost":true}`)}, &token)
		wantErr(t, tt.name, err, store.ErrConflict)
	}
	got, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get chart", err)
	if !reflect.DeepEqual(got, v2) {
		t.Fatalf("conflicting updates wrote: %+v, want %+v", got, v2)
	}
	v3, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "v3", Type: "bar", Spec: []byte(`{"v":3}`)}, &got.UpdatedAt)
	must(t, "update with fresh token", err)
	if v3.Name != "v3" || !v3.UpdatedAt.After(v2.UpdatedAt) {
		t.Fatalf("v3 = %+v", v3)
	}
}

func testChartUpdateRace(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	c := newChart(t, s, a.ID, "race")
	token := c.UpdatedAt
	const writers = 50
	results := make([]store.Chart, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.UpdateChart(ctx, store.Chart{
				ID: c.ID, AccountID: a.ID, Name: fmt.Sprintf("writer %d", i), Type: "bar", Spec: []byte(fmt.Sprintf(`{"w":%d}`, i)),
			}, &token)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				t.Fatalf("writers %d and %d both won with the same token", winner, i)
			}
			winner = i
		case errors.Is(err, store.ErrConflict):
		default:
			t.Fatalf("writer %d: unexpected error %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no writer won")
	}
	got, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get chart", err)
	if !reflect.DeepEqual(got, results[winner]) || got.Name != fmt.Sprintf("writer %d", winner) {
		t.Fatalf("stored chart %+v is not the winner's %+v", got, results[winner])
	}
}

func testChartUpdatedAtMonotonic(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	c := newChart(t, s, a.ID, "tick")
	prev := c.UpdatedAt
	for i := range 50 {
		up, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "tick", Type: "bar", Spec: c.Spec}, nil)
		must(t, "update", err)
		if !up.UpdatedAt.After(prev) {
			t.Fatalf("update %d: updated_at %v did not move past %v", i, up.UpdatedAt, prev)
		}
		normalised(t, "updated_at", up.UpdatedAt)
		prev = up.UpdatedAt
	}
}

// listAll pages through an account's charts with the given page size.
func listAll(t testing.TB, s store.Store, accountID string, limit int) ([]store.Chart, int) {
	t.Helper()
	var all []store.Chart
	cursor, pages := "", 0
	for {
		page, next, err := s.ListCharts(context.Background(), accountID, limit, cursor)
		must(t, "list charts", err)
		pages++
		if len(page) > limit {
			t.Fatalf("page of %d charts exceeds limit %d", len(page), limit)
		}
		if next != "" && len(page) != limit {
			t.Fatalf("short page (%d of %d) with a next cursor", len(page), limit)
		}
		for _, c := range page {
			// Keyset pages continue strictly below the previous row, so the
			// whole listing is strictly ordered even while charts change.
			if len(all) > 0 && recentFirst(all[len(all)-1], c) >= 0 {
				t.Fatalf("listing out of order: %s (%v) then %s (%v)",
					all[len(all)-1].ID, all[len(all)-1].UpdatedAt, c.ID, c.UpdatedAt)
			}
			all = append(all, c)
		}
		if next == "" {
			return all, pages
		}
		if pages > 10000 {
			t.Fatalf("pagination does not end")
		}
		cursor = next
	}
}

// recentFirst reports whether a sorts before b in ListCharts' order.
func recentFirst(a, b store.Chart) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return bytes.Compare([]byte(b.ID), []byte(a.ID))
}

func testListCharts(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	var want []store.Chart
	for i := range 7 {
		want = append(want, newChart(t, s, a.ID, fmt.Sprintf("chart %d", i)))
	}
	newChart(t, s, b.ID, "other account")
	slices.SortFunc(want, recentFirst)

	tests := []struct {
		limit, pages int
	}{{1, 7}, {3, 3}, {7, 1}, {100, 1}}
	for _, tt := range tests {
		got, pages := listAll(t, s, a.ID, tt.limit)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("limit %d: listed %v, want %v", tt.limit, names(got), names(want))
		}
		if pages != tt.pages {
			t.Fatalf("limit %d: %d pages, want %d", tt.limit, pages, tt.pages)
		}
	}
	all, next, err := s.ListCharts(ctx, a.ID, 0, "")
	must(t, "list with default limit", err)
	if len(all) != 7 || next != "" {
		t.Fatalf("default limit listed %d charts, next %q", len(all), next)
	}

	// Editing the oldest chart moves it to the front.
	oldest := want[len(want)-1]
	up, err := s.UpdateChart(ctx, store.Chart{ID: oldest.ID, AccountID: a.ID, Name: "edited", Type: "bar", Spec: oldest.Spec}, nil)
	must(t, "update", err)
	first, _, err := s.ListCharts(ctx, a.ID, 1, "")
	must(t, "list", err)
	if len(first) != 1 || !reflect.DeepEqual(first[0], up) {
		t.Fatalf("after edit first chart is %v, want %v", names(first), up.Name)
	}

	empty, next, err := s.ListCharts(ctx, uuid.NewString(), 5, "")
	must(t, "list unknown account", err)
	if len(empty) != 0 || next != "" {
		t.Fatalf("unknown account lists %d charts", len(empty))
	}
}

func names(cs []store.Chart) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func testListChartsBadCursor(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	newChart(t, s, a.ID, "one")
	for _, cursor := range []string{"not a cursor", "@@@", "MTIz", "eA"} {
		_, _, err := s.ListCharts(ctx, a.ID, 10, cursor)
		wantErr(t, fmt.Sprintf("cursor %q", cursor), err, store.ErrBadCursor)
	}
}

func testListChartsConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	const initial = 60
	var charts []store.Chart
	for i := range initial {
		charts = append(charts, newChart(t, s, a.ID, fmt.Sprintf("c%02d", i)))
	}
	// The first half is never touched while we page; the second half is
	// edited and new charts are inserted concurrently.
	stable, edited := charts[:initial/2], charts[initial/2:]

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var updates, creates atomic.Int64
	errs := make(chan error, 2)
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			c := edited[i%len(edited)]
			_, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: c.Name + "'", Type: "bar", Spec: c.Spec}, nil)
			if err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("concurrent update: %w", err)
				return
			}
			updates.Add(1)
		}
	})
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			_, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: fmt.Sprintf("new%d", i), Type: "bar", Spec: []byte(`{}`)}, 0)
			if err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("concurrent create: %w", err)
				return
			}
			creates.Add(1)
		}
	})

	// Page until the writers have demonstrably run alongside the listing.
	deadline := time.Now().Add(20 * time.Second)
	for round := 0; round < 5 || (updates.Load() < 100 || creates.Load() < 30) && time.Now().Before(deadline); round++ {
		got, _ := listAll(t, s, a.ID, 7)
		seen := make(map[string]bool, len(got))
		for _, c := range got {
			if seen[c.ID] {
				t.Fatalf("round %d: chart %s (%s) listed twice", round, c.ID, c.Name)
			}
			seen[c.ID] = true
			if c.AccountID != a.ID {
				t.Fatalf("round %d: foreign chart %+v listed", round, c)
			}
		}
		for _, c := range stable {
			if !seen[c.ID] {
				t.Fatalf("round %d: untouched chart %s (%s) missing from the listing", round, c.ID, c.Name)
			}
		}
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if updates.Load() == 0 || creates.Load() == 0 {
		t.Fatalf("writers did not run during the listing (%d updates, %d creates)", updates.Load(), creates.Load())
	}
	t.Logf("listed while %d updates and %d creates ran", updates.Load(), creates.Load())
}

func testChartData(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)

	bare := newChart(t, s, a.ID, "no data")
	if bare.Data != nil {
		t.Fatalf("create without data answered data %+v", bare.Data)
	}
	got, err := s.GetChartWithData(ctx, a.ID, bare.ID)
	must(t, "get chart without data", err)
	if got.Data != nil {
		t.Fatalf("a chart created without data reads back data %+v", got.Data)
	}

	data := &store.Dataset{Format: "csv", Raw: []byte("x,y\n1,2\n")}
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "with data", Type: "bar", Spec: []byte(`{"v":1}`), Data: data}, 0)
	must(t, "create chart with data", err)
	if c.Data == nil || c.Data.Format != "csv" || !bytes.Equal(c.Data.Raw, data.Raw) {
		t.Fatalf("create answered data %+v", c.Data)
	}
	got, err = s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get chart with data", err)
	if got.Data == nil || got.Data.Format != "csv" || !bytes.Equal(got.Data.Raw, data.Raw) || string(got.Spec) != `{"v":1}` || got.UpdatedAt != c.UpdatedAt {
		t.Fatalf("read back %+v with data %+v", got, got.Data)
	}
	plain, err := s.GetChart(ctx, a.ID, c.ID)
	must(t, "get chart", err)
	if plain.Data != nil {
		t.Fatal("GetChart loaded the data")
	}
	listed, _, err := s.ListCharts(ctx, a.ID, 10, "")
	must(t, "list charts", err)
	for _, l := range listed {
		if l.Data != nil {
			t.Fatalf("ListCharts loaded the data of %s", l.ID)
		}
	}

	// Replacing spec and data together; the data round-trips byte for byte.
	binary := &store.Dataset{Format: "tsv", Raw: bytes.Repeat([]byte{0, 1, 2, 255}, 4096)}
	up, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "with data", Type: "line", Spec: []byte(`{"v":2}`), Data: binary}, &c.UpdatedAt)
	must(t, "update spec and data", err)
	if up.Data == nil || !bytes.Equal(up.Data.Raw, binary.Raw) {
		t.Fatalf("update answered data %+v, want what it wrote", up.Data)
	}
	got, err = s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get after update", err)
	if got.Data == nil || got.Data.Format != "tsv" || !bytes.Equal(got.Data.Raw, binary.Raw) || string(got.Spec) != `{"v":2}` || got.UpdatedAt != up.UpdatedAt {
		t.Fatalf("after update: spec %s, data %+v", got.Spec, got.Data)
	}

	// A spec-only edit keeps the data.
	up2, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "renamed", Type: "line", Spec: []byte(`{"v":3}`)}, nil)
	must(t, "update spec only", err)
	if up2.Data != nil {
		t.Fatalf("a spec-only update answered data %+v", up2.Data)
	}
	got, err = s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get after spec edit", err)
	if got.Data == nil || !bytes.Equal(got.Data.Raw, binary.Raw) || got.Name != "renamed" || got.UpdatedAt != up2.UpdatedAt {
		t.Fatalf("a spec-only edit changed the data: %+v", got.Data)
	}

	// A stale token changes neither spec nor data.
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "stale", Type: "pie", Spec: []byte(`{"v":4}`), Data: data}, &c.UpdatedAt)
	wantErr(t, "update with a stale token", err, store.ErrConflict)
	got, err = s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get after conflict", err)
	if string(got.Spec) != `{"v":3}` || got.Data == nil || !bytes.Equal(got.Data.Raw, binary.Raw) || got.UpdatedAt != up2.UpdatedAt {
		t.Fatalf("a refused update changed the chart: spec %s", got.Spec)
	}

	// Without a token the write always lands, spec and data together.
	blind, err := s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "blind", Type: "bar", Spec: []byte(`{"v":5}`), Data: data}, nil)
	must(t, "update without a token", err)
	got, err = s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get after blind update", err)
	if string(got.Spec) != `{"v":5}` || got.Data == nil || got.Data.Format != "csv" || !bytes.Equal(got.Data.Raw, data.Raw) || got.UpdatedAt != blind.UpdatedAt {
		t.Fatalf("after an update without a token: spec %s, data %+v", got.Spec, got.Data)
	}

	// Deleting the chart deletes its data; a chart later made with the same
	// id starts without any.
	must(t, "delete chart", s.DeleteChart(ctx, a.ID, c.ID))
	_, err = s.GetChartWithData(ctx, a.ID, c.ID)
	wantErr(t, "get deleted chart", err, store.ErrNotFound)
	again, err := s.CreateChart(ctx, store.Chart{ID: c.ID, AccountID: a.ID, Name: "again", Type: "bar", Spec: []byte(`{}`)}, 0)
	must(t, "create with the deleted id", err)
	got, err = s.GetChartWithData(ctx, a.ID, again.ID)
	must(t, "get recreated chart", err)
	if got.Data != nil {
		t.Fatalf("a recreated chart inherited data %q", got.Data.Raw)
	}
}

func testChartDataScoping(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	mine := &store.Dataset{Format: "csv", Raw: []byte("mine")}
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "a's chart", Type: "bar", Spec: []byte(`{}`), Data: mine}, 0)
	must(t, "create", err)
	theirs := &store.Dataset{Format: "csv", Raw: []byte("theirs")}

	_, err = s.GetChartWithData(ctx, b.ID, c.ID)
	wantErr(t, "read another account's chart with data", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "x", Type: "bar", Spec: []byte(`{}`), Data: theirs}, nil)
	wantErr(t, "update another account's chart and data", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "x", Type: "bar", Spec: []byte(`{}`), Data: theirs}, &c.UpdatedAt)
	wantErr(t, "update another account's chart with its token", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "x", Type: "bar", Spec: []byte(`{}`)}, nil)
	wantErr(t, "update another account's spec", err, store.ErrNotFound)
	_, err = s.UpdateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "x", Type: "bar", Spec: []byte(`{}`)}, &c.UpdatedAt)
	wantErr(t, "update another account's spec with its token", err, store.ErrNotFound)
	wantErr(t, "delete another account's chart", s.DeleteChart(ctx, b.ID, c.ID), store.ErrNotFound)
	_, err = s.CreateChart(ctx, store.Chart{ID: c.ID, AccountID: b.ID, Name: "x", Type: "bar", Spec: []byte(`{}`), Data: theirs}, 0)
	wantErr(t, "create over another account's chart id", err, store.ErrConflict)

	got, err := s.GetChartWithData(ctx, a.ID, c.ID)
	must(t, "get own chart", err)
	if got.Data == nil || !bytes.Equal(got.Data.Raw, mine.Raw) || got.Name != "a's chart" || got.UpdatedAt != c.UpdatedAt {
		t.Fatalf("another account's calls changed the chart: %+v", got.Data)
	}
}

// writeMark is what one writer of the data races writes: a spec and data
// both carrying its mark, so a mixed state is visible.
type writeMark struct {
	spec, data string
}

// agree checks that c's spec was written for c's data: every spec the
// races write names, in its "data" field, the data written (or read) with it.
func agree(c store.Chart) error {
	var spec struct {
		Data *string `json:"data"`
	}
	if err := json.Unmarshal(c.Spec, &spec); err != nil {
		return fmt.Errorf("decode spec %s: %w", c.Spec, err)
	}
	switch {
	case c.Data == nil:
		return fmt.Errorf("spec %s read without data", c.Spec)
	case spec.Data == nil || *spec.Data != string(c.Data.Raw):
		return fmt.Errorf("mixed state: spec %s with data %q", c.Spec, c.Data.Raw)
	}
	return nil
}

// race is one chart raced by concurrent writers, round after round.
type race struct {
	s       store.Store
	c       store.Chart
	writers int
	// read is the per-round barrier between every writer's first read and
	// its first write: all first writes then hold the same token, so the
	// writers collide every round without relying on timing.
	read sync.WaitGroup
	// conflicts counts ErrConflict retries; firstWins counts the round's
	// first compare-and-set attempts that succeeded.
	conflicts, firstWins atomic.Int64
	// oneWin counts rounds where exactly one first attempt won.
	oneWin int
}

// raceRounds runs rounds of concurrent writers on one chart, with a reader
// polling GetChartWithData alongside. write does one writer's whole call
// (for compare-and-set writers: read, then write, retrying on conflict as
// the API does) and answers the chart it saved; it must pass the r.read
// barrier exactly once, before its first write. Every read must see a spec and data that agree; after each round
// the stored spec and data must come from the same successful call, the
// one with the newest updated_at.
func raceRounds(t *testing.T, s store.Store, writers, rounds int, write func(r *race, round, w int) (store.Chart, writeMark, error)) *race {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "race", Type: "bar", Spec: []byte(`{"mark":"start","data":"start"}`),
		Data: &store.Dataset{Format: "csv", Raw: []byte("start")}}, 0)
	must(t, "create", err)
	r := &race{s: s, c: c, writers: writers}
	reads := 0
	for round := range rounds {
		saved := make([]store.Chart, writers)
		marks := make([]writeMark, writers)
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start, done := make(chan struct{}), make(chan struct{})
		r.read.Add(writers)
		for w := range writers {
			wg.Go(func() {
				<-start
				saved[w], marks[w], errs[w] = write(r, round, w)
			})
		}
		// The reader stops once the writers are done; it has no sleeps, so
		// its reads land between and during the writers' transactions.
		var readErr error
		var reader sync.WaitGroup
		reader.Go(func() {
			<-start
			var last time.Time
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := s.GetChartWithData(ctx, a.ID, c.ID)
				if err == nil {
					err = agree(got)
				}
				if err == nil && got.UpdatedAt.Before(last) {
					err = fmt.Errorf("updated_at went back from %v to %v", last, got.UpdatedAt)
				}
				if err != nil {
					readErr = fmt.Errorf("concurrent read: %w", err)
					return
				}
				last = got.UpdatedAt
				reads++
			}
		})
		close(start)
		wg.Wait()
		close(done)
		reader.Wait()
		if readErr != nil {
			t.Fatalf("round %d: %v", round, readErr)
		}
		switch wins := r.firstWins.Swap(0); {
		case wins > 1:
			t.Fatalf("round %d: %d writers won with the same token, want one", round, wins)
		case wins == 1:
			r.oneWin++
		}
		newest := -1
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d writer %d: %v", round, w, err)
			}
			if newest < 0 || saved[w].UpdatedAt.After(saved[newest].UpdatedAt) {
				newest = w
			}
		}
		got, err := s.GetChartWithData(ctx, a.ID, c.ID)
		must(t, "read after the round", err)
		if err := agree(got); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		want := marks[newest]
		if string(got.Spec) != want.spec || string(got.Data.Raw) != want.data || got.UpdatedAt != saved[newest].UpdatedAt {
			t.Fatalf("round %d: stored spec %s, data %q at %v; the newest successful write (%d at %v) was %s, %q",
				round, got.Spec, got.Data.Raw, got.UpdatedAt, newest, saved[newest].UpdatedAt, want.spec, want.data)
		}
	}
	t.Logf("%d rounds of %d writers: %d conflicts retried, %d concurrent reads agreed", rounds, writers, r.conflicts.Load(), reads)
	return r
}

// cas is one compare-and-set writer: it reads the chart, lets edit decide
// what to write from what it read, and saves it with the read updated_at
// as the token, re-reading on conflict. Every read must agree.
func (r *race) cas(edit func(read store.Chart) (store.Chart, writeMark)) (store.Chart, writeMark, error) {
	ctx := context.Background()
	for first := true; ; first = false {
		read, err := r.s.GetChartWithData(ctx, r.c.AccountID, r.c.ID)
		if err == nil {
			err = agree(read)
		}
		if first {
			r.read.Done()
			r.read.Wait()
		}
		if err != nil {
			return store.Chart{}, writeMark{}, err
		}
		next, mark := edit(read)
		token := read.UpdatedAt
		out, err := r.s.UpdateChart(ctx, next, &token)
		if errors.Is(err, store.ErrConflict) {
			r.conflicts.Add(1)
			continue
		}
		if err != nil {
			return store.Chart{}, writeMark{}, err
		}
		if first {
			r.firstWins.Add(1)
		}
		if (next.Data == nil) != (out.Data == nil) {
			return store.Chart{}, writeMark{}, fmt.Errorf("UpdateChart answered data %v for a write of %v", out.Data, next.Data)
		}
		return out, mark, nil
	}
}

// checkCAS fails t unless, every round, exactly one of the writers holding
// the same token won its first attempt and the others retried.
func (r *race) checkCAS(t *testing.T, rounds int) {
	t.Helper()
	if r.oneWin != rounds {
		t.Fatalf("a first attempt with the shared token won in %d of %d rounds, want every round", r.oneWin, rounds)
	}
	if n := r.conflicts.Load(); n < int64(rounds*(r.writers-1)) {
		t.Fatalf("%d conflicts in %d rounds of %d writers, want at least %d", n, rounds, r.writers, rounds*(r.writers-1))
	}
}

// dataWrite is a set_data: new data and a spec made for it.
func dataWrite(round, w int) func(read store.Chart) (store.Chart, writeMark) {
	return func(read store.Chart) (store.Chart, writeMark) {
		data := fmt.Sprintf("label,value_%d_%d\na,%d", round, w, w)
		spec := fmt.Sprintf(`{"mark":"set %d/%d","data":%q}`, round, w, data)
		read.Spec, read.Data = []byte(spec), &store.Dataset{Format: "csv", Raw: []byte(data)}
		return read, writeMark{spec: spec, data: data}
	}
}

// specWrite is an apply_ops: a spec edit made for the data it read, which
// it leaves in place (Data nil).
func specWrite(round, w int) func(read store.Chart) (store.Chart, writeMark) {
	return func(read store.Chart) (store.Chart, writeMark) {
		data := string(read.Data.Raw)
		spec := fmt.Sprintf(`{"mark":"ops %d/%d","data":%q}`, round, w, data)
		read.Spec, read.Data = []byte(spec), nil
		return read, writeMark{spec: spec, data: data}
	}
}

// The data races: raceWriters writers on one chart, raceRoundCount rounds.
const raceWriters, raceRoundCount = 6, 20

func testChartDataRace(t *testing.T, s store.Store) {
	r := raceRounds(t, s, raceWriters, raceRoundCount, func(r *race, round, w int) (store.Chart, writeMark, error) {
		return r.cas(dataWrite(round, w))
	})
	r.checkCAS(t, raceRoundCount)
}

// testChartDataRaceSpecEdits: half the writers edit only the spec, made
// for the data they read; the data under it must not change meanwhile.
func testChartDataRaceSpecEdits(t *testing.T, s store.Store) {
	r := raceRounds(t, s, raceWriters, raceRoundCount, func(r *race, round, w int) (store.Chart, writeMark, error) {
		if w%2 == 0 {
			return r.cas(specWrite(round, w))
		}
		return r.cas(dataWrite(round, w))
	})
	r.checkCAS(t, raceRoundCount)
}

// testChartDataRaceBlind: writes without a token still land whole.
func testChartDataRaceBlind(t *testing.T, s store.Store) {
	raceRounds(t, s, raceWriters, raceRoundCount, func(r *race, round, w int) (store.Chart, writeMark, error) {
		next, mark := dataWrite(round, w)(r.c)
		r.read.Done()
		r.read.Wait()
		out, err := s.UpdateChart(context.Background(), next, nil)
		if err == nil && out.Data == nil {
			err = fmt.Errorf("UpdateChart answered no data for a write of %q", next.Data.Raw)
		}
		return out, mark, err
	})
}

func testLinkDesigns(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, err := s.CreateAccount(ctx, "pro")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateAccount(ctx, "pro")
	if err != nil {
		t.Fatal(err)
	}
	chart := uuid.NewString()
	if err := s.PutLinkDesign(ctx, a.ID, store.DataLink{ID: "link-1", ChartID: chart, Design: []byte(`{"spec":1}`)}, store.LinkLimits{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetLinkDesign(ctx, a.ID, "link-1")
	if err != nil || string(got) != `{"spec":1}` {
		t.Fatalf("get: %q %v", got, err)
	}
	// The first design stored under an id stays.
	if err := s.PutLinkDesign(ctx, a.ID, store.DataLink{ID: "link-1", ChartID: chart, Design: []byte(`{"spec":2}`)}, store.LinkLimits{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetLinkDesign(ctx, a.ID, "link-1"); string(got) != `{"spec":1}` {
		t.Fatalf("a second put replaced the design: %q", got)
	}
	for _, tc := range []struct{ account, id string }{{b.ID, "link-1"}, {a.ID, "link-2"}} {
		if _, err := s.GetLinkDesign(ctx, tc.account, tc.id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get %s of %s: %v, want ErrNotFound", tc.id, tc.account, err)
		}
	}
	if err := s.PutLinkDesign(ctx, uuid.NewString(), store.DataLink{ID: "link-3", ChartID: chart, Design: []byte("x")}, store.LinkLimits{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("put for a missing account: %v, want ErrNotFound", err)
	}

	// One design, many links: kept once. The limit counts designs, not
	// links, and refuses only a design the account does not hold yet.
	for i := range 5 {
		if err := s.PutLinkDesign(ctx, b.ID, store.DataLink{ID: fmt.Sprintf("same-%d", i), ChartID: chart, Design: []byte(`{"spec":"same"}`)}, store.LinkLimits{Designs: 2}); err != nil {
			t.Fatalf("link %d of one design: %v", i, err)
		}
	}
	if err := s.PutLinkDesign(ctx, b.ID, store.DataLink{ID: "other", ChartID: chart, Design: []byte(`{"spec":"other"}`)}, store.LinkLimits{Designs: 2}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.CountLinkDesigns(ctx, b.ID); err != nil || n != 2 {
		t.Fatalf("designs of 6 links of 2 designs: %d, %v", n, err)
	}
	if err := s.PutLinkDesign(ctx, b.ID, store.DataLink{ID: "third", ChartID: chart, Design: []byte(`{"spec":"third"}`)}, store.LinkLimits{Designs: 2}); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a third design over a limit of 2: %v, want ErrLimit", err)
	}
	if _, err := s.GetLinkDesign(ctx, b.ID, "third"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused link was stored: %v", err)
	}
	if err := s.PutLinkDesign(ctx, b.ID, store.DataLink{ID: "same-again", ChartID: chart, Design: []byte(`{"spec":"same"}`)}, store.LinkLimits{Designs: 2}); err != nil {
		t.Fatalf("a held design at the limit: %v", err)
	}
	for _, id := range []string{"same-0", "same-4", "same-again"} {
		if got, err := s.GetLinkDesign(ctx, b.ID, id); err != nil || string(got) != `{"spec":"same"}` {
			t.Fatalf("get %s: %q %v", id, got, err)
		}
	}
	if n, _ := s.CountLinkDesigns(ctx, a.ID); n != 1 {
		t.Fatalf("account A's designs: %d, want 1", n)
	}
}

// testDataLinkLimit: an account's data links are capped (a link stored
// again is free), and revoking or rotating a signing key deletes the links
// it signed and the designs no link keeps, so the room comes back. Links
// stored before kids were kept go once no live key is left; expired links
// give their room to a link at the limit.
func testDataLinkLimit(t *testing.T, s store.Store) {
	ctx := context.Background()
	c := newAccount(t, s, store.PlanFree)
	d := newAccount(t, s, store.PlanFree)
	for _, k := range []struct{ account, kid string }{{c.ID, "k1-" + c.ID}, {c.ID, "k2-" + c.ID}, {d.ID, "k-" + d.ID}} {
		if _, err := s.CreateSigningKey(ctx, k.account, k.kid, []byte("secret")); err != nil {
			t.Fatal(err)
		}
	}
	chart := uuid.NewString()
	limits := store.LinkLimits{Designs: 10, Links: 4}
	put := func(acct, id, kid, design string) error {
		return s.PutLinkDesign(ctx, acct, store.DataLink{ID: id, ChartID: chart, KID: kid, Design: []byte(design)}, limits)
	}
	counts := func(step string, acct string, links, designs int) {
		t.Helper()
		nl, err := s.CountDataLinks(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		nd, err := s.CountLinkDesigns(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		if nl != links || nd != designs {
			t.Fatalf("%s: %d links and %d designs, want %d and %d", step, nl, nd, links, designs)
		}
	}
	k1, k2 := "k1-"+c.ID, "k2-"+c.ID
	for _, l := range []struct{ id, kid, design string }{
		{"c1", k1, "A"}, {"c2", k2, "A"}, {"c3", k1, "B"}, {"c4", "", "C"},
	} {
		if err := put(c.ID, l.id, l.kid, l.design); err != nil {
			t.Fatalf("link %s: %v", l.id, err)
		}
	}
	if err := put(d.ID, "d1", "k-"+d.ID, "A"); err != nil {
		t.Fatal(err)
	}
	counts("four links", c.ID, 4, 3)

	err := put(c.ID, "c5", k2, "A")
	if !errors.Is(err, store.ErrLinkLimit) || !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a fifth link over a limit of 4: %v, want ErrLinkLimit", err)
	}
	if _, err := s.GetLinkDesign(ctx, c.ID, "c5"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused link was stored: %v", err)
	}
	if err := put(c.ID, "c1", k1, "A"); err != nil {
		t.Fatalf("a link stored again at the limit: %v", err)
	}

	// Revoking k1 stops c1 and c3: their rows go, and design B with them;
	// A is still kept by c2, and the kid-less c4 stays while k2 lives.
	if err := s.RevokeSigningKey(ctx, c.ID, k1); err != nil {
		t.Fatal(err)
	}
	counts("k1 revoked", c.ID, 2, 2)
	for id, want := range map[string]error{"c1": store.ErrNotFound, "c3": store.ErrNotFound, "c2": nil, "c4": nil} {
		if _, err := s.GetLinkDesign(ctx, c.ID, id); !errors.Is(err, want) {
			t.Errorf("link %s after k1 revoked: %v, want %v", id, err, want)
		}
	}
	if err := put(c.ID, "c5", k2, "D"); err != nil {
		t.Fatalf("a link in the room the revocation freed: %v", err)
	}
	counts("c5 stored", c.ID, 3, 3)

	// Rotating revokes every live key: nothing the account stored stays.
	if _, _, err := s.RotateSigningKey(ctx, c.ID, "k3-"+c.ID, []byte("secret")); err != nil {
		t.Fatal(err)
	}
	counts("rotated", c.ID, 0, 0)
	counts("another account", d.ID, 1, 1)
	if got, err := s.GetLinkDesign(ctx, d.ID, "d1"); err != nil || string(got) != "A" {
		t.Fatalf("another account's link after a rotation: %q %v", got, err)
	}

	// At the limit, the links past their expiry give their room (and
	// their design, when no other link keeps it); those still running
	// and those without expiry stay.
	k3, now := "k3-"+c.ID, time.Now()
	for _, l := range []struct {
		id, design string
		expires    time.Time
	}{
		{"e1", "E", now.Add(-time.Minute)}, {"e2", "E", now.Add(-time.Second)},
		{"running", "A", now.Add(time.Hour)}, {"forever", "A", time.Time{}},
	} {
		if err := s.PutLinkDesign(ctx, c.ID, store.DataLink{ID: l.id, ChartID: chart, KID: k3, Design: []byte(l.design), Expires: l.expires}, limits); err != nil {
			t.Fatalf("link %s: %v", l.id, err)
		}
	}
	counts("four links, two expired", c.ID, 4, 2)
	if err := put(c.ID, "after-expiry", k3, "A"); err != nil {
		t.Fatalf("a link at the limit with two expired: %v", err)
	}
	counts("expired links dropped", c.ID, 3, 1)
	for id, want := range map[string]error{"e1": store.ErrNotFound, "e2": store.ErrNotFound, "running": nil, "forever": nil, "after-expiry": nil} {
		if _, err := s.GetLinkDesign(ctx, c.ID, id); !errors.Is(err, want) {
			t.Errorf("link %s after the expired ones were dropped: %v, want %v", id, err, want)
		}
	}
}

// testFindCharts: the chart list's search and orders are the database's:
// name or drawn title, any ASCII case, LIKE's own characters taken
// literally, one account only, paged by offset.
func testFindCharts(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	var made []store.Chart
	for _, name := range []string{"Apples 2024", "pears", "Budget_Q1", "100% share", "untitled"} {
		made = append(made, newChart(t, s, a.ID, name))
	}
	titled, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "no name", Type: "bar",
		Spec: []byte(`{"type":"bar","style":{"title":{"text":"Rainfall in Bergen"}}}`)}, 0)
	must(t, "create titled chart", err)
	made = append(made, titled)
	newChart(t, s, b.ID, "apples of another account")
	newest := slices.Clone(made)
	slices.SortFunc(newest, recentFirst)

	find := func(q store.ChartSearch) ([]string, bool) {
		t.Helper()
		got, more, err := s.FindCharts(ctx, a.ID, q)
		must(t, fmt.Sprintf("find %+v", q), err)
		return names(got), more
	}
	if got, more := find(store.ChartSearch{Limit: 4}); !reflect.DeepEqual(got, names(newest[:4])) || !more {
		t.Fatalf("first page: %v (more %v), want %v", got, more, names(newest[:4]))
	}
	if got, more := find(store.ChartSearch{Offset: 4, Limit: 4}); !reflect.DeepEqual(got, names(newest[4:])) || more {
		t.Fatalf("second page: %v (more %v), want %v", got, more, names(newest[4:]))
	}
	oldest := slices.Clone(newest)
	slices.Reverse(oldest)
	if got, _ := find(store.ChartSearch{Oldest: true, Limit: 10}); !reflect.DeepEqual(got, names(oldest)) {
		t.Fatalf("oldest first: %v, want %v", got, names(oldest))
	}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"APPLES", []string{"Apples 2024"}},
		{"_", []string{"Budget_Q1"}},
		{"%", []string{"100% share"}},
		{"bergen", []string{"no name"}},
		{"nothing like it", []string{}},
	} {
		got, more := find(store.ChartSearch{Text: tt.text, Limit: 10})
		if !reflect.DeepEqual(got, tt.want) || more {
			t.Errorf("search %q: %v (more %v), want %v", tt.text, got, more, tt.want)
		}
	}
}

// testRotateSigningKey: a rotation adds the new key and revokes every other
// live one at once; one that fails (a kid taken) changes nothing; two at
// once leave one live key.
func testRotateSigningKey(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	k1, err := s.CreateSigningKey(ctx, a.ID, uuid.NewString(), []byte("one"))
	must(t, "create signing key", err)
	k2, err := s.CreateSigningKey(ctx, a.ID, uuid.NewString(), []byte("two"))
	must(t, "create signing key", err)
	must(t, "revoke", s.RevokeSigningKey(ctx, a.ID, k1.ID))
	before, err := s.GetSigningKey(ctx, a.ID, k1.ID)
	must(t, "get", err)

	nk, revoked, err := s.RotateSigningKey(ctx, a.ID, uuid.NewString(), []byte("three"))
	must(t, "rotate", err)
	if len(revoked) != 1 || revoked[0] != k2.ID || string(nk.Secret) != "three" || nk.AccountID != a.ID {
		t.Fatalf("rotate: new %+v revoked %v, want k2 revoked", nk, revoked)
	}
	if _, err := s.LookupSigningKey(ctx, nk.ID); err != nil {
		t.Fatalf("the new key is not live: %v", err)
	}
	_, err = s.LookupSigningKey(ctx, k2.ID)
	wantErr(t, "the rotated-away key", err, store.ErrNotFound)
	if after, _ := s.GetSigningKey(ctx, a.ID, k1.ID); !reflect.DeepEqual(after.RevokedAt, before.RevokedAt) {
		t.Fatalf("an already revoked key's revoked_at moved: %v to %v", before.RevokedAt, after.RevokedAt)
	}

	// A kid already taken: the rotation fails whole, the live key stays.
	_, _, err = s.RotateSigningKey(ctx, a.ID, k1.ID, []byte("four"))
	wantErr(t, "rotate to a taken kid", err, store.ErrConflict)
	if _, err := s.LookupSigningKey(ctx, nk.ID); err != nil {
		t.Fatalf("a failed rotation revoked the live key: %v", err)
	}
	_, _, err = s.RotateSigningKey(ctx, uuid.NewString(), uuid.NewString(), []byte("x"))
	wantErr(t, "rotate an unknown account", err, store.ErrNotFound)

	// Revoke only (no new key).
	_, revoked, err = s.RotateSigningKey(ctx, a.ID, "", nil)
	must(t, "revoke all", err)
	if len(revoked) != 1 || revoked[0] != nk.ID {
		t.Fatalf("revoke all: %v", revoked)
	}

	// Rotations at once: each revokes what the others made, so one key
	// is live at the end.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.RotateSigningKey(ctx, a.ID, uuid.NewString(), []byte("race"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, "concurrent rotate", err)
	}
	keys, err := s.ListSigningKeys(ctx, a.ID)
	must(t, "list", err)
	live := 0
	for _, k := range keys {
		if k.RevokedAt == nil {
			live++
		}
	}
	if live != 1 {
		t.Fatalf("%d live signing keys after concurrent rotations, want 1", live)
	}
}

// testResealSigningKeys: every key, revoked ones included, passes through
// the function; what it changes is stored; an error anywhere stores
// nothing.
func testResealSigningKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanPro)
	b := newAccount(t, s, store.PlanFree)
	ka, err := s.CreateSigningKey(ctx, a.ID, uuid.NewString(), []byte("a-old"))
	must(t, "create", err)
	kb, err := s.CreateSigningKey(ctx, b.ID, uuid.NewString(), []byte("b-old"))
	must(t, "create", err)
	must(t, "revoke", s.RevokeSigningKey(ctx, b.ID, kb.ID))
	mine := map[string]bool{ka.ID: true, kb.ID: true}

	// Other tests' keys may share the store: this test changes only its own.
	boom := errors.New("boom")
	_, _, err = s.ResealSigningKeys(ctx, func(k store.SigningKey) ([]byte, bool, error) {
		switch {
		case k.ID == kb.ID:
			return nil, false, boom
		case mine[k.ID]:
			return []byte("new"), true, nil
		}
		return nil, false, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("reseal with a failing key: %v", err)
	}
	if got, _ := s.GetSigningKey(ctx, a.ID, ka.ID); string(got.Secret) != "a-old" {
		t.Fatalf("a failed reseal stored %q", got.Secret)
	}

	seenMine := 0
	seen, changed, err := s.ResealSigningKeys(ctx, func(k store.SigningKey) ([]byte, bool, error) {
		if !mine[k.ID] {
			return nil, false, nil
		}
		seenMine++
		return append([]byte("new:"), k.Secret...), true, nil
	})
	must(t, "reseal", err)
	if seenMine != 2 || changed != 2 || seen < 2 {
		t.Fatalf("reseal saw %d of mine (%d in all), changed %d", seenMine, seen, changed)
	}
	for _, k := range []store.SigningKey{ka, kb} {
		got, err := s.GetSigningKey(ctx, k.AccountID, k.ID)
		must(t, "get", err)
		if string(got.Secret) != "new:"+string(k.Secret) || !reflect.DeepEqual(got.RevokedAt != nil, k.ID == kb.ID) {
			t.Fatalf("key %s after reseal: %+v", k.ID, got)
		}
	}
}
