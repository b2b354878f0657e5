-- +goose Up
-- The site's operators: who may see the jobs and the mail written to disk.
CREATE TABLE operators (
    user_id    BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE operators;
