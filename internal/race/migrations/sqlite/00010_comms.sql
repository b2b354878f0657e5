-- +goose Up
-- Links in mail are absolute: the origin (scheme://host) of the request
-- that began a hold or a place in a waiting list is kept with it, for the
-- mail written later by the writer or the sweeper (mail.Mailer.Base;
-- --base-url wins when set).
ALTER TABLE race_holds ADD COLUMN base TEXT NOT NULL DEFAULT '';
ALTER TABLE race_waitlist ADD COLUMN base TEXT NOT NULL DEFAULT '';

-- What a runner was told (each also mailed from the outbox): a
-- cancellation, a refund, a draw, an invitation and its expiry, a change
-- of the event, a director's message; shown on the runner's registrations
-- page. registration_id is set when it is about one.
CREATE TABLE race_notices (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    race_id         INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    event_id        INTEGER REFERENCES race_events(id) ON DELETE CASCADE,
    registration_id INTEGER REFERENCES race_registrations(id) ON DELETE CASCADE,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX race_notices_user ON race_notices (user_id, id);

-- +goose Down
DROP TABLE race_notices;
ALTER TABLE race_waitlist DROP COLUMN base;
ALTER TABLE race_holds DROP COLUMN base;
