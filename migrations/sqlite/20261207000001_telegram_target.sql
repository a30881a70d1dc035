-- Telegram joins email and the webhook as a notification target. SQLite
-- cannot change a CHECK constraint in place, so the outbox is copied into
-- a table that allows it, row for row.
CREATE TABLE notification_outbox_v4 (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('blocked', 'cleared', 'test', 'witness_network')),
    server_id       TEXT,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    next_attempt_at TEXT,
    last_error      TEXT,
    target          TEXT NOT NULL DEFAULT 'email' CHECK (target IN ('none', 'email', 'webhook', 'telegram')),
    lease_until     TEXT
);
INSERT INTO notification_outbox_v4
    (id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
     next_attempt_at, last_error, target, lease_until)
SELECT id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
       next_attempt_at, last_error, target, lease_until
FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_v4 RENAME TO notification_outbox;
CREATE INDEX notification_outbox_state ON notification_outbox(state);
