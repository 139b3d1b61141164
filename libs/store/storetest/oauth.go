package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/store"
)

// newGrant registers an app and connects it to a fresh account.
func newGrant(t testing.TB, s store.Store, email string) (store.Account, store.OAuthGrant) {
	t.Helper()
	ctx := context.Background()
	a, _ := newUser(t, s, email)
	c, err := s.CreateOAuthClient(ctx, "Claude", []string{"http://127.0.0.1:33418/callback"})
	must(t, "create oauth client", err)
	g, err := s.CreateOAuthGrant(ctx, store.OAuthGrant{AccountID: a.ID, ClientID: c.ID, Scopes: []string{"charts:read", "images"}, CreatedAt: time.Now()})
	must(t, "create oauth grant", err)
	return a, g
}

func testOAuth(t *testing.T, s store.Store) {
	ctx := context.Background()
	now := store.Micro(time.Now())
	c, err := s.CreateOAuthClient(ctx, "Claude", []string{"https://a.example/cb", "http://127.0.0.1:9/cb"})
	must(t, "create client", err)
	got, err := s.GetOAuthClient(ctx, c.ID)
	must(t, "get client", err)
	if got.Name != "Claude" || !slices.Equal(got.RedirectURIs, c.RedirectURIs) || !got.CreatedAt.Equal(c.CreatedAt) {
		t.Fatalf("client = %+v, want %+v", got, c)
	}
	_, err = s.GetOAuthClient(ctx, "no-such-client")
	wantErr(t, "unknown client", err, store.ErrNotFound)

	a, _ := newUser(t, s, "oauth@example.com")
	b, _ := newUser(t, s, "other@example.com")
	g, err := s.CreateOAuthGrant(ctx, store.OAuthGrant{AccountID: a.ID, ClientID: c.ID, Scopes: []string{"charts:read", "charts:write"}, Resource: "https://chartd.example/mcp", CreatedAt: now})
	must(t, "create grant", err)
	if g.ClientName != "Claude" || g.ID == "" {
		t.Fatalf("grant = %+v", g)
	}
	_, err = s.CreateOAuthGrant(ctx, store.OAuthGrant{AccountID: a.ID, ClientID: "nope", CreatedAt: now})
	wantErr(t, "grant of an unknown client", err, store.ErrNotFound)

	// An app nobody connected is deleted once old; one with a grant stays.
	unused, err := s.CreateOAuthClient(ctx, "Never used", []string{"https://b.example/cb"})
	must(t, "create unused client", err)
	if n, err := s.DeleteUnusedOAuthClients(ctx, now.Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("delete unused clients registered an hour ago: %d, %v", n, err)
	}
	if n, err := s.DeleteUnusedOAuthClients(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("delete unused clients: %d, %v; want 1", n, err)
	}
	_, err = s.GetOAuthClient(ctx, unused.ID)
	wantErr(t, "deleted unused client", err, store.ErrNotFound)
	_, err = s.GetOAuthClient(ctx, c.ID)
	must(t, "client with a grant", err)

	list, err := s.ListOAuthGrants(ctx, a.ID)
	must(t, "list grants", err)
	if len(list) != 1 || list[0].ID != g.ID || !slices.Equal(list[0].Scopes, g.Scopes) || list[0].Resource != g.Resource || list[0].LastUsedAt != nil {
		t.Fatalf("grants = %+v", list)
	}
	if other, _ := s.ListOAuthGrants(ctx, b.ID); len(other) != 0 {
		t.Fatalf("account B sees A's grants: %+v", other)
	}

	// Tokens: an access token authenticates until it expires.
	access := store.OAuthToken{Hash: hashOf("access"), GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: now.Add(time.Hour)}
	must(t, "create access token", s.CreateOAuthToken(ctx, access))
	wantErr(t, "duplicate token hash", s.CreateOAuthToken(ctx, access), store.ErrConflict)
	wantErr(t, "token of an unknown grant", s.CreateOAuthToken(ctx, store.OAuthToken{Hash: hashOf("x"), GrantID: "nope", Kind: store.OAuthAccess, ExpiresAt: now}), store.ErrNotFound)
	lg, la, err := s.LookupOAuthAccess(ctx, hashOf("access"), now)
	must(t, "look up access token", err)
	if lg.ID != g.ID || la.ID != a.ID || !slices.Equal(lg.Scopes, g.Scopes) || lg.Resource != "https://chartd.example/mcp" {
		t.Fatalf("lookup = %+v %+v", lg, la)
	}
	_, _, err = s.LookupOAuthAccess(ctx, hashOf("access"), now.Add(time.Hour))
	wantErr(t, "expired access token", err, store.ErrNotFound)

	// A code is spent once; a second use answers it with ErrConflict.
	code := store.OAuthToken{Hash: hashOf("code"), GrantID: g.ID, Kind: store.OAuthCode, RedirectURI: "https://a.example/cb", Challenge: "ch", ExpiresAt: now.Add(time.Minute)}
	must(t, "create code", s.CreateOAuthToken(ctx, code))
	_, err = s.SpendOAuthToken(ctx, store.OAuthRefresh, hashOf("code"), now)
	wantErr(t, "code spent as a refresh token", err, store.ErrNotFound)
	sp, err := s.SpendOAuthToken(ctx, store.OAuthCode, hashOf("code"), now)
	must(t, "spend code", err)
	if sp.GrantID != g.ID || sp.RedirectURI != code.RedirectURI || sp.Challenge != "ch" || sp.UsedAt == nil {
		t.Fatalf("spent code = %+v", sp)
	}
	again, err := s.SpendOAuthToken(ctx, store.OAuthCode, hashOf("code"), now)
	wantErr(t, "reused code", err, store.ErrConflict)
	if again.GrantID != g.ID {
		t.Fatalf("reused code answers grant %q", again.GrantID)
	}
	expired := store.OAuthToken{Hash: hashOf("old"), GrantID: g.ID, Kind: store.OAuthRefresh, ExpiresAt: now.Add(-time.Second)}
	must(t, "create expired refresh", s.CreateOAuthToken(ctx, expired))
	_, err = s.SpendOAuthToken(ctx, store.OAuthRefresh, hashOf("old"), now)
	wantErr(t, "expired refresh token", err, store.ErrNotFound)
	_, err = s.SpendOAuthToken(ctx, store.OAuthRefresh, hashOf("never-issued"), now)
	wantErr(t, "unknown refresh token", err, store.ErrNotFound)

	// Use is recorded, never moving back.
	must(t, "touch", s.TouchOAuthGrant(ctx, g.ID, now.Add(time.Minute)))
	must(t, "touch older", s.TouchOAuthGrant(ctx, g.ID, now))
	gg, err := s.GetOAuthGrant(ctx, g.ID)
	must(t, "get grant", err)
	if gg.LastUsedAt == nil || !gg.LastUsedAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("last used = %v", gg.LastUsedAt)
	}

	// Revocation is scoped to the account and ends every token.
	refresh := store.OAuthToken{Hash: hashOf("refresh"), GrantID: g.ID, Kind: store.OAuthRefresh, ExpiresAt: now.Add(time.Hour)}
	must(t, "create refresh", s.CreateOAuthToken(ctx, refresh))
	wantErr(t, "revoke from another account", s.RevokeOAuthGrant(ctx, b.ID, g.ID, now), store.ErrNotFound)
	must(t, "revoke", s.RevokeOAuthGrant(ctx, a.ID, g.ID, now))
	must(t, "revoke again", s.RevokeOAuthGrant(ctx, a.ID, g.ID, now.Add(time.Hour)))
	_, _, err = s.LookupOAuthAccess(ctx, hashOf("access"), now)
	wantErr(t, "access token of a revoked grant", err, store.ErrNotFound)
	_, err = s.SpendOAuthToken(ctx, store.OAuthRefresh, hashOf("refresh"), now)
	wantErr(t, "refresh token of a revoked grant", err, store.ErrNotFound)
	wantErr(t, "token for a revoked grant", s.CreateOAuthToken(ctx, store.OAuthToken{Hash: hashOf("late"), GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: now.Add(time.Hour)}), store.ErrNotFound)
	gg, err = s.GetOAuthGrant(ctx, g.ID)
	must(t, "get revoked grant", err)
	if gg.RevokedAt == nil || !gg.RevokedAt.Equal(now) {
		t.Fatalf("revoked at = %v, want the first revocation %v", gg.RevokedAt, now)
	}
	if list, _ := s.ListOAuthGrants(ctx, a.ID); len(list) != 0 {
		t.Fatalf("revoked grant still listed: %+v", list)
	}
}

// testOAuthSpendRace: of many uses of one refresh token at once, exactly
// one wins and the others see it spent.
func testOAuthSpendRace(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, g := newGrant(t, s, "race@example.com")
	now := time.Now()
	must(t, "create refresh", s.CreateOAuthToken(ctx, store.OAuthToken{Hash: hashOf("r"), GrantID: g.ID, Kind: store.OAuthRefresh, ExpiresAt: now.Add(time.Hour)}))
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, conflicts := 0, 0
	for range n {
		wg.Go(func() {
			_, err := s.SpendOAuthToken(ctx, store.OAuthRefresh, hashOf("r"), now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, store.ErrConflict):
				conflicts++
			default:
				t.Errorf("spend: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || conflicts != n-1 {
		t.Fatalf("wins %d, conflicts %d; want 1 and %d", wins, conflicts, n-1)
	}
}
