-- Maintenance windows (PRODUCT.md §6). The servers and routes a window
-- names are kept as JSON arrays of ids: a window outlives a server that
-- leaves the fleet, and names it still.
CREATE TABLE maintenance_windows (
    id         INTEGER PRIMARY KEY,
    servers    TEXT NOT NULL DEFAULT '[]',
    routes     TEXT NOT NULL DEFAULT '[]',
    starts_at  TEXT NOT NULL,
    ends_at    TEXT NOT NULL,
    weekly     INTEGER NOT NULL DEFAULT 0 CHECK (weekly IN (0, 1)),
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

-- "maintenance" joins the statuses of the history. SQLite cannot change
-- a CHECK constraint in place, so the history is copied, row for row.
CREATE TABLE status_history_v3 (
    id         INTEGER PRIMARY KEY,
    server_id  TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('maintenance', 'healthy', 'entry_points_unavailable',
                                               'no_data', 'blocked', 'unreachable', 'unavailable')),
    conditions TEXT NOT NULL DEFAULT '[]',
    at         TEXT NOT NULL
);
INSERT INTO status_history_v3 (id, server_id, status, conditions, at)
SELECT id, server_id, status, conditions, at FROM status_history;
DROP TABLE status_history;
ALTER TABLE status_history_v3 RENAME TO status_history;
CREATE INDEX status_history_server_at ON status_history(server_id, at);
