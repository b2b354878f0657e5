-- +goose Up
-- A job's id is never given again. A worker names its claim by (id,
-- attempts) when it records the outcome; with a plain INTEGER PRIMARY KEY,
-- SQLite gives a new job the id of the newest one deleted, so the late
-- outcome of a worker whose lease ran out could delete or reschedule a
-- different job. AUTOINCREMENT needs the table rebuilt.
CREATE TABLE jobs_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO jobs_new (id, kind, payload, state, attempts, max_attempts, run_at, locked_until, last_error, request_id, created_at, updated_at)
    SELECT id, kind, payload, state, attempts, max_attempts, run_at, locked_until, last_error, request_id, created_at, updated_at FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_claim ON jobs (state, run_at);
CREATE INDEX jobs_lease ON jobs (state, locked_until);

-- +goose Down
SELECT 1;
