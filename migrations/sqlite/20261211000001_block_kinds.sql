-- Block kinds (PRODUCT.md §8).
-- A verifier's control targets: the SNI a failed handshake is retried
-- with, and domestic host:port addresses (a JSON array) its network is
-- known to reach.
ALTER TABLE servers ADD COLUMN verifier_control_sni TEXT;
ALTER TABLE servers ADD COLUMN verifier_controls TEXT NOT NULL DEFAULT '[]';

-- How a pair's last failure failed, and its last control-SNI retry.
ALTER TABLE pair_states ADD COLUMN last_stage TEXT;
ALTER TABLE pair_states ADD COLUMN sni_control BOOLEAN;
-- The pair's transfer checks (a verifier's only): NULL when none ran.
ALTER TABLE pair_states ADD COLUMN transfer_streak BIGINT;
ALTER TABLE pair_states ADD COLUMN transfer_first_failure_ms BIGINT;
ALTER TABLE pair_states ADD COLUMN transfer_last_at_ms BIGINT;
ALTER TABLE pair_states ADD COLUMN transfer_received_ms BIGINT;
ALTER TABLE pair_states ADD COLUMN transfer_bytes BIGINT;

-- Each verifier's checks of its control addresses, as one pair.
CREATE TABLE control_states (
    verifier_id      TEXT PRIMARY KEY,
    streak           BIGINT NOT NULL,
    first_failure_ms BIGINT,
    last_at_ms       BIGINT NOT NULL,
    received_ms      BIGINT NOT NULL,
    last_error       TEXT
);
