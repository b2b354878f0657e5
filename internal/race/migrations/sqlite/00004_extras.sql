-- +goose Up
-- Extras, the race wizard's third step: teams runners create or join, a
-- fundraiser runners may give to, and store items with a stock. An item's
-- stock is counted as an event's places are: taken is the units sold and
-- held, changed by one conditional UPDATE (taken + n <= stock) that decides.
ALTER TABLE race_races ADD COLUMN teams INTEGER NOT NULL DEFAULT 0;
ALTER TABLE race_races ADD COLUMN fundraiser TEXT NOT NULL DEFAULT '';
CREATE TABLE race_teams (
    id         INTEGER PRIMARY KEY,
    race_id    INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (race_id, name_key)
);
CREATE TABLE race_items (
    id         INTEGER PRIMARY KEY,
    race_id    INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    price      INTEGER NOT NULL,
    stock      INTEGER NOT NULL,
    taken      INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    CHECK (price >= 0),
    CHECK (taken >= 0 AND taken <= stock)
);
CREATE INDEX race_items_race ON race_items (race_id, id);
-- A hold's store items: units claimed from stock while the runner is in
-- the wizard, given back when the hold is released (the lines go) or its
-- registration cancelled (the lines stay, as the record of the sale).
-- price is the unit price when chosen.
CREATE TABLE race_hold_items (
    hold_id TEXT NOT NULL REFERENCES race_holds(id) ON DELETE CASCADE,
    item_id INTEGER NOT NULL REFERENCES race_items(id),
    qty     INTEGER NOT NULL CHECK (qty > 0),
    price   INTEGER NOT NULL,
    PRIMARY KEY (hold_id, item_id)
);
CREATE INDEX race_hold_items_item ON race_hold_items (item_id);
ALTER TABLE race_holds ADD COLUMN team_id INTEGER REFERENCES race_teams(id) ON DELETE SET NULL;
ALTER TABLE race_holds ADD COLUMN donation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE race_registrations ADD COLUMN team_id INTEGER REFERENCES race_teams(id) ON DELETE SET NULL;
ALTER TABLE race_registrations ADD COLUMN donation INTEGER NOT NULL DEFAULT 0;
CREATE INDEX race_registrations_team ON race_registrations (team_id) WHERE team_id IS NOT NULL;
-- The runner's wizard gains pages between the details (1) and the waiver,
-- which moves from step 2 to 5.
UPDATE race_holds SET step = 5 WHERE step = 2;

-- +goose Down
UPDATE race_holds SET step = 2 WHERE step >= 2;
DROP INDEX race_registrations_team;
ALTER TABLE race_registrations DROP COLUMN donation;
ALTER TABLE race_registrations DROP COLUMN team_id;
ALTER TABLE race_holds DROP COLUMN donation;
ALTER TABLE race_holds DROP COLUMN team_id;
DROP TABLE race_hold_items;
DROP TABLE race_items;
DROP TABLE race_teams;
ALTER TABLE race_races DROP COLUMN fundraiser;
ALTER TABLE race_races DROP COLUMN teams;
