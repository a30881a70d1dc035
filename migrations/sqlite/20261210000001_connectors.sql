-- Connected panels (PRODUCT.md §7): the panels whose hosts meshwatch turns
-- off and back on. The token is sealed with the panel's key, bound to the
-- connector's id. `hosts` and `pending` are the last sync's matched hosts
-- and planned changes (JSON), so that every replica shows the same.
CREATE TABLE connectors (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('remnawave', 'pasarguard', 'marzneshin', 'marzban', '3x-ui')),
    url           TEXT NOT NULL,
    token         TEXT NOT NULL,
    tag           TEXT,
    mode          TEXT NOT NULL CHECK (mode IN ('apply', 'dry_run')),
    state         TEXT NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'error', 'removing')),
    last_sync_at  TEXT,
    last_error    TEXT,
    -- Since when syncs fail (NULL while they succeed): one message per outage.
    failing_since TEXT,
    hosts         TEXT NOT NULL DEFAULT '[]',
    pending       TEXT NOT NULL DEFAULT '[]',
    created_at    TEXT NOT NULL
);

-- The hosts meshwatch turned off, and why: only these are ever turned back
-- on. A row is written before the panel is asked (confirmed = 0) and
-- confirmed after it answered, so a panel that stops in between (or an
-- evaluator failover) neither loses nor repeats the change.
CREATE TABLE connector_hosts_off (
    connector_id   TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
    external_id    TEXT NOT NULL,
    server_id      TEXT NOT NULL,
    entry_point_id TEXT NOT NULL,
    status         TEXT NOT NULL,
    since          TEXT NOT NULL,
    confirmed      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (connector_id, external_id)
);
-- The server card's "Hidden in …" line.
CREATE INDEX connector_hosts_off_server ON connector_hosts_off(server_id);

-- The operator is told once per outage of a connector ('connector_failed').
CREATE TABLE notification_outbox_v6 (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('blocked', 'cleared', 'test', 'witness_network', 'actions_off', 'connector_failed')),
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
INSERT INTO notification_outbox_v6
    (id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
     next_attempt_at, last_error, target, lease_until)
SELECT id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at,
       next_attempt_at, last_error, target, lease_until
FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_v6 RENAME TO notification_outbox;
CREATE INDEX notification_outbox_state ON notification_outbox(state);
