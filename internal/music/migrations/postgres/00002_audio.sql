-- +goose Up
-- Audio posts (kind 'audio', the file a media_files row of kind
-- 'music-audio', its ref the post's id):
--   duration_ms  the audio's length in milliseconds, read from the file
--                (0 until it is processed);
--   peaks        the waveform: one byte a bar, 0-255 (loudest), about 200
--                bars, as BYTEA (a Go []byte); NULL until processed;
--   plays        how many listens, counted by POST /music/p/{id}/play;
--   ready        1 once the file is processed (always 1 for a link post);
--                a post with ready = 0 is shown to its author only, as
--                "processing".
-- music_comments.at_ms pins a comment to a moment of the audio, in
-- milliseconds from its start (NULL: not pinned).
ALTER TABLE music_posts ADD COLUMN duration_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE music_posts ADD COLUMN peaks BYTEA;
ALTER TABLE music_posts ADD COLUMN plays BIGINT NOT NULL DEFAULT 0;
ALTER TABLE music_posts ADD COLUMN ready BIGINT NOT NULL DEFAULT 1;
ALTER TABLE music_comments ADD COLUMN at_ms BIGINT;
-- The audio timeline (GET /music/audio): audio posts, newest first.
CREATE INDEX music_posts_audio ON music_posts (id) WHERE kind = 'audio';

-- +goose Down
DROP INDEX music_posts_audio;
ALTER TABLE music_comments DROP COLUMN at_ms;
ALTER TABLE music_posts DROP COLUMN ready;
ALTER TABLE music_posts DROP COLUMN plays;
ALTER TABLE music_posts DROP COLUMN peaks;
ALTER TABLE music_posts DROP COLUMN duration_ms;
