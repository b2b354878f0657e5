-- +goose Up
-- A private share link of a friends-only post (share.go): whoever has
-- /music/s/{token} sees that one post. token is 32 random bytes in
-- base64url, the link's only secret; one link a post at most; revoking
-- deletes the row, and the link is not found from then on. A deleted post
-- takes its link with it.
CREATE TABLE music_share_links (
    post_id    INTEGER PRIMARY KEY REFERENCES music_posts(id) ON DELETE CASCADE,
    token      TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE music_share_links;
