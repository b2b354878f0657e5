-- +goose Up
-- Secret keys the site signs with (db.SiteKey), made once by the first
-- instance that needs one and read by every other: a waiting room's
-- tickets, signed on one instance, are checked on another.
CREATE TABLE site_keys (
    name TEXT PRIMARY KEY,
    secret TEXT NOT NULL
);

-- +goose Down
DROP TABLE site_keys;
