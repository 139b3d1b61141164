package signing

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
)

func newBox(t testing.TB) *secrets.Box {
	t.Helper()
	b, err := secrets.New(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openSQLite(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "chartd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSealOpen(t *testing.T) {
	box, other := newBox(t), newBox(t)
	secret := NewSecret()
	acct, kid := uuid.NewString(), uuid.NewString()
	sealed, err := Seal(box, acct, kid, secret)
	if err != nil {
		t.Fatal(err)
	}
	if len(sealed) == SecretLen || IsLegacy(sealed) {
		t.Fatal("a sealed secret looks raw")
	}
	row := store.SigningKey{ID: kid, AccountID: acct, Secret: sealed}
	flipped := bytes.Clone(sealed)
	flipped[20] ^= 1
	tests := []struct {
		name       string
		box        *secrets.Box
		k          store.SigningKey
		want       []byte
		wantLegacy bool
	}{
		{"own row", box, row, secret, false},
		{"copied to another kid", box, store.SigningKey{ID: uuid.NewString(), AccountID: acct, Secret: sealed}, nil, false},
		{"copied to another account", box, store.SigningKey{ID: kid, AccountID: uuid.NewString(), Secret: sealed}, nil, false},
		{"account and kid swapped", box, store.SigningKey{ID: acct, AccountID: kid, Secret: sealed}, nil, false},
		{"other server key", other, row, nil, false},
		{"tampered", box, store.SigningKey{ID: kid, AccountID: acct, Secret: flipped}, nil, false},
		{"raw secret (legacy)", box, store.SigningKey{ID: kid, AccountID: acct, Secret: secret}, secret, true},
		{"raw secret starting with the version byte", box, store.SigningKey{ID: kid, AccountID: acct, Secret: append([]byte{secrets.Version1}, secret[1:]...)}, append([]byte{secrets.Version1}, secret[1:]...), true},
		{"neither raw nor sealed length", box, store.SigningKey{ID: kid, AccountID: acct, Secret: []byte("short")}, nil, false},
		{"empty", box, store.SigningKey{ID: kid, AccountID: acct}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, legacy, err := Open(tt.box, tt.k)
			if tt.want == nil {
				if !errors.Is(err, secrets.ErrOpen) {
					t.Fatalf("Open = %x, %v; want ErrOpen", got, err)
				}
				return
			}
			if err != nil || legacy != tt.wantLegacy || !bytes.Equal(got, tt.want) {
				t.Fatalf("Open = %x, legacy %v, %v; want %x, legacy %v", got, legacy, err, tt.want, tt.wantLegacy)
			}
		})
	}
	if _, err := Seal(box, acct, kid, []byte("short")); err == nil {
		t.Fatal("sealed a secret of the wrong length")
	}
}

func TestCreateStoresSealed(t *testing.T) {
	ctx := context.Background()
	st, box := openSQLite(t), newBox(t)
	a, _ := st.CreateAccount(ctx, store.PlanPro)
	k, secret, err := Create(ctx, st, box, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.GetSigningKey(ctx, a.ID, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(row.Secret, secret) || IsLegacy(row.Secret) || !bytes.Equal(row.Secret, k.Secret) {
		t.Fatalf("stored secret %x is not the sealed form of %x", row.Secret, secret)
	}
	got, legacy, err := Open(box, row)
	if err != nil || legacy || !bytes.Equal(got, secret) {
		t.Fatalf("Open(stored) = %x %v %v, want the created secret", got, legacy, err)
	}
	if _, _, err := Create(ctx, st, box, uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Create for an unknown account: %v", err)
	}
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	st, box := openSQLite(t), newBox(t)
	a, _ := st.CreateAccount(ctx, store.PlanPro)
	b, _ := st.CreateAccount(ctx, store.PlanFree)
	// Two raw secrets as earlier versions wrote them (one revoked), and one
	// sealed key.
	raw1, raw2 := NewSecret(), NewSecret()
	l1, _ := st.CreateSigningKey(ctx, a.ID, uuid.NewString(), raw1)
	l2, _ := st.CreateSigningKey(ctx, b.ID, uuid.NewString(), raw2)
	if err := st.RevokeSigningKey(ctx, b.ID, l2.ID); err != nil {
		t.Fatal(err)
	}
	sealedKey, _, err := Create(ctx, st, box, a.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The wrong server key: nothing is written.
	if r, err := Migrate(ctx, st, newBox(t)); err == nil || len(r.Unreadable) != 1 || r.Unreadable[0] != sealedKey.ID || len(r.Resealed) != 0 {
		t.Fatalf("Migrate with the wrong key = %+v, %v; want an error naming the sealed key", r, err)
	}
	if row, _ := st.GetSigningKey(ctx, a.ID, l1.ID); !bytes.Equal(row.Secret, raw1) {
		t.Fatal("Migrate with the wrong key changed a row")
	}

	r, err := Migrate(ctx, st, box)
	if err != nil {
		t.Fatal(err)
	}
	if r.Accounts != 2 || r.Keys != 3 || r.Sealed != 1 || len(r.Resealed) != 2 || len(r.Unreadable) != 0 {
		t.Fatalf("Migrate = %+v", r)
	}
	for _, c := range []struct {
		acct string
		kid  string
		raw  []byte
	}{{a.ID, l1.ID, raw1}, {b.ID, l2.ID, raw2}} {
		row, err := st.GetSigningKey(ctx, c.acct, c.kid)
		if err != nil {
			t.Fatal(err)
		}
		got, legacy, err := Open(box, row)
		if err != nil || legacy || !bytes.Equal(got, c.raw) || bytes.Contains(row.Secret, c.raw) {
			t.Fatalf("key %s after Migrate: %x legacy=%v %v", c.kid, got, legacy, err)
		}
	}
	if row, _ := st.GetSigningKey(ctx, b.ID, l2.ID); row.RevokedAt == nil {
		t.Fatal("Migrate un-revoked a key")
	}

	r, err = Migrate(ctx, st, box) // a second run has nothing to do
	if err != nil || r.Sealed != 3 || len(r.Resealed) != 0 {
		t.Fatalf("second Migrate = %+v, %v", r, err)
	}
}

func BenchmarkOpen(b *testing.B) {
	box := newBox(b)
	acct, kid := uuid.NewString(), uuid.NewString()
	sealed, _ := Seal(box, acct, kid, NewSecret())
	k := store.SigningKey{ID: kid, AccountID: acct, Secret: sealed}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Open(box, k); err != nil {
			b.Fatal(err)
		}
	}
}
