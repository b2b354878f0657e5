-- +goose Up
-- Load rehearsals (rehearsal.go): a director's rehearsal of an opening
-- rush, run against a copy of the race (rehearsal_of: the race copied;
-- never listed, never the real race's places) by simulated runners whose
-- registrations are refunded refund_delay_s after they are made. settings
-- and progress and report are JSON: what was asked, the live gauges the
-- running instance writes every second (with heartbeat_at), and the load
-- engine's report (internal/load Result) once it ends. An hour after it
-- ended with nothing left to refund, the sweep stores the copy's counts
-- (made, refunded), deletes the copy, then the runners' accounts
-- (cleaned_at: all gone).
ALTER TABLE race_races ADD COLUMN rehearsal_of INTEGER REFERENCES race_races(id) ON DELETE CASCADE;
CREATE INDEX race_races_rehearsal ON race_races (rehearsal_of) WHERE rehearsal_of IS NOT NULL;
CREATE TABLE race_rehearsals (
    id             INTEGER PRIMARY KEY,
    race_id        INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    copy_id        INTEGER REFERENCES race_races(id) ON DELETE SET NULL,
    created_by     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at     INTEGER NOT NULL,
    settings       TEXT NOT NULL,
    refund_delay_s INTEGER NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('preparing', 'running', 'stopping', 'done', 'failed')),
    heartbeat_at   INTEGER NOT NULL,
    progress       TEXT NOT NULL DEFAULT '{}',
    report         TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    comment        TEXT NOT NULL DEFAULT '',
    finished_at    INTEGER,
    made           INTEGER NOT NULL DEFAULT 0,
    refunded       INTEGER NOT NULL DEFAULT 0,
    cleaned_at     INTEGER
);
CREATE INDEX race_rehearsals_race ON race_rehearsals (race_id, id);
CREATE INDEX race_rehearsals_live ON race_rehearsals (heartbeat_at) WHERE status IN ('preparing', 'running', 'stopping');

-- +goose Down
DROP TABLE race_rehearsals;
DROP INDEX race_races_rehearsal;
-- SQLite cannot drop a column a foreign key names: rehearsal_of stays.
DELETE FROM race_races WHERE rehearsal_of IS NOT NULL;
