-- +goose Up
CREATE TABLE meet_polls (
    id           TEXT PRIMARY KEY,
    admin_token  TEXT NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    start_date   TEXT NOT NULL,
    end_date     TEXT NOT NULL,
    day_start    INTEGER NOT NULL,
    day_end      INTEGER NOT NULL,
    tz           TEXT NOT NULL,
    deadline     BIGINT,
    closed_start BIGINT,
    closed_end   BIGINT,
    version      BIGINT NOT NULL DEFAULT 1,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    CHECK (start_date <= end_date),
    CHECK (day_start < day_end)
);
CREATE TABLE meet_participants (
    id         BIGSERIAL PRIMARY KEY,
    poll_id    TEXT NOT NULL REFERENCES meet_polls(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    edit_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (poll_id, name_key)
);
CREATE INDEX meet_participants_poll ON meet_participants (poll_id, id);
CREATE TABLE meet_timeframes (
    id             BIGSERIAL PRIMARY KEY,
    poll_id        TEXT NOT NULL REFERENCES meet_polls(id) ON DELETE CASCADE,
    participant_id BIGINT NOT NULL REFERENCES meet_participants(id) ON DELETE CASCADE,
    start_at       BIGINT NOT NULL,
    end_at         BIGINT NOT NULL,
    tier           INTEGER NOT NULL CHECK (tier BETWEEN 1 AND 3),
    CHECK (start_at < end_at)
);
CREATE INDEX meet_timeframes_poll ON meet_timeframes (poll_id, participant_id, start_at);
CREATE INDEX meet_timeframes_participant ON meet_timeframes (participant_id, start_at);
CREATE TABLE meet_comments (
    id             BIGSERIAL PRIMARY KEY,
    poll_id        TEXT NOT NULL REFERENCES meet_polls(id) ON DELETE CASCADE,
    participant_id BIGINT NOT NULL REFERENCES meet_participants(id) ON DELETE CASCADE,
    body           TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);
CREATE INDEX meet_comments_poll ON meet_comments (poll_id, id);
CREATE INDEX meet_comments_participant ON meet_comments (participant_id, id);
CREATE TABLE meet_busy (
    participant_id BIGINT NOT NULL REFERENCES meet_participants(id) ON DELETE CASCADE,
    start_at       BIGINT NOT NULL,
    end_at         BIGINT NOT NULL
);
CREATE INDEX meet_busy_participant ON meet_busy (participant_id, start_at);

-- +goose Down
DROP TABLE meet_busy;
DROP TABLE meet_comments;
DROP TABLE meet_timeframes;
DROP TABLE meet_participants;
DROP TABLE meet_polls;
