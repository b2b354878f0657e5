-- +goose Up
-- A post shares a song or a playlist by link (kind 'link': url), or, once
-- uploads come, an audio (kind 'audio': media_id, the core's media row; no
-- foreign key yet: that table is not there), or reposts another post to
-- the reposter's friends (repost_of). likes, comments and reposts are the
-- counts a card shows, kept in the writes' transactions; changed_at is the
-- post's last change (a like, a comment, comments turned off), which keys
-- its cached card.
CREATE TABLE music_posts (
    id           INTEGER PRIMARY KEY,
    author_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL DEFAULT 'link' CHECK (kind IN ('link', 'audio')),
    url          TEXT NOT NULL DEFAULT '',
    comment      TEXT NOT NULL DEFAULT '',
    visibility   TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'friends')),
    media_id     INTEGER,
    repost_of    INTEGER REFERENCES music_posts(id) ON DELETE CASCADE,
    comments_off INTEGER NOT NULL DEFAULT 0,
    likes        INTEGER NOT NULL DEFAULT 0,
    comments     INTEGER NOT NULL DEFAULT 0,
    reposts      INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    changed_at   INTEGER NOT NULL,
    CHECK (repost_of IS NOT NULL OR (kind = 'link' AND url <> '') OR (kind = 'audio' AND media_id IS NOT NULL))
);
CREATE INDEX music_posts_author ON music_posts (author_id, id);
CREATE UNIQUE INDEX music_posts_repost ON music_posts (repost_of, author_id) WHERE repost_of IS NOT NULL;
CREATE TABLE music_comments (
    id         INTEGER PRIMARY KEY,
    post_id    INTEGER NOT NULL REFERENCES music_posts(id) ON DELETE CASCADE,
    author_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX music_comments_post ON music_comments (post_id, id);
CREATE INDEX music_comments_author ON music_comments (author_id);
CREATE TABLE music_likes (
    post_id    INTEGER NOT NULL REFERENCES music_posts(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX music_likes_user ON music_likes (user_id, post_id);
CREATE TABLE music_tags (
    tag     TEXT NOT NULL,
    post_id INTEGER NOT NULL REFERENCES music_posts(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, post_id)
);
CREATE INDEX music_tags_post ON music_tags (post_id);
-- Trending (tags.Trending): the public posts' tags only.
CREATE TABLE music_tag_uses (
    tag    TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    uses   INTEGER NOT NULL,
    PRIMARY KEY (tag, bucket)
);
CREATE INDEX music_tag_uses_bucket ON music_tag_uses (bucket);
CREATE TABLE music_friends (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    friend_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, friend_id),
    CHECK (user_id <> friend_id)
);
CREATE INDEX music_friends_friend ON music_friends (friend_id);
CREATE TABLE music_friend_requests (
    from_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    to_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (from_id, to_id),
    CHECK (from_id <> to_id)
);
CREATE INDEX music_friend_requests_to ON music_friend_requests (to_id, created_at);
CREATE TABLE music_blocks (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('block', 'mute')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, target_id),
    CHECK (user_id <> target_id)
);
CREATE INDEX music_blocks_target ON music_blocks (target_id, kind);
CREATE TABLE music_notifications (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('comment', 'like', 'repost', 'friend_request', 'friend_accept')),
    actor_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id    INTEGER REFERENCES music_posts(id) ON DELETE CASCADE,
    seen       INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX music_notifications_user ON music_notifications (user_id, id);
CREATE INDEX music_notifications_unseen ON music_notifications (user_id) WHERE seen = 0;
CREATE INDEX music_notifications_actor ON music_notifications (actor_id);
CREATE INDEX music_notifications_post ON music_notifications (post_id) WHERE post_id IS NOT NULL;
CREATE TABLE music_reports (
    id          INTEGER PRIMARY KEY,
    post_id     INTEGER NOT NULL REFERENCES music_posts(id) ON DELETE CASCADE,
    reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    UNIQUE (post_id, reporter_id)
);
-- One row: the version of what visitors' cached pages show, raised by
-- every write they could see.
CREATE TABLE music_meta (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO music_meta (id, version) VALUES (1, 1);

-- +goose Down
DROP TABLE music_meta;
DROP TABLE music_reports;
DROP TABLE music_notifications;
DROP TABLE music_blocks;
DROP TABLE music_friend_requests;
DROP TABLE music_friends;
DROP TABLE music_tag_uses;
DROP TABLE music_tags;
DROP TABLE music_likes;
DROP TABLE music_comments;
DROP TABLE music_posts;
