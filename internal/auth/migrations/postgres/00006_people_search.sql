-- +goose Up
-- People search (auth.Store.FindPeople, package search): name_key is the
-- username and the display name folded (search.Fold: lower case, no
-- accents, words of letters and digits), written by auth whenever either
-- changes. name_words is its words as lexemes, taken as they are (no
-- parser, no dictionary; stored, never an unaccent() expression: 32 ms
-- instead of under one), and the GIN index answers a word's start
-- ('zo':*) from it. A deleted account's row, and so its words, are gone.
-- Accounts made before this migration get an approximate key (lower case,
-- accents kept) until their profile is next saved.
ALTER TABLE users ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE users SET name_key = trim(regexp_replace(lower(replace(replace(username || ' ' || display_name, '''', ''), '’', '')), '[^[:alnum:]]+', ' ', 'g'));
ALTER TABLE users ADD COLUMN name_words tsvector
    GENERATED ALWAYS AS (array_to_tsvector(array_remove(string_to_array(name_key, ' '), ''))) STORED;
CREATE INDEX users_name_words ON users USING gin (name_words) WITH (fastupdate = off);

-- +goose Down
DROP INDEX users_name_words;
ALTER TABLE users DROP COLUMN name_words;
ALTER TABLE users DROP COLUMN name_key;
