-- +goose Up
-- "Which of these did I repost?" (a range of repost_of for one author).
-- IF NOT EXISTS: databases created while 00001 briefly held this index
-- already have it.
CREATE INDEX IF NOT EXISTS roars_author_repost ON roars (author_id, repost_of) WHERE repost_of IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS roars_author_repost;
