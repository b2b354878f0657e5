-- +goose Up
-- Sessions deleted while Redis (the session store in cluster mode) could not
-- be reached: their copy there would still sign in once it answers, so a
-- signed-in request is refused when its session is listed here (keyed, like
-- the store, by a hash of the token). A row is kept until its session is
-- idle too long to sign in anyway (expiry).
CREATE TABLE session_revocations (
    token  TEXT PRIMARY KEY,
    expiry INTEGER NOT NULL
);
CREATE INDEX session_revocations_expiry ON session_revocations (expiry);

-- +goose Down
DROP TABLE session_revocations;
