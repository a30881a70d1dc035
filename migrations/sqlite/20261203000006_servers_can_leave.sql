-- Servers can leave the fleet (DELETE /api/v1/servers/{id}) while their
-- history stays readable until retention prunes it: the history tables no
-- longer cascade from servers. report_id becomes unique per server (two
-- agents may pick the same id), stored in canonical (lower-case) form.
-- SQLite cannot drop a foreign key or a UNIQUE, so the tables are rebuilt
-- with their rows. The outbox also takes the whole-fleet fault's message
-- ('witness_network', about no one server).

CREATE TABLE agent_reports_v2 (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    report_id       TEXT NOT NULL,
    server_id       TEXT NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    received_at_ms  INTEGER NOT NULL,
    accepted_probes INTEGER NOT NULL,
    skipped_probes  INTEGER NOT NULL,
    probes          TEXT,
    UNIQUE (server_id, report_id)
);
INSERT OR IGNORE INTO agent_reports_v2
    (seq, report_id, server_id, received_at_ms, accepted_probes, skipped_probes, probes)
SELECT seq, lower(report_id), server_id, received_at_ms, accepted_probes, skipped_probes, probes
FROM agent_reports;
DROP TABLE agent_reports;
ALTER TABLE agent_reports_v2 RENAME TO agent_reports;
CREATE INDEX agent_reports_received ON agent_reports(received_at_ms);
-- Report numbers must go on above the checkpoint even when every folded
-- report was pruned (the rebuilt table would start again from 1, and a
-- crash would then skip replaying reports numbered below it).
UPDATE sqlite_sequence
   SET seq = MAX(seq, (SELECT applied_seq FROM checkpoint WHERE id = 1))
 WHERE name = 'agent_reports';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'agent_reports', (SELECT applied_seq FROM checkpoint WHERE id = 1)
 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'agent_reports');

CREATE TABLE status_history_v2 (
    id         INTEGER PRIMARY KEY,
    server_id  TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('healthy', 'entry_points_unavailable', 'no_data',
                                               'blocked', 'unreachable', 'unavailable')),
    conditions TEXT NOT NULL DEFAULT '[]',
    at         TEXT NOT NULL
);
INSERT INTO status_history_v2 (id, server_id, status, conditions, at)
SELECT id, server_id, status, conditions, at FROM status_history;
DROP TABLE status_history;
ALTER TABLE status_history_v2 RENAME TO status_history;
CREATE INDEX status_history_server_at ON status_history(server_id, at);

CREATE TABLE metrics_history_v2 (
    id             INTEGER PRIMARY KEY,
    server_id      TEXT NOT NULL,
    received_at_ms INTEGER NOT NULL,
    metrics        TEXT NOT NULL
);
INSERT INTO metrics_history_v2 (id, server_id, received_at_ms, metrics)
SELECT id, server_id, received_at_ms, metrics FROM metrics_history;
DROP TABLE metrics_history;
ALTER TABLE metrics_history_v2 RENAME TO metrics_history;
CREATE INDEX metrics_history_server_time ON metrics_history(server_id, received_at_ms);

CREATE TABLE notification_outbox_v3 (
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
    target          TEXT NOT NULL DEFAULT 'email' CHECK (target IN ('none', 'email', 'webhook'))
);
INSERT INTO notification_outbox_v3
    (id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at, next_attempt_at, last_error, target)
SELECT id, kind, server_id, recipient, subject, body, state, attempts, created_at, sent_at, next_attempt_at, last_error, target
FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_v3 RENAME TO notification_outbox;
CREATE INDEX notification_outbox_state ON notification_outbox(state);
