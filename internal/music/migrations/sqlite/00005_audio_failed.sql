-- +goose Up
-- music_posts.failed is 1 for an audio post whose file the server could
-- not read (its waveform job refused it, or gave up): the post stays
-- ready = 0 (its author's only) and shows them "could not read this
-- audio" with a delete button instead of "processing" forever.
ALTER TABLE music_posts ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE music_posts DROP COLUMN failed;
