-- Actions do no harm (PRODUCT.md §6): interrupted runs, the budget, and
-- the outbox's message that actions switched themselves off.
ALTER TABLE action_runs DROP CONSTRAINT action_runs_state_check;
ALTER TABLE action_runs ADD CONSTRAINT action_runs_state_check
    CHECK (state IN ('pending', 'running', 'ok', 'failed', 'skipped', 'interrupted'));
ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_kind_check;
ALTER TABLE notification_outbox ADD CONSTRAINT notification_outbox_kind_check
    CHECK (kind IN ('blocked', 'cleared', 'test', 'witness_network', 'actions_off'));
ALTER TABLE settings ADD COLUMN action_runs_per_hour BIGINT NOT NULL DEFAULT 6;
ALTER TABLE settings ADD COLUMN action_cooldown_s BIGINT NOT NULL DEFAULT 21600;
ALTER TABLE settings ADD COLUMN actions_off_reason TEXT COLLATE "C";
