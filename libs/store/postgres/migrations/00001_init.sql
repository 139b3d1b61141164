-- Ids are text with the "C" collation so ordering (and keyset pagination)
-- is bytewise, as in SQLite, whatever the database's locale.
-- Timestamps are timestamptz: microsecond precision.

-- +goose Up
CREATE TABLE accounts (
    id            text COLLATE "C" NOT NULL PRIMARY KEY,
    plan          text        NOT NULL CHECK (plan IN ('free', 'pro')),
    brand_palette text[],     -- NULL when none
    created_at    timestamptz NOT NULL
);

CREATE TABLE api_keys (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    prefix     text        NOT NULL,
    hash       bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE UNIQUE INDEX api_keys_hash ON api_keys (hash);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);

CREATE TABLE signing_keys (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    secret     bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX signing_keys_account ON signing_keys (account_id, created_at, id);

CREATE TABLE charts (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    type       text        NOT NULL,
    spec       bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (account_id, id)
);
CREATE INDEX charts_account_recent ON charts (account_id, updated_at DESC, id DESC);

CREATE TABLE datasets (
    chart_id   text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL,
    format     text        NOT NULL,
    raw        bytea       NOT NULL,
    updated_at timestamptz NOT NULL,
    FOREIGN KEY (account_id, chart_id) REFERENCES charts (account_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE datasets;
DROP TABLE charts;
DROP TABLE signing_keys;
DROP TABLE api_keys;
DROP TABLE accounts;
