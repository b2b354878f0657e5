-- +goose Up
-- The discovery page (my friends' posts and mine) takes its page's ids
-- from the indexes alone: a friend's post counts once it is ready, so the
-- ids of ready posts by author, newest last. Without it, a person with
-- 1,000 friends made the database sort every one of their posts' whole
-- rows to show ten (0.57 s on the seed's SQLite; 0.04 s with it).
CREATE INDEX music_posts_ready_author ON music_posts (author_id, id) WHERE ready = 1;

-- +goose Down
DROP INDEX music_posts_ready_author;
