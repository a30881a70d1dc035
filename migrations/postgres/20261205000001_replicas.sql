-- Several panel replicas on one database.

-- A replica delivering a notification holds it for a while (a lease,
-- taken with FOR UPDATE SKIP LOCKED), so that no other replica sends it
-- as well; one that dies mid-send lets the lease run out.
ALTER TABLE notification_outbox ADD COLUMN lease_until TIMESTAMPTZ;

-- The evaluating replica's term. Whoever takes the evaluator's advisory
-- lock raises it; every write only the evaluator may make checks it (a
-- fencing token), so a replica that lost the lock without knowing it yet
-- writes nothing.
CREATE TABLE evaluator_lease (
    id      BIGINT PRIMARY KEY CHECK (id = 1),
    term    BIGINT NOT NULL,
    replica TEXT COLLATE "C" NOT NULL DEFAULT '',
    since   TIMESTAMPTZ
);
INSERT INTO evaluator_lease (id, term) VALUES (1, 0);

-- The sign-in limiter, shared by the replicas (see server/src/login_limit):
-- failure windows and the addresses operators signed in from, by keyed
-- 64-bit hashes of (username, address) and the like (never the names);
-- times in tenths of a second since 2026-01-01.
CREATE TABLE login_windows (
    slot         BIGINT PRIMARY KEY,
    kind         SMALLINT NOT NULL DEFAULT 0,
    failures     INTEGER NOT NULL DEFAULT 0,
    started      BIGINT NOT NULL DEFAULT 0,
    next_allowed BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX login_windows_started ON login_windows(started);
CREATE TABLE login_known (
    slot BIGINT PRIMARY KEY,
    at   BIGINT NOT NULL
);
