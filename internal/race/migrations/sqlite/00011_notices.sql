-- +goose Up
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
