-- +goose Up
-- Links in mail are absolute: the origin (scheme://host) of the request
-- that began a hold or a place in a waiting list is kept with it, for the
-- mail written later by the writer or the sweeper (mail.Mailer.Base;
-- --base-url wins when set).
ALTER TABLE race_holds ADD COLUMN base TEXT NOT NULL DEFAULT '';
ALTER TABLE race_waitlist ADD COLUMN base TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE race_waitlist DROP COLUMN base;
ALTER TABLE race_holds DROP COLUMN base;
