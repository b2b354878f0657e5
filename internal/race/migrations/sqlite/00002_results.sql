-- +goose Up
-- Results: an event's finishers, imported from a director's CSV file; an
-- import replaces the event's rows. results_count is how many there are
-- (the pages of the list); runners see them once results_published_at is
-- set.
ALTER TABLE race_events ADD COLUMN results_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE race_events ADD COLUMN results_published_at INTEGER;
-- pos numbers an event's results 1..n in the order they are listed (place,
-- time, then the file's order), so a page is a seek on (event_id, pos) at
-- any depth. name_key is the name folded for search (text.Fold: lower
-- case, no accents; words of letters and digits). age 0: not given.
CREATE TABLE race_results (
    id        INTEGER PRIMARY KEY,
    event_id  INTEGER NOT NULL REFERENCES race_events(id) ON DELETE CASCADE,
    pos       INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    bib       INTEGER NOT NULL,
    name      TEXT NOT NULL,
    name_key  TEXT NOT NULL,
    gender    TEXT NOT NULL DEFAULT '',
    age       INTEGER NOT NULL DEFAULT 0,
    city      TEXT NOT NULL DEFAULT '',
    time_ms   INTEGER NOT NULL,
    UNIQUE (event_id, pos),
    UNIQUE (event_id, bib)
);
-- Name search: each word's start ("zo"*), within one event (ev is 'e' and
-- the event's id, matched as its own column). Kept by the triggers; rowids
-- are the results' ids, which follow pos within an event (an import
-- inserts its rows in that order in one transaction), so the index's own
-- order is the list's and a LIMIT stops early.
CREATE VIRTUAL TABLE race_results_fts USING fts5 (name_key, ev, prefix = '2 3', detail = column);
-- +goose StatementBegin
CREATE TRIGGER race_results_fts_insert AFTER INSERT ON race_results BEGIN
    INSERT INTO race_results_fts (rowid, name_key, ev) VALUES (new.id, new.name_key, 'e' || new.event_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER race_results_fts_delete AFTER DELETE ON race_results BEGIN
    DELETE FROM race_results_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER race_results_fts_update AFTER UPDATE OF name_key, event_id ON race_results BEGIN
    DELETE FROM race_results_fts WHERE rowid = old.id;
    INSERT INTO race_results_fts (rowid, name_key, ev) VALUES (new.id, new.name_key, 'e' || new.event_id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER race_results_fts_update;
DROP TRIGGER race_results_fts_delete;
DROP TRIGGER race_results_fts_insert;
DROP TABLE race_results_fts;
DROP TABLE race_results;
ALTER TABLE race_events DROP COLUMN results_published_at;
ALTER TABLE race_events DROP COLUMN results_count;
