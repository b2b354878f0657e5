-- +goose Up
-- Discount and early-access codes of a race. A use is claimed as a place
-- is, by one conditional UPDATE (max_uses 0: unlimited), when a runner
-- applies the code to a hold, and given back when the hold is released or
-- its registration cancelled. percent is off the entry's price; early lets
-- its holder register before an event opens.
CREATE TABLE race_codes (
    id         INTEGER PRIMARY KEY,
    race_id    INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    code       TEXT NOT NULL,
    percent    INTEGER NOT NULL DEFAULT 0,
    early      INTEGER NOT NULL DEFAULT 0,
    max_uses   INTEGER NOT NULL DEFAULT 0,
    used       INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    UNIQUE (race_id, code),
    CHECK (percent >= 0 AND percent <= 100),
    CHECK (used >= 0 AND (max_uses = 0 OR used <= max_uses))
);
-- The code a hold uses, and what it takes off (fixed when applied).
ALTER TABLE race_holds ADD COLUMN code_id INTEGER REFERENCES race_codes(id);
ALTER TABLE race_holds ADD COLUMN discount INTEGER NOT NULL DEFAULT 0;
CREATE INDEX race_holds_code ON race_holds (code_id) WHERE code_id IS NOT NULL;

-- +goose Down
DROP INDEX race_holds_code;
ALTER TABLE race_holds DROP COLUMN discount;
ALTER TABLE race_holds DROP COLUMN code_id;
DROP TABLE race_codes;
