-- meshwatch initial schema. Migrations are the only way the schema changes;
-- never edit one that has been applied, add a new file instead.

CREATE TABLE routes (
    id               TEXT PRIMARY KEY NOT NULL,
    name             TEXT NOT NULL,
    servers_per_user INTEGER CHECK (servers_per_user IS NULL OR servers_per_user >= 1)
);

CREATE TABLE servers (
    id               TEXT PRIMARY KEY NOT NULL,
    name             TEXT NOT NULL,
    country          TEXT NOT NULL CHECK (length(country) = 2),
    verifier         INTEGER NOT NULL DEFAULT 0 CHECK (verifier IN (0, 1)),
    agent_token_hash TEXT NOT NULL UNIQUE,
    created_at       TEXT NOT NULL
);

CREATE TABLE server_routes (
    server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    route_id  TEXT NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    PRIMARY KEY (server_id, route_id)
);
CREATE INDEX server_routes_route ON server_routes(route_id);

CREATE TABLE entry_points (
    id        TEXT PRIMARY KEY NOT NULL,
    server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    protocol  TEXT NOT NULL,
    host      TEXT NOT NULL,
    port      INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
    sni       TEXT,
    params    TEXT NOT NULL DEFAULT '{}',
    position  INTEGER NOT NULL
);
CREATE INDEX entry_points_server ON entry_points(server_id);

CREATE TABLE users (
    id             TEXT PRIMARY KEY NOT NULL,
    name           TEXT NOT NULL,
    sub_token_hash TEXT NOT NULL UNIQUE,
    credential     TEXT NOT NULL
);

CREATE TABLE user_routes (
    user_id  TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    route_id TEXT NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (user_id, route_id)
);

CREATE TABLE operators (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY NOT NULL,
    operator_id INTEGER NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions(expires_at);

CREATE TABLE api_tokens (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

-- The verdict parameters of PRODUCT.md §2, one row, with their defaults.
CREATE TABLE settings (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    report_interval_s   INTEGER NOT NULL DEFAULT 60  CHECK (report_interval_s >= 1),
    probe_interval_s    INTEGER NOT NULL DEFAULT 30  CHECK (probe_interval_s >= 1),
    probe_timeout_s     INTEGER NOT NULL DEFAULT 5   CHECK (probe_timeout_s >= 1),
    stale_after_s       INTEGER NOT NULL DEFAULT 180 CHECK (stale_after_s >= 1),
    failure_streak      INTEGER NOT NULL DEFAULT 3   CHECK (failure_streak >= 1),
    quorum              INTEGER NOT NULL DEFAULT 2   CHECK (quorum >= 1),
    unreliable_fraction REAL    NOT NULL DEFAULT 0.5 CHECK (unreliable_fraction > 0 AND unreliable_fraction <= 1),
    notify_email        TEXT
);
INSERT INTO settings (id) VALUES (1);

CREATE TABLE notification_outbox (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('blocked', 'cleared')),
    server_id  TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    recipient  TEXT NOT NULL,
    subject    TEXT NOT NULL,
    body       TEXT NOT NULL,
    state      TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    sent_at    TEXT
);
CREATE INDEX notification_outbox_state ON notification_outbox(state);

CREATE TABLE status_history (
    id         INTEGER PRIMARY KEY,
    server_id  TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    status     TEXT NOT NULL CHECK (status IN ('healthy', 'entry_points_unavailable', 'no_data',
                                               'blocked', 'unreachable', 'unavailable')),
    conditions TEXT NOT NULL DEFAULT '[]',
    at         TEXT NOT NULL
);
CREATE INDEX status_history_server_at ON status_history(server_id, at);
