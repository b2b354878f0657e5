-- +goose Up
-- Lottery mode: an event whose places are drawn. From its opening to
-- draw_at runners enter (a row of race_waitlist each; nobody claims a
-- place, as while runners wait); at draw_at the sweeper gives the entries
-- a random rank and sets drawn_at, and from then on the waiting list's
-- invitations go out in rank order: the first `cap` entrants are invited,
-- the rest wait in the drawn order for places that come back.
ALTER TABLE race_events ADD COLUMN lottery BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE race_events ADD COLUMN draw_at BIGINT;
ALTER TABLE race_events ADD COLUMN drawn_at BIGINT;
CREATE INDEX race_events_draw ON race_events (draw_at) WHERE lottery AND drawn_at IS NULL;
ALTER TABLE race_waitlist ADD COLUMN rank BIGINT NOT NULL DEFAULT 0;
DROP INDEX race_waitlist_queue;
CREATE INDEX race_waitlist_queue ON race_waitlist (event_id, rank, id) WHERE status = 'waiting';

-- +goose Down
DROP INDEX race_waitlist_queue;
CREATE INDEX race_waitlist_queue ON race_waitlist (event_id, id) WHERE status = 'waiting';
ALTER TABLE race_waitlist DROP COLUMN rank;
DROP INDEX race_events_draw;
ALTER TABLE race_events DROP COLUMN drawn_at;
ALTER TABLE race_events DROP COLUMN draw_at;
ALTER TABLE race_events DROP COLUMN lottery;
