-- Test messages sent from the panel's Notifications page concern no server:
-- the outbox gets the kind 'test' and a nullable server_id (SQLite cannot
-- alter a CHECK constraint, so the table is rebuilt with its rows).
CREATE TABLE notification_outbox_v2 (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('blocked', 'cleared', 'test')),
    server_id       TEXT REFERENCES servers(id) ON DELETE CASCADE,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    next_attempt_at TEXT,
    last_error      TEXT
);
INSERT INTO notification_outbox_v2
    (id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at, next_attempt_at, last_error)
SELECT id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at, next_attempt_at, last_error
FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_v2 RENAME TO notification_outbox;
CREATE INDEX notification_outbox_state ON notification_outbox(state);
