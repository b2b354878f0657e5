-- +goose Up
-- The writer, the sweeper and the settler each look for holds in one
-- status, oldest first. race_holds_status could not serve them on SQLite
-- (a query's status = 'paid' does not prove the index's IN list there),
-- so every pass scanned the table: with 50,000 holds, half the server's
-- core during a rush. One small partial index a queue, in its order.
CREATE INDEX race_holds_paid ON race_holds (paid_at) WHERE status = 'paid';
CREATE INDEX race_holds_open ON race_holds (expires_at) WHERE status = 'open';
CREATE INDEX race_holds_paying ON race_holds (paying_at) WHERE status = 'paying';
DROP INDEX race_holds_status;

-- +goose Down
CREATE INDEX race_holds_status ON race_holds (status, expires_at) WHERE status IN ('open', 'paying', 'paid');
DROP INDEX race_holds_paying;
DROP INDEX race_holds_open;
DROP INDEX race_holds_paid;
