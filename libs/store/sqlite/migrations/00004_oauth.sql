-- Assistants (owner: the gateway's authorization server): apps registered
-- by dynamic client registration, the grants people allowed, and the
-- codes and tokens of those grants, stored by hash.

-- +goose Up
CREATE TABLE oauth_clients (
    id            TEXT    NOT NULL PRIMARY KEY,
    name          TEXT    NOT NULL,
    redirect_uris TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE oauth_grants (
    id           TEXT    NOT NULL PRIMARY KEY,
    account_id   TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id    TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
CREATE INDEX oauth_grants_account ON oauth_grants (account_id);

CREATE TABLE oauth_tokens (
    hash         BLOB    NOT NULL PRIMARY KEY,
    grant_id     TEXT    NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    redirect_uri TEXT    NOT NULL,
    challenge    TEXT    NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      INTEGER
) STRICT;
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_grants;
DROP TABLE oauth_clients;
