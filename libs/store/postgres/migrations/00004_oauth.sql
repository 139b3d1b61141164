-- Assistants (owner: the gateway's authorization server): apps registered
-- by dynamic client registration, the grants people allowed, and the
-- codes and tokens of those grants, stored by hash.

-- +goose Up
CREATE TABLE oauth_clients (
    id            text COLLATE "C" NOT NULL PRIMARY KEY,
    name          text             NOT NULL,
    redirect_uris text[]           NOT NULL,
    created_at    timestamptz      NOT NULL
);

CREATE TABLE oauth_grants (
    id           text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id   text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id    text COLLATE "C" NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes       text[]           NOT NULL,
    created_at   timestamptz      NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX oauth_grants_account ON oauth_grants (account_id);

CREATE TABLE oauth_tokens (
    hash         bytea            NOT NULL PRIMARY KEY,
    grant_id     text COLLATE "C" NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind         text             NOT NULL,
    redirect_uri text             NOT NULL,
    challenge    text             NOT NULL,
    expires_at   timestamptz      NOT NULL,
    used_at      timestamptz
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_grants;
DROP TABLE oauth_clients;
