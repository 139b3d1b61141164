-- Sign-ups waiting for their email's confirmation (owner: the gateway's
-- site): the link's token is kept only as its SHA-256, one row per email
-- (a new sign-up replaces the older row), and the row is deleted when the
-- link is used or, once expired, by the next sign-up. The account and
-- user are made only on confirmation, so an unconfirmed address holds
-- nothing and the sign-up answer need not say whether it had an account.

-- +goose Up
CREATE TABLE pending_signups (
    hash          bytea            NOT NULL PRIMARY KEY,
    email         text COLLATE "C" NOT NULL,
    password_hash text             NOT NULL,
    created_at    timestamptz      NOT NULL,
    expires_at    timestamptz      NOT NULL
);
CREATE UNIQUE INDEX pending_signups_email ON pending_signups (email);
CREATE INDEX pending_signups_expires ON pending_signups (expires_at);

-- +goose Down
DROP TABLE pending_signups;
