package signing

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
)

// TestRotate: a rotation makes one new live key and revokes the others in
// one step; without the server key it only revokes.
func TestRotate(t *testing.T) {
	ctx := context.Background()
	st, box := openSQLite(t), newBox(t)
	a, _ := st.CreateAccount(ctx, store.PlanPro)
	k1, _, err := Create(ctx, st, box, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	k2, revoked, err := Rotate(ctx, st, box, a.ID)
	if err != nil || len(revoked) != 1 || revoked[0] != k1.ID {
		t.Fatalf("rotate: %v revoked %v", err, revoked)
	}
	if _, legacy, err := Open(box, k2); err != nil || legacy {
		t.Fatalf("the new key does not open sealed: %v", err)
	}
	if _, err := st.LookupSigningKey(ctx, k1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the old key is live: %v", err)
	}
	k3, revoked, err := Rotate(ctx, st, nil, a.ID)
	if err != nil || k3.ID != "" || len(revoked) != 1 || revoked[0] != k2.ID {
		t.Fatalf("rotate without the server key: %+v %v %v", k3, revoked, err)
	}
}

// TestRotateServerKey: with the new key first in the ring, every secret —
// sealed under the old key, sealed in the first format, raw — is re-sealed
// under the new one in one transaction, links keep their secrets, and
// the old key can go; a ring lacking the old key writes nothing.
func TestRotateServerKey(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	oldKey, newKey := secrets.GenerateKey(), secrets.GenerateKey()
	old, _ := secrets.New(oldKey)
	ring, _ := secrets.NewRing(newKey, oldKey)
	onlyNew, _ := secrets.New(newKey)
	a, _ := st.CreateAccount(ctx, store.PlanPro)
	b, _ := st.CreateAccount(ctx, store.PlanFree)
	sealedOld, sOld, err := Create(ctx, st, old, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw := NewSecret()
	legacy, _ := st.CreateSigningKey(ctx, b.ID, uuid.NewString(), raw)
	if err := st.RevokeSigningKey(ctx, b.ID, legacy.ID); err != nil {
		t.Fatal(err)
	}
	current, sCur, err := Create(ctx, st, ring, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{sealedOld.ID: sOld, legacy.ID: raw, current.ID: sCur}

	// The new key alone cannot open the old key's secrets: nothing moves.
	if _, err := RotateServerKey(ctx, st, onlyNew); !errors.Is(err, secrets.ErrOpen) {
		t.Fatalf("rotate without the old key: %v", err)
	}
	if row, _ := st.GetSigningKey(ctx, a.ID, sealedOld.ID); !bytes.Equal(row.Secret, sealedOld.Secret) {
		t.Fatal("a failed rotation wrote a row")
	}
	if row, _ := st.GetSigningKey(ctx, b.ID, legacy.ID); !bytes.Equal(row.Secret, raw) {
		t.Fatal("a failed rotation sealed the raw secret")
	}

	r, err := RotateServerKey(ctx, st, ring)
	if err != nil || r.Keys != 3 || r.Resealed != 2 || r.Current != 1 || r.KeyID != onlyNew.KeyIDs()[0] {
		t.Fatalf("rotate = %+v, %v", r, err)
	}
	for _, acct := range []string{a.ID, b.ID} {
		keys, _ := st.ListSigningKeys(ctx, acct)
		for _, k := range keys {
			got, isLegacy, err := Open(onlyNew, k)
			if err != nil || isLegacy || !bytes.Equal(got, want[k.ID]) || !onlyNew.Current(k.Secret) {
				t.Fatalf("key %s after rotation, opened with the new key alone: %x legacy=%v %v", k.ID, got, isLegacy, err)
			}
		}
	}
	if row, _ := st.GetSigningKey(ctx, b.ID, legacy.ID); row.RevokedAt == nil {
		t.Fatal("rotation un-revoked a key")
	}
	if r, err := RotateServerKey(ctx, st, onlyNew); err != nil || r.Resealed != 0 || r.Current != 3 {
		t.Fatalf("second rotation = %+v, %v", r, err)
	}
}
