-- +goose Up
-- A poll's meeting length, in minutes: 15 minutes to a whole day, on the
-- quarter hour. Existing polls get the default, one hour.
ALTER TABLE meet_polls ADD COLUMN duration_minutes INTEGER NOT NULL DEFAULT 60
    CONSTRAINT meet_polls_duration CHECK (duration_minutes BETWEEN 15 AND 1440 AND duration_minutes % 15 = 0);

-- +goose Down
ALTER TABLE meet_polls DROP COLUMN duration_minutes;
