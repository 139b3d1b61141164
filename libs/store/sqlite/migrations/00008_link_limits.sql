-- The signing key each data link was signed with and its expiry (owner:
-- the render service), so an account's data links can be capped
-- (plan.Limits.DataLinks) with room that comes back: revoking or rotating
-- a key deletes the rows of the links it stopped, and an account at its
-- cap drops its expired links' rows through the (account_id, expires_at)
-- index. Rows stored before have no kid and no expiry: they go when the
-- account has no live key left.

-- +goose Up
ALTER TABLE link_designs ADD COLUMN kid TEXT;
ALTER TABLE link_designs ADD COLUMN expires_at INTEGER;
DROP INDEX link_designs_account;
CREATE INDEX link_designs_account_expiry ON link_designs (account_id, expires_at);

-- +goose Down
DROP INDEX link_designs_account_expiry;
CREATE INDEX link_designs_account ON link_designs (account_id);
ALTER TABLE link_designs DROP COLUMN expires_at;
ALTER TABLE link_designs DROP COLUMN kid;
