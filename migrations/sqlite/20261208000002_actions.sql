-- Actions (PRODUCT.md §6): commands or HTTP calls the operator has run on
-- an event, and their runs, one per action, server and incident.
CREATE TABLE actions (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    event         TEXT NOT NULL CHECK (event IN ('blocked', 'cleared', 'unavailable', 'unreachable')),
    after_minutes INTEGER NOT NULL DEFAULT 0 CHECK (after_minutes >= 0),
    -- Exactly one of the two, as JSON: the argv, or the HTTP call.
    command       TEXT,
    http          TEXT,
    created_at    TEXT NOT NULL,
    CHECK ((command IS NULL) <> (http IS NULL))
);

-- A run outlives its action (the server's history keeps it, by name).
CREATE TABLE action_runs (
    id              INTEGER PRIMARY KEY,
    action_id       INTEGER NOT NULL,
    action_name     TEXT NOT NULL,
    server_id       TEXT NOT NULL,
    event           TEXT NOT NULL CHECK (event IN ('blocked', 'cleared', 'unavailable', 'unreachable')),
    incident_at     TEXT NOT NULL,
    due_at          TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'running', 'ok', 'failed', 'skipped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_until     TEXT,
    started_at      TEXT,
    duration_ms     INTEGER,
    exit_status     INTEGER,
    http_status     INTEGER,
    output          TEXT,
    UNIQUE (action_id, server_id, incident_at)
);
CREATE INDEX action_runs_due ON action_runs(state, due_at);
CREATE INDEX action_runs_server ON action_runs(server_id, id);

-- The switch that holds every action off (e.g. during an incident).
ALTER TABLE settings ADD COLUMN actions_enabled INTEGER NOT NULL DEFAULT 1;
