-- +goose Up
-- The keys of the requests whose writes committed (db.WithRequestKey): a
-- request that a proxy sends again, because the instance it first went to
-- died, finds its key here and is not carried out twice. Kept an hour.
CREATE TABLE request_keys (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL
);
CREATE INDEX request_keys_at ON request_keys (at);

-- +goose Down
DROP TABLE request_keys;
