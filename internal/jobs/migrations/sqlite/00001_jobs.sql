-- +goose Up
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'ready',
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_at       INTEGER NOT NULL,
    locked_until INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    request_id   TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    CHECK (state IN ('ready', 'running', 'dead'))
);
CREATE INDEX jobs_claim ON jobs (state, run_at);
CREATE INDEX jobs_lease ON jobs (state, locked_until);

-- +goose Down
DROP TABLE jobs;
