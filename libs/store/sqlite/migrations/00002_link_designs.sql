-- The design a data image link was made with, so the link draws the same
-- picture whatever later happens to the chart (owner: the render service).

-- +goose Up
CREATE TABLE link_designs (
    id         TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    chart_id   TEXT    NOT NULL,
    design     BLOB    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE link_designs;
