-- Actions do no harm (PRODUCT.md §6). A run that was running when its
-- panel stopped is recorded as interrupted (never started again by
-- itself); actions that went past their budget switch themselves off and
-- say why; the operator is told of that in the outbox ('actions_off').
-- SQLite cannot change a CHECK constraint in place, so both tables are
-- copied into ones that allow the new values, row for row.
CREATE TABLE action_runs_v2 (
    id              INTEGER PRIMARY KEY,
    action_id       INTEGER NOT NULL,
    action_name     TEXT NOT NULL,
    server_id       TEXT NOT NULL,
    event           TEXT NOT NULL CHECK (event IN ('blocked', 'cleared', 'unavailable', 'unreachable')),
    incident_at     TEXT NOT NULL,
    due_at          TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'running', 'ok', 'failed', 'skipped', 'interrupted')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_until     TEXT,
    started_at      TEXT,
    duration_ms     INTEGER,
    exit_status     INTEGER,
    http_status     INTEGER,
    output          TEXT,
    UNIQUE (action_id, server_id, incident_at)
);
INSERT INTO action_runs_v2
    (id, action_id, action_name, server_id, event, incident_at, due_at, state, attempts,
     lease_until, started_at, duration_ms, exit_status, http_status, output)
SELECT id, action_id, action_name, server_id, event, incident_at, due_at, state, attempts,
       lease_until, started_at, duration_ms, exit_status, http_status, output
FROM action_runs;
DROP TABLE action_runs;
ALTER TABLE action_runs_v2 RENAME TO action_runs;
CREATE INDEX action_runs_due ON action_runs(state, due_at);
CREATE INDEX action_runs_server ON action_runs(server_id, id);

CREATE TABLE notification_outbox_v5 (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('blocked', 'cleared', 'test', 'witness_network', 'actions_off')),
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
INSERT INTO notification_outbox_v5
    (id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
     next_attempt_at, last_error, target, lease_until)
SELECT id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
       next_attempt_at, last_error, target, lease_until
FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_v5 RENAME TO notification_outbox;
CREATE INDEX notification_outbox_state ON notification_outbox(state);

-- The budget: runs across the fleet per hour, and the least time between
-- two runs of one action for one server.
ALTER TABLE settings ADD COLUMN action_runs_per_hour INTEGER NOT NULL DEFAULT 6;
ALTER TABLE settings ADD COLUMN action_cooldown_s INTEGER NOT NULL DEFAULT 21600;
-- Why actions switched themselves off ('budget'); NULL when the operator
-- switched them (or nothing did).
ALTER TABLE settings ADD COLUMN actions_off_reason TEXT;
