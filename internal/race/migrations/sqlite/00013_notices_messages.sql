-- +goose Up
-- A notice may carry what to do next (an invitation's "Take your place",
-- a draw's lottery page): link is a path on the site, shown as a link
-- labelled link_text on the runner's page and made absolute in the mail.
ALTER TABLE race_notices ADD COLUMN link TEXT NOT NULL DEFAULT '';
ALTER TABLE race_notices ADD COLUMN link_text TEXT NOT NULL DEFAULT '';

-- A director's message to an event's registrants, stored once: each
-- runner's notice points to it (message_id; its own body is empty), and
-- each runner's mail is a small job that writes it out when it is sent.
-- base is the origin of the director's request (the mails' links); sent
-- is how many runners it went to.
CREATE TABLE race_messages (
    id         INTEGER PRIMARY KEY,
    race_id    INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    event_id   INTEGER NOT NULL REFERENCES race_events(id) ON DELETE CASCADE,
    user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    subject    TEXT NOT NULL,
    body       TEXT NOT NULL,
    base       TEXT NOT NULL DEFAULT '',
    sent       INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX race_messages_event ON race_messages (event_id, id);
ALTER TABLE race_notices ADD COLUMN message_id INTEGER REFERENCES race_messages(id) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE race_notices DROP COLUMN message_id;
DROP TABLE race_messages;
ALTER TABLE race_notices DROP COLUMN link_text;
ALTER TABLE race_notices DROP COLUMN link;
