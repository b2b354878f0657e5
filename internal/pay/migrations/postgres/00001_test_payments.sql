-- +goose Up
-- The built-in test gateway's ledger (pay.Test): what a payment processor
-- would keep on its side, one row per idempotency key. It outlives the
-- process, as a processor's records do, so a crash test can match every
-- charge with what was bought.
CREATE TABLE pay_test_payments (
    id         TEXT PRIMARY KEY,
    idem_key   TEXT NOT NULL UNIQUE,
    amount     BIGINT NOT NULL,
    refunded   BIGINT NOT NULL DEFAULT 0,
    currency   TEXT NOT NULL,
    method     TEXT NOT NULL,
    outcome    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE TABLE pay_test_refunds (
    idem_key   TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL REFERENCES pay_test_payments (id),
    amount     BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE pay_test_refunds;
DROP TABLE pay_test_payments;
