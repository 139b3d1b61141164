package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/store"
)

// newUser signs up a fresh account with one user.
func newUser(t testing.TB, s store.Store, email string) (store.Account, store.User) {
	t.Helper()
	a, u, err := s.SignUp(context.Background(), store.PlanFree, email, "hash-of-"+email)
	must(t, "sign up "+email, err)
	return a, u
}

func testPeople(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, u := newUser(t, s, "ada@example.com")
	if a.Plan != store.PlanFree || u.AccountID != a.ID || u.Email != "ada@example.com" || u.PasswordHash != "hash-of-ada@example.com" {
		t.Fatalf("sign up: account %+v user %+v", a, u)
	}
	normalised(t, "user created_at", u.CreatedAt)
	got, err := s.GetAccount(ctx, a.ID)
	must(t, "get signed-up account", err)
	if got.ID != a.ID {
		t.Fatalf("account = %+v", got)
	}

	// A used email makes no second account, whichever way it comes.
	before, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	_, _, err = s.SignUp(ctx, store.PlanFree, "ada@example.com", "x")
	wantErr(t, "sign up with a used email", err, store.ErrConflict)
	after, err := s.ListAccounts(ctx)
	must(t, "list accounts", err)
	if len(after) != len(before) {
		t.Fatalf("a refused sign-up left an account: %d accounts, want %d", len(after), len(before))
	}
	_, _, err = s.SignUp(ctx, "gold", "bob@example.com", "x")
	wantErr(t, "sign up on an unknown plan", err, store.ErrInvalidPlan)

	other := newAccount(t, s, store.PlanPro)
	_, err = s.CreateUser(ctx, other.ID, "ada@example.com", "x")
	wantErr(t, "create user with a used email", err, store.ErrConflict)
	_, err = s.CreateUser(ctx, "00000000-0000-0000-0000-000000000000", "cy@example.com", "x")
	wantErr(t, "create user in an unknown account", err, store.ErrNotFound)
	bob, err := s.CreateUser(ctx, other.ID, "bob@example.com", "")
	must(t, "create user", err)

	tests := []struct {
		name      string
		accountID string
		userID    string
		want      error
	}{
		{"own user", a.ID, u.ID, nil},
		{"other account's user", a.ID, bob.ID, store.ErrNotFound},
		{"unknown user", a.ID, "nobody", store.ErrNotFound},
	}
	for _, tt := range tests {
		got, err := s.GetUser(ctx, tt.accountID, tt.userID)
		if tt.want != nil {
			wantErr(t, "get user: "+tt.name, err, tt.want)
			wantErr(t, "set password: "+tt.name, s.SetPassword(ctx, tt.accountID, tt.userID, "new"), tt.want)
			continue
		}
		must(t, "get user: "+tt.name, err)
		if got != u {
			t.Fatalf("get user = %+v, want %+v", got, u)
		}
	}

	found, err := s.FindUserByEmail(ctx, "bob@example.com")
	must(t, "find user by email", err)
	if found != bob {
		t.Fatalf("find user = %+v, want %+v", found, bob)
	}
	_, err = s.FindUserByEmail(ctx, "nobody@example.com")
	wantErr(t, "find unknown email", err, store.ErrNotFound)

	must(t, "set password", s.SetPassword(ctx, other.ID, bob.ID, "bob-hash"))
	found, err = s.GetUser(ctx, other.ID, bob.ID)
	must(t, "get user", err)
	if found.PasswordHash != "bob-hash" {
		t.Fatalf("password hash = %q", found.PasswordHash)
	}
	carol, err := s.CreateUser(ctx, other.ID, "carol@example.com", "c")
	must(t, "create user", err)
	list, err := s.ListUsers(ctx, other.ID)
	must(t, "list users", err)
	if len(list) != 2 || list[0].ID != bob.ID || list[1].ID != carol.ID {
		t.Fatalf("list users = %+v", list)
	}
}

func testSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, u := newUser(t, s, "ses@example.com")
	b, v := newUser(t, s, "other@example.com")
	now := store.Micro(time.Now())
	se := store.Session{Hash: hashOf("token-1"), AccountID: a.ID, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	must(t, "create session", s.CreateSession(ctx, se))
	wantErr(t, "duplicate session", s.CreateSession(ctx, se), store.ErrConflict)
	wantErr(t, "session of another account's user", s.CreateSession(ctx,
		store.Session{Hash: hashOf("token-x"), AccountID: a.ID, UserID: v.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}), store.ErrNotFound)
	must(t, "second session", s.CreateSession(ctx, store.Session{Hash: hashOf("token-2"), AccountID: a.ID, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
	must(t, "other account's session", s.CreateSession(ctx, store.Session{Hash: hashOf("token-3"), AccountID: b.ID, UserID: v.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))

	tests := []struct {
		name string
		hash []byte
		at   time.Time
		want error
	}{
		{"live", hashOf("token-1"), now, nil},
		{"just before expiry", hashOf("token-1"), now.Add(time.Hour - time.Microsecond), nil},
		{"at expiry", hashOf("token-1"), now.Add(time.Hour), store.ErrNotFound},
		{"unknown", hashOf("token-9"), now, store.ErrNotFound},
	}
	for _, tt := range tests {
		got, acct, err := s.LookupSession(ctx, tt.hash, tt.at)
		if tt.want != nil {
			wantErr(t, "lookup session: "+tt.name, err, tt.want)
			continue
		}
		must(t, "lookup session: "+tt.name, err)
		if got.AccountID != a.ID || got.UserID != u.ID || acct.ID != a.ID || acct.Plan != a.Plan || !got.ExpiresAt.Equal(se.ExpiresAt) {
			t.Fatalf("lookup session = %+v %+v", got, acct)
		}
		normalised(t, "session expires_at", got.ExpiresAt)
	}

	// Another account cannot end the session; its owner can, twice.
	must(t, "delete as another account", s.DeleteSession(ctx, b.ID, hashOf("token-1")))
	_, _, err := s.LookupSession(ctx, hashOf("token-1"), now)
	must(t, "session survives another account's delete", err)
	must(t, "delete session", s.DeleteSession(ctx, a.ID, hashOf("token-1")))
	must(t, "delete session again", s.DeleteSession(ctx, a.ID, hashOf("token-1")))
	_, _, err = s.LookupSession(ctx, hashOf("token-1"), now)
	wantErr(t, "lookup deleted session", err, store.ErrNotFound)

	must(t, "delete user sessions", s.DeleteUserSessions(ctx, a.ID, u.ID))
	_, _, err = s.LookupSession(ctx, hashOf("token-2"), now)
	wantErr(t, "lookup session after delete user sessions", err, store.ErrNotFound)
	_, _, err = s.LookupSession(ctx, hashOf("token-3"), now)
	must(t, "other account's session survives", err)
}

func testSignInTokens(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, u := newUser(t, s, "link@example.com")
	b, _ := newUser(t, s, "link2@example.com")
	now := store.Micro(time.Now())
	must(t, "create token", s.CreateSignInToken(ctx, a.ID, u.ID, hashOf("one"), now.Add(15*time.Minute)))
	wantErr(t, "duplicate token", s.CreateSignInToken(ctx, a.ID, u.ID, hashOf("one"), now.Add(time.Minute)), store.ErrConflict)
	wantErr(t, "token for another account's user", s.CreateSignInToken(ctx, b.ID, u.ID, hashOf("two"), now.Add(time.Minute)), store.ErrNotFound)
	must(t, "create expiring token", s.CreateSignInToken(ctx, a.ID, u.ID, hashOf("old"), now.Add(time.Minute)))

	_, err := s.UseSignInToken(ctx, hashOf("old"), now.Add(time.Minute))
	wantErr(t, "use expired token", err, store.ErrNotFound)
	_, err = s.UseSignInToken(ctx, hashOf("nope"), now)
	wantErr(t, "use unknown token", err, store.ErrNotFound)

	// Many uses at once: exactly one signs in.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.UseSignInToken(ctx, hashOf("one"), now)
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
				if got.ID != u.ID || got.AccountID != a.ID {
					t.Errorf("token answered user %+v", got)
				}
			} else if !isNotFound(err) {
				t.Errorf("use token: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d uses of a one-time token succeeded, want 1", wins)
	}
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

func testAPIKeyUses(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newAccount(t, s, store.PlanFree)
	b := newAccount(t, s, store.PlanFree)
	k, err := s.CreateAPIKey(ctx, a.ID, "ci", "chd_aaaa", hashOf("use-key"))
	must(t, "create key", err)
	never, err := s.CreateAPIKey(ctx, a.ID, "never", "chd_bbbb", hashOf("never-key"))
	must(t, "create key", err)
	t1 := store.Micro(time.Now())
	t0 := t1.Add(-time.Minute)
	t2 := t1.Add(time.Minute)
	tests := []struct {
		name    string
		account string
		at      time.Time
		want    time.Time
		err     error
	}{
		{"first use", a.ID, t1, t1, nil},
		{"older use ignored", a.ID, t0, t1, nil},
		{"newer use", a.ID, t2, t2, nil},
		{"another account", b.ID, t2.Add(time.Hour), t2, store.ErrNotFound},
	}
	for _, tt := range tests {
		err := s.TouchAPIKey(ctx, tt.account, k.ID, tt.at)
		if tt.err != nil {
			wantErr(t, "touch: "+tt.name, err, tt.err)
		} else {
			must(t, "touch: "+tt.name, err)
		}
		got, err := s.APIKeysLastUsed(ctx, a.ID)
		must(t, "last used", err)
		if !got[k.ID].Equal(tt.want) {
			t.Fatalf("%s: last used = %v, want %v", tt.name, got[k.ID], tt.want)
		}
		if _, ok := got[never.ID]; ok {
			t.Fatalf("%s: a key never used has a last use", tt.name)
		}
	}
	got, err := s.APIKeysLastUsed(ctx, b.ID)
	must(t, "last used of another account", err)
	if len(got) != 0 {
		t.Fatalf("another account sees uses: %v", got)
	}
}
