-- +goose Up
-- Moderation is a role now (user_roles, 00004); the column is no longer read.
ALTER TABLE users DROP COLUMN moderator;

-- +goose Down
ALTER TABLE users ADD COLUMN moderator INTEGER NOT NULL DEFAULT 0;
UPDATE users SET moderator = 1 WHERE id IN (SELECT user_id FROM user_roles WHERE app = 'roar' AND role = 'moderator');
