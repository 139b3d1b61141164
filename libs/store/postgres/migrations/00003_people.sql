-- People on the site (owner: the gateway's site): users, sessions and
-- one-time sign-in tokens, stored by hash; and when each API key was last
-- used, kept apart from api_keys so the key lookup stays a pure read.

-- +goose Up
CREATE TABLE users (
    id            text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id    text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email         text COLLATE "C" NOT NULL,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL,
    UNIQUE (account_id, id)
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE sessions (
    hash       bytea            NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL,
    user_id    text COLLATE "C" NOT NULL,
    created_at timestamptz      NOT NULL,
    expires_at timestamptz      NOT NULL,
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
);
CREATE INDEX sessions_user ON sessions (account_id, user_id);

CREATE TABLE signin_tokens (
    hash       bytea            NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL,
    user_id    text COLLATE "C" NOT NULL,
    expires_at timestamptz      NOT NULL,
    used_at    timestamptz,
    FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id) ON DELETE CASCADE
);

CREATE TABLE api_key_uses (
    key_id       text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    account_id   text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    last_used_at timestamptz      NOT NULL
);
CREATE INDEX api_key_uses_account ON api_key_uses (account_id);

-- +goose Down
DROP TABLE api_key_uses;
DROP TABLE signin_tokens;
DROP TABLE sessions;
DROP TABLE users;
