-- Timestamps are INTEGER unix microseconds (UTC), so microseconds survive
-- exactly and compare as plain integers.

-- +goose Up
CREATE TABLE accounts (
    id            TEXT    NOT NULL PRIMARY KEY,
    plan          TEXT    NOT NULL CHECK (plan IN ('free', 'pro')),
    brand_palette TEXT,   -- JSON array of colors; NULL when none
    created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
    id         TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       TEXT    NOT NULL,
    prefix     TEXT    NOT NULL,
    hash       BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
CREATE UNIQUE INDEX api_keys_hash ON api_keys (hash);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);

CREATE TABLE signing_keys (
    id         TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    secret     BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
CREATE INDEX signing_keys_account ON signing_keys (account_id, created_at, id);

CREATE TABLE charts (
    id         TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       TEXT    NOT NULL,
    type       TEXT    NOT NULL,
    spec       BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, id)
) STRICT;
CREATE INDEX charts_account_recent ON charts (account_id, updated_at DESC, id DESC);

CREATE TABLE datasets (
    chart_id   TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL,
    format     TEXT    NOT NULL,
    raw        BLOB    NOT NULL,
    updated_at INTEGER NOT NULL,
    FOREIGN KEY (account_id, chart_id) REFERENCES charts (account_id, id) ON DELETE CASCADE
) STRICT;

-- +goose Down
DROP TABLE datasets;
DROP TABLE charts;
DROP TABLE signing_keys;
DROP TABLE api_keys;
DROP TABLE accounts;
