-- Telegram joins email and the webhook as a notification target.
ALTER TABLE notification_outbox DROP CONSTRAINT notification_outbox_target_check;
ALTER TABLE notification_outbox ADD CONSTRAINT notification_outbox_target_check
    CHECK (target IN ('none', 'email', 'webhook', 'telegram'));
