package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/store"
)

// pending makes a pending sign-up of email whose hash is seed's bytes.
func pending(seed, email string, created time.Time, ttl time.Duration) store.PendingSignUp {
	h := make([]byte, 32)
	copy(h, seed)
	return store.PendingSignUp{Hash: h, Email: email, PasswordHash: "hash-of-" + email, CreatedAt: created, ExpiresAt: created.Add(ttl)}
}

func testPendingSignUps(t *testing.T, s store.Store) {
	ctx := context.Background()
	now := store.Micro(time.Now())
	day := 24 * time.Hour

	// Confirmed once: the account and user are made with the stored hash.
	p := pending("new", "new@example.com", now, day)
	must(t, "put", s.PutPendingSignUp(ctx, p))
	a, u, err := s.ConfirmSignUp(ctx, p.Hash, store.PlanFree, now.Add(time.Minute))
	must(t, "confirm", err)
	if a.Plan != store.PlanFree || u.AccountID != a.ID || u.Email != "new@example.com" || u.PasswordHash != "hash-of-new@example.com" {
		t.Fatalf("confirm: account %+v user %+v", a, u)
	}
	normalised(t, "confirmed user created_at", u.CreatedAt)
	found, err := s.FindUserByEmail(ctx, "new@example.com")
	must(t, "find confirmed user", err)
	if found.ID != u.ID {
		t.Fatalf("found %+v, want %+v", found, u)
	}
	_, _, err = s.ConfirmSignUp(ctx, p.Hash, store.PlanFree, now.Add(time.Minute))
	wantErr(t, "second use of a link", err, store.ErrNotFound)

	// A new sign-up of the same email replaces the older one.
	older, newer := pending("older", "twice@example.com", now, day), pending("newer", "twice@example.com", now.Add(time.Second), day)
	must(t, "put older", s.PutPendingSignUp(ctx, older))
	must(t, "put newer", s.PutPendingSignUp(ctx, newer))
	_, _, err = s.ConfirmSignUp(ctx, older.Hash, store.PlanFree, now.Add(time.Minute))
	wantErr(t, "replaced link", err, store.ErrNotFound)
	_, u, err = s.ConfirmSignUp(ctx, newer.Hash, store.PlanFree, now.Add(time.Minute))
	must(t, "newer link", err)
	if u.Email != "twice@example.com" {
		t.Fatalf("newer link made %+v", u)
	}

	// Expired: refused, and spent all the same.
	exp := pending("expired", "late@example.com", now, time.Hour)
	must(t, "put expiring", s.PutPendingSignUp(ctx, exp))
	_, _, err = s.ConfirmSignUp(ctx, exp.Hash, store.PlanFree, now.Add(time.Hour))
	wantErr(t, "link at its expiry", err, store.ErrNotFound)
	_, _, err = s.ConfirmSignUp(ctx, exp.Hash, store.PlanFree, now)
	wantErr(t, "expired link used again before its expiry", err, store.ErrNotFound)
	if _, err := s.FindUserByEmail(ctx, "late@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired link made a user: %v", err)
	}

	// The email got an account meanwhile: refused, no second user.
	raced := pending("raced", "raced@example.com", now, day)
	must(t, "put raced", s.PutPendingSignUp(ctx, raced))
	newUser(t, s, "raced@example.com")
	before, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	_, _, err = s.ConfirmSignUp(ctx, raced.Hash, store.PlanFree, now)
	wantErr(t, "confirm an email that has an account", err, store.ErrConflict)
	after, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	if len(after) != len(before) {
		t.Fatalf("a refused confirmation left an account: %d, want %d", len(after), len(before))
	}
	_, _, err = s.ConfirmSignUp(ctx, raced.Hash, store.PlanFree, now)
	wantErr(t, "refused link used again", err, store.ErrNotFound)

	// A later sign-up drops the rows expired by its time.
	stale := pending("stale", "stale@example.com", now, time.Hour)
	must(t, "put stale", s.PutPendingSignUp(ctx, stale))
	must(t, "put later", s.PutPendingSignUp(ctx, pending("later", "later@example.com", now.Add(2*time.Hour), day)))
	_, _, err = s.ConfirmSignUp(ctx, stale.Hash, store.PlanFree, now)
	wantErr(t, "link dropped as expired", err, store.ErrNotFound)

	// One hash is one link.
	must(t, "put dup", s.PutPendingSignUp(ctx, pending("dup", "dup1@example.com", now, day)))
	wantErr(t, "hash stored twice", s.PutPendingSignUp(ctx, pending("dup", "dup2@example.com", now, day)), store.ErrConflict)

	_, _, err = s.ConfirmSignUp(ctx, pending("dup", "", now, day).Hash, "gold", now)
	wantErr(t, "confirm on an unknown plan", err, store.ErrInvalidPlan)

	// Uses racing: one account.
	race := pending("race", "race@example.com", now, day)
	must(t, "put race", s.PutPendingSignUp(ctx, race))
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.ConfirmSignUp(ctx, race.Hash, store.PlanFree, now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrNotFound):
				t.Errorf("racing confirm: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d racing confirmations won, want 1", wins)
	}
}
