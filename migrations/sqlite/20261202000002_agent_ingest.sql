-- Agent ingest. Every acknowledged report is stored (its id for
-- idempotency, its body until a checkpoint has folded it into pair_states);
-- the hot pair state lives in memory and is checkpointed as changes.

CREATE TABLE agent_reports (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    report_id       TEXT NOT NULL UNIQUE,
    server_id       TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    received_at_ms  INTEGER NOT NULL,
    accepted_probes INTEGER NOT NULL,
    skipped_probes  INTEGER NOT NULL,
    -- The probe results as JSON; NULL once a checkpoint holds their effect.
    probes          TEXT
);
CREATE INDEX agent_reports_received ON agent_reports(received_at_ms);

-- The latest self-report of each server.
CREATE TABLE server_reports (
    server_id      TEXT PRIMARY KEY NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    received_at_ms INTEGER NOT NULL,
    listener_ok    INTEGER NOT NULL,
    service_ok     INTEGER NOT NULL,
    detail         TEXT,
    agent_version  TEXT NOT NULL,
    sent_at        TEXT NOT NULL,
    metrics        TEXT NOT NULL DEFAULT '{}'
);

-- Metrics over time, for charts; pruned after the retention window.
CREATE TABLE metrics_history (
    id             INTEGER PRIMARY KEY,
    server_id      TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    received_at_ms INTEGER NOT NULL,
    metrics        TEXT NOT NULL
);
CREATE INDEX metrics_history_server_time ON metrics_history(server_id, received_at_ms);

-- Checkpointed state of each (witness, entry point) pair.
CREATE TABLE pair_states (
    witness_id       TEXT NOT NULL,
    entry_point_id   TEXT NOT NULL,
    streak           INTEGER NOT NULL,
    first_failure_ms INTEGER,
    last_at_ms       INTEGER NOT NULL,
    received_ms      INTEGER NOT NULL,
    last_error       TEXT,
    PRIMARY KEY (witness_id, entry_point_id)
) WITHOUT ROWID;

-- The last agent_reports.seq whose effect pair_states holds.
CREATE TABLE checkpoint (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    applied_seq INTEGER NOT NULL
);
INSERT INTO checkpoint (id, applied_seq) VALUES (1, 0);
