package store

import (
	"context"
	"time"
)

// OAuthClient is an app registered by dynamic client registration (RFC
// 7591): a public client (no secret; PKCE proves the caller) with the
// exact redirect URIs it may use.
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
}

// OAuthGrant is one app connected to one account: what the person
// allowed on the consent page. Revoking it (disconnect, or a reused
// refresh token) ends every token issued under it.
type OAuthGrant struct {
	ID         string
	AccountID  string
	ClientID   string
	ClientName string
	// Scopes are the allowed scopes, in the order they were asked for.
	Scopes []string
	// Resource is the resource (RFC 8707) the grant's tokens are for:
	// one of the service's own identifiers, or "" for a grant asked
	// without one, which stands for the service as a whole.
	Resource   string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Kinds of OAuthToken.
const (
	OAuthCode    = "code"
	OAuthAccess  = "access"
	OAuthRefresh = "refresh"
)

// OAuthToken is an authorization code, access token or refresh token of a
// grant, kept by the SHA-256 hash of its value only. RedirectURI and
// Challenge (the PKCE S256 code challenge) are set on codes.
type OAuthToken struct {
	Hash        []byte
	GrantID     string
	Kind        string
	RedirectURI string
	Challenge   string
	ExpiresAt   time.Time
	UsedAt      *time.Time
}

// OAuth keeps what the authorization server issues: registered apps,
// grants and their codes and tokens.
type OAuth interface {
	// CreateOAuthClient registers an app with a fresh id.
	CreateOAuthClient(ctx context.Context, name string, redirectURIs []string) (OAuthClient, error)
	// GetOAuthClient loads an app; ErrNotFound when unknown.
	GetOAuthClient(ctx context.Context, id string) (OAuthClient, error)
	// DeleteUnusedOAuthClients deletes the apps registered before before
	// that no person ever connected (no grant), answering how many.
	DeleteUnusedOAuthClients(ctx context.Context, before time.Time) (int, error)

	// CreateOAuthGrant stores g with a fresh id; an unknown account or
	// client is ErrNotFound.
	CreateOAuthGrant(ctx context.Context, g OAuthGrant) (OAuthGrant, error)
	// GetOAuthGrant loads a grant, revoked or not, by id alone (a token
	// names its grant, not its account).
	GetOAuthGrant(ctx context.Context, id string) (OAuthGrant, error)
	// ListOAuthGrants lists the account's live grants, oldest first.
	ListOAuthGrants(ctx context.Context, accountID string) ([]OAuthGrant, error)
	// RevokeOAuthGrant revokes one of the account's grants and deletes its
	// tokens; revoking twice keeps the first time. Another account's grant
	// is ErrNotFound.
	RevokeOAuthGrant(ctx context.Context, accountID, id string, at time.Time) error
	// TouchOAuthGrant records a use of the grant; an older time is ignored.
	TouchOAuthGrant(ctx context.Context, id string, at time.Time) error

	// CreateOAuthToken stores a code or token of a live grant; a duplicate
	// hash is ErrConflict, an unknown grant ErrNotFound.
	CreateOAuthToken(ctx context.Context, t OAuthToken) error
	// SpendOAuthToken uses a code or refresh token of kind once, atomically:
	// the first use before its expiry, while its grant is live, answers it;
	// a token already spent answers it (UsedAt set) with ErrConflict, so
	// the caller can revoke the grant; anything else is ErrNotFound.
	SpendOAuthToken(ctx context.Context, kind string, hash []byte, now time.Time) (OAuthToken, error)
	// LookupOAuthAccess authenticates a request: the unexpired access token
	// with this hash, its live grant and the grant's account. Anything
	// else is ErrNotFound.
	LookupOAuthAccess(ctx context.Context, hash []byte, now time.Time) (OAuthGrant, Account, error)
}
