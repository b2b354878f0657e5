-- +goose Up
-- Nothing to do: an identity column never gives an id again (SQLite's
-- migration of the same number makes its ids so).
SELECT 1;

-- +goose Down
SELECT 1;
