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
