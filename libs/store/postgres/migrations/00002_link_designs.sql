-- The design a data image link was made with, so the link draws the same
-- picture whatever later happens to the chart (owner: the render service).

-- +goose Up
CREATE TABLE link_designs (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    chart_id   text COLLATE "C" NOT NULL,
    design     bytea       NOT NULL,
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE link_designs;
