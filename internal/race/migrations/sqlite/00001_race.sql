-- +goose Up
-- A race and its directors. version is the race's cache stamp
-- (internal/version): every edit raises it. next_bib is the next bib
-- number the registration writer hands out (bibs are unique in a race).
CREATE TABLE race_races (
    id           INTEGER PRIMARY KEY,
    slug         TEXT NOT NULL UNIQUE,
    owner_id     INTEGER NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    location     TEXT NOT NULL DEFAULT '',
    race_date    TEXT NOT NULL,
    tz           TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    info         TEXT NOT NULL DEFAULT '',
    waiver       TEXT NOT NULL DEFAULT '',
    logo         TEXT NOT NULL DEFAULT '',
    currency     TEXT NOT NULL DEFAULT 'usd',
    published_at INTEGER,
    next_bib     INTEGER NOT NULL DEFAULT 1,
    version      INTEGER NOT NULL DEFAULT 1,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE INDEX race_races_date ON race_races (race_date, id);
CREATE TABLE race_directors (
    race_id    INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (race_id, user_id)
);
CREATE INDEX race_directors_user ON race_directors (user_id, race_id);
-- An event of a race (the 10K, the marathon). taken counts its confirmed
-- registrations and the places held for runners in the wizard; the claim of
-- a place is one conditional UPDATE (taken < cap), and the CHECK is the
-- last line of defence against an oversell.
CREATE TABLE race_events (
    id          INTEGER PRIMARY KEY,
    race_id     INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    starts_at   INTEGER NOT NULL,
    opens_at    INTEGER NOT NULL,
    closes_at   INTEGER NOT NULL,
    price       INTEGER NOT NULL,
    cap         INTEGER NOT NULL,
    taken       INTEGER NOT NULL DEFAULT 0,
    confirmed   INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    CHECK (price >= 0),
    CHECK (cap > 0),
    CHECK (taken >= 0 AND taken <= cap),
    CHECK (confirmed >= 0 AND confirmed <= taken),
    CHECK (opens_at < closes_at)
);
CREATE INDEX race_events_race ON race_events (race_id, starts_at, id);
-- A runner's place in an event while they fill the wizard, and the wizard's
-- answers. status: open (filling; released after expires_at), paying (the
-- charge is under way), paid (the durable hand-off: the registration writer
-- turns paid holds into registrations in batches), done (written),
-- released (expired, abandoned or refused: the place went back). attempt
-- counts declined charges: each attempt has its own idempotency key.
CREATE TABLE race_holds (
    id           TEXT PRIMARY KEY,
    event_id     INTEGER NOT NULL REFERENCES race_events(id) ON DELETE CASCADE,
    race_id      INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status       TEXT NOT NULL CHECK (status IN ('open', 'paying', 'paid', 'done', 'released')),
    expires_at   INTEGER NOT NULL,
    first_name   TEXT NOT NULL DEFAULT '',
    last_name    TEXT NOT NULL DEFAULT '',
    email        TEXT NOT NULL DEFAULT '',
    birth_date   TEXT NOT NULL DEFAULT '',
    gender       TEXT NOT NULL DEFAULT '',
    city         TEXT NOT NULL DEFAULT '',
    emergency    TEXT NOT NULL DEFAULT '',
    step         INTEGER NOT NULL DEFAULT 0,
    waiver_at    INTEGER,
    amount       INTEGER NOT NULL DEFAULT 0,
    payment_id   TEXT NOT NULL DEFAULT '',
    attempt      INTEGER NOT NULL DEFAULT 0,
    paying_at    INTEGER,
    paid_at      INTEGER,
    created_at   INTEGER NOT NULL
);
-- One live hold per runner and event: a second "register" finds the first.
CREATE UNIQUE INDEX race_holds_live ON race_holds (event_id, user_id) WHERE status IN ('open', 'paying', 'paid');
CREATE INDEX race_holds_status ON race_holds (status, expires_at) WHERE status IN ('open', 'paying', 'paid');
CREATE INDEX race_holds_user ON race_holds (user_id, created_at);
-- A confirmed (or later cancelled) registration, written from its hold
-- exactly once (hold_id is unique).
CREATE TABLE race_registrations (
    id           INTEGER PRIMARY KEY,
    hold_id      TEXT NOT NULL UNIQUE,
    race_id      INTEGER NOT NULL REFERENCES race_races(id) ON DELETE CASCADE,
    event_id     INTEGER NOT NULL REFERENCES race_events(id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bib          INTEGER NOT NULL,
    first_name   TEXT NOT NULL,
    last_name    TEXT NOT NULL,
    name_key     TEXT NOT NULL,
    email        TEXT NOT NULL,
    birth_date   TEXT NOT NULL,
    gender       TEXT NOT NULL,
    city         TEXT NOT NULL,
    emergency    TEXT NOT NULL,
    amount       INTEGER NOT NULL,
    payment_id   TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled')),
    refunded     INTEGER NOT NULL DEFAULT 0,
    checked_in_at INTEGER,
    created_at   INTEGER NOT NULL,
    cancelled_at INTEGER,
    UNIQUE (race_id, bib)
);
CREATE UNIQUE INDEX race_registrations_runner ON race_registrations (event_id, user_id) WHERE status = 'confirmed';
CREATE INDEX race_registrations_event ON race_registrations (event_id, id);
CREATE INDEX race_registrations_name ON race_registrations (event_id, name_key);
CREATE INDEX race_registrations_user ON race_registrations (user_id, id);

-- +goose Down
DROP TABLE race_registrations;
DROP TABLE race_holds;
DROP TABLE race_events;
DROP TABLE race_directors;
DROP TABLE race_races;
