-- +goose Up
-- Uploaded files (internal/media): an original (parent_id NULL, its key
-- under private/) and the files derived from it by a job (parent_id its
-- original, variant the derivation's name). An app refers to an original
-- by its id, or by (kind, ref): the thing it belongs to (a user, a race).
CREATE TABLE media_files (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    parent_id  INTEGER REFERENCES media_files (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    variant    TEXT NOT NULL DEFAULT '',
    ref        INTEGER NOT NULL DEFAULT 0,
    owner_id   INTEGER,
    key        TEXT NOT NULL UNIQUE,
    size       INTEGER NOT NULL,
    type       TEXT NOT NULL,
    sha256     TEXT NOT NULL DEFAULT '',
    status     TEXT NOT NULL DEFAULT 'pending',
    meta       TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    CHECK (status IN ('pending', 'ready', 'failed'))
);
CREATE INDEX media_files_ref ON media_files (kind, ref, id) WHERE parent_id IS NULL;
CREATE UNIQUE INDEX media_files_variant ON media_files (parent_id, variant) WHERE parent_id IS NOT NULL;
CREATE INDEX media_files_pending ON media_files (status) WHERE status = 'pending';

-- +goose Down
DROP TABLE media_files;
