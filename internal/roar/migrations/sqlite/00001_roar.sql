-- +goose Up
CREATE TABLE roars (
    id         INTEGER PRIMARY KEY,
    author_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body       TEXT NOT NULL DEFAULT '',
    reply_to   INTEGER REFERENCES roars(id) ON DELETE SET NULL,
    repost_of  INTEGER REFERENCES roars(id) ON DELETE CASCADE,
    likes      INTEGER NOT NULL DEFAULT 0,
    replies    INTEGER NOT NULL DEFAULT 0,
    reposts    INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX roars_author ON roars (author_id, id);
CREATE INDEX roars_reply_to ON roars (reply_to, id) WHERE reply_to IS NOT NULL;
CREATE UNIQUE INDEX roars_repost ON roars (repost_of, author_id) WHERE repost_of IS NOT NULL;
CREATE TABLE roar_likes (
    roar_id    INTEGER NOT NULL REFERENCES roars(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (roar_id, user_id)
);
CREATE INDEX roar_likes_user ON roar_likes (user_id, roar_id);
CREATE TABLE roar_tags (
    tag     TEXT NOT NULL,
    roar_id INTEGER NOT NULL REFERENCES roars(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, roar_id)
);
CREATE INDEX roar_tags_roar ON roar_tags (roar_id);
CREATE TABLE roar_follows (
    follower_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    followee_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (follower_id, followee_id),
    CHECK (follower_id <> followee_id)
);
CREATE INDEX roar_follows_followee ON roar_follows (followee_id, follower_id);
CREATE TABLE roar_blocks (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('block', 'mute')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, target_id),
    CHECK (user_id <> target_id)
);
CREATE INDEX roar_blocks_target ON roar_blocks (target_id, kind);
CREATE TABLE roar_notifications (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('mention', 'reply', 'like', 'follow', 'repost')),
    actor_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    roar_id    INTEGER REFERENCES roars(id) ON DELETE CASCADE,
    seen       INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX roar_notifications_user ON roar_notifications (user_id, id);
CREATE INDEX roar_notifications_unseen ON roar_notifications (user_id) WHERE seen = 0;
CREATE TABLE roar_reports (
    id          INTEGER PRIMARY KEY,
    roar_id     INTEGER NOT NULL REFERENCES roars(id) ON DELETE CASCADE,
    reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    UNIQUE (roar_id, reporter_id)
);
-- One row: the version of everything the timelines show, raised by every
-- batch of writes; it keys the caches (cluster mode reads it per request).
CREATE TABLE roar_meta (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO roar_meta (id, version) VALUES (1, 1);

-- +goose Down
DROP TABLE roar_meta;
DROP TABLE roar_reports;
DROP TABLE roar_notifications;
DROP TABLE roar_blocks;
DROP TABLE roar_follows;
DROP TABLE roar_tags;
DROP TABLE roar_likes;
DROP TABLE roars;
