-- The resource (RFC 8707) each assistant grant is for, so a token asked
-- for another server's resource is never accepted here (owner: the
-- gateway's authorization server). '' is a grant asked without one.

-- +goose Up
ALTER TABLE oauth_grants ADD COLUMN resource TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE oauth_grants DROP COLUMN resource;
