-- +goose Up
-- What runners may change after registering, and what a director closes
-- (changes.go):
--  - race_races.edit_until: runners correct their name, T-shirt size and
--    team until then (NULL: until their event starts);
--  - race_races.refund_percent: what a runner who cancels gets back of
--    what they paid: 0 none, 100 all, 1 to 99 that share; refund_until:
--    until then (NULL: until their event starts), nothing after;
--  - race_races.shirts: the details page asks for a T-shirt size, kept on
--    the hold and then the registration (shirt, '' for none);
--  - race_events.closed_at: a director closed the event's registration
--    then (NULL: open by its times). A closed event takes no new holds,
--    waiting-list joins or lottery entries.
ALTER TABLE race_races ADD COLUMN edit_until BIGINT;
ALTER TABLE race_races ADD COLUMN refund_percent INTEGER NOT NULL DEFAULT 0 CHECK (refund_percent BETWEEN 0 AND 100);
ALTER TABLE race_races ADD COLUMN refund_until BIGINT;
ALTER TABLE race_races ADD COLUMN shirts BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE race_events ADD COLUMN closed_at BIGINT;
ALTER TABLE race_holds ADD COLUMN shirt TEXT NOT NULL DEFAULT '';
ALTER TABLE race_registrations ADD COLUMN shirt TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE race_registrations DROP COLUMN shirt;
ALTER TABLE race_holds DROP COLUMN shirt;
ALTER TABLE race_events DROP COLUMN closed_at;
ALTER TABLE race_races DROP COLUMN shirts;
ALTER TABLE race_races DROP COLUMN refund_until;
ALTER TABLE race_races DROP COLUMN refund_percent;
ALTER TABLE race_races DROP COLUMN edit_until;
