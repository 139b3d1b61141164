-- People on the site (owner: the gateway's site): users, sessions and
-- one-time sign-in tokens, stored by hash; and when each API key was last
-- used, kept apart from api_keys so the key lookup stays a pure read.

-- +goose Up
CREATE TABLE users (
    id            TEXT    NOT NULL PRIMARY KEY,
    account_id    TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email         TEXT    NOT NULL,
    password_hash TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (account_id, id)
) STRICT;
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE sessions (
    hash       BLOB    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
) STRICT;
CREATE INDEX sessions_user ON sessions (account_id, user_id);

CREATE TABLE signin_tokens (
    hash       BLOB    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER,
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
) STRICT;

CREATE TABLE api_key_uses (
    key_id       TEXT    NOT NULL PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    account_id   TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    last_used_at INTEGER NOT NULL
) STRICT;
CREATE INDEX api_key_uses_account ON api_key_uses (account_id);

-- +goose Down
DROP TABLE api_key_uses;
DROP TABLE signin_tokens;
DROP TABLE sessions;
DROP TABLE users;
