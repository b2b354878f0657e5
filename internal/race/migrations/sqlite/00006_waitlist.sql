-- +goose Up
-- An event's waiting list. waiting counts its runners not yet invited;
-- while it is above 0 no one else claims a place (the claim's WHERE reads
-- it), so a place that comes back goes to the list, in order: the sweeper
-- invites the next runners, each with a place kept (taken) until the
-- invitation's expiry.
ALTER TABLE race_events ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
CREATE INDEX race_events_waiting ON race_events (id) WHERE waiting > 0;
CREATE TABLE race_waitlist (
    id         INTEGER PRIMARY KEY,
    event_id   INTEGER NOT NULL REFERENCES race_events(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('waiting', 'invited', 'used', 'expired', 'left')),
    created_at INTEGER NOT NULL,
    invited_at INTEGER,
    expires_at INTEGER
);
CREATE UNIQUE INDEX race_waitlist_runner ON race_waitlist (event_id, user_id) WHERE status IN ('waiting', 'invited');
CREATE INDEX race_waitlist_queue ON race_waitlist (event_id, id) WHERE status = 'waiting';
CREATE INDEX race_waitlist_invited ON race_waitlist (expires_at) WHERE status = 'invited';

-- +goose Down
DROP TABLE race_waitlist;
DROP INDEX race_events_waiting;
ALTER TABLE race_events DROP COLUMN waiting;
