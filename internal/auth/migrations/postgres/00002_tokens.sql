-- +goose Up
-- One-time tokens mailed to users: password resets and e-mail changes. Only
-- a SHA-256 of the token is kept; a leaked table holds no usable link.
CREATE TABLE auth_tokens (
    hash       TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('reset', 'email')),
    email      TEXT NOT NULL DEFAULT '',
    expires_at BIGINT NOT NULL,
    used_at    BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
CREATE INDEX auth_tokens_user ON auth_tokens (user_id, purpose);

-- +goose Down
DROP TABLE auth_tokens;
