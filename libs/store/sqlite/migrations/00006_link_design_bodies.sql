-- Data-link designs kept once per account by their SHA-256 (owner: the
-- render service): a link row points at its design by hash instead of
-- holding a copy, so links made from one chart state cost a few hundred
-- bytes each. Rows stored before keep their design in link_designs.design
-- and no hash.

-- +goose Up
CREATE TABLE link_design_bodies (
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hash       BLOB    NOT NULL,
    design     BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, hash)
) STRICT;
ALTER TABLE link_designs ADD COLUMN design_hash BLOB;
CREATE INDEX link_designs_account ON link_designs (account_id);

-- +goose Down
DROP INDEX link_designs_account;
ALTER TABLE link_designs DROP COLUMN design_hash;
DROP TABLE link_design_bodies;
