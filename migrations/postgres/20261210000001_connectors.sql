-- Connected panels (PRODUCT.md §7): the panels whose hosts meshwatch turns
-- off and back on. The token is sealed with the panel's key, bound to the
-- connector's id. `hosts` and `pending` are the last sync's matched hosts
-- and planned changes (JSON), so that every replica shows the same.
CREATE TABLE connectors (
    id            TEXT COLLATE "C" PRIMARY KEY,
    kind          TEXT COLLATE "C" NOT NULL CHECK (kind IN ('remnawave', 'pasarguard', 'marzneshin', 'marzban', '3x-ui')),
    url           TEXT COLLATE "C" NOT NULL,
    token         TEXT COLLATE "C" NOT NULL,
    tag           TEXT COLLATE "C",
    mode          TEXT COLLATE "C" NOT NULL CHECK (mode IN ('apply', 'dry_run')),
    state         TEXT COLLATE "C" NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'error', 'removing')),
    last_sync_at  TIMESTAMPTZ,
    last_error    TEXT COLLATE "C",
    -- Since when syncs fail (NULL while they succeed): one message per outage.
    failing_since TIMESTAMPTZ,
    hosts         TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    pending       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    created_at    TIMESTAMPTZ NOT NULL
);

-- The hosts meshwatch turned off, and why: only these are ever turned back
-- on. A row is written before the panel is asked (confirmed = FALSE) and
-- confirmed after it answered, so a panel that stops in between (or an
-- evaluator failover) neither loses nor repeats the change.
CREATE TABLE connector_hosts_off (
    connector_id   TEXT COLLATE "C" NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
    external_id    TEXT COLLATE "C" NOT NULL,
    server_id      TEXT COLLATE "C" NOT NULL,
    entry_point_id TEXT COLLATE "C" NOT NULL,
    status         TEXT COLLATE "C" NOT NULL,
    since          TIMESTAMPTZ NOT NULL,
    confirmed      BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (connector_id, external_id)
);
-- The server card's "Hidden in …" line.
CREATE INDEX connector_hosts_off_server ON connector_hosts_off(server_id);

-- The operator is told once per outage of a connector ('connector_failed').
ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_kind_check;
ALTER TABLE notification_outbox ADD CONSTRAINT notification_outbox_kind_check
    CHECK (kind IN ('blocked', 'cleared', 'test', 'witness_network', 'actions_off', 'connector_failed'));
