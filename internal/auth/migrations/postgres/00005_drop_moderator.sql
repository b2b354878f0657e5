-- +goose Up
-- Moderation is a role now (user_roles, 00004); the column is no longer read.
ALTER TABLE users DROP COLUMN moderator;

-- +goose Down
ALTER TABLE users ADD COLUMN moderator BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE users SET moderator = TRUE WHERE id IN (SELECT user_id FROM user_roles WHERE app = 'roar' AND role = 'moderator');
