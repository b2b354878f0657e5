-- +goose Up
-- People search (auth.Store.FindPeople, package search): name_key is the
-- username and the display name folded (search.Fold: lower case, no
-- accents, words of letters and digits), written by auth whenever either
-- changes; users_fts is an FTS5 index over it (external content: the
-- words only, the text stays in users), kept in step by the triggers, so
-- that a deleted account leaves the index with its row.
-- Accounts made before this migration get an approximate key (lower case,
-- accents kept) until their profile is next saved.
ALTER TABLE users ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE users SET name_key = trim(lower(username || ' ' || display_name));
CREATE VIRTUAL TABLE users_fts USING fts5 (name_key, content = 'users', content_rowid = 'id', prefix = '2 3', detail = column);
INSERT INTO users_fts (users_fts) VALUES ('rebuild');
-- +goose StatementBegin
CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, name_key) VALUES (new.id, new.name_key);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, name_key) VALUES ('delete', old.id, old.name_key);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_fts_update AFTER UPDATE OF name_key ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, name_key) VALUES ('delete', old.id, old.name_key);
    INSERT INTO users_fts (rowid, name_key) VALUES (new.id, new.name_key);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER users_fts_update;
DROP TRIGGER users_fts_delete;
DROP TRIGGER users_fts_insert;
DROP TABLE users_fts;
ALTER TABLE users DROP COLUMN name_key;
