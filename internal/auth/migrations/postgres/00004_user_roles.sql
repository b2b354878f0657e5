-- +goose Up
-- The roles the apps declare (module.Module.Roles), granted per user: one
-- row per (user, app, role). roar's moderators, until now the users table's
-- moderator column, become ('roar', 'moderator').
CREATE TABLE user_roles (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    app        TEXT NOT NULL,
    role       TEXT NOT NULL,
    granted_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, app, role)
);
CREATE INDEX user_roles_holders ON user_roles (app, role, user_id);
INSERT INTO user_roles (user_id, app, role, granted_at)
    SELECT id, 'roar', 'moderator', updated_at FROM users WHERE moderator;

-- +goose Down
DROP TABLE user_roles;
