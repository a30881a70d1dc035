-- Delivery bookkeeping for the notification outbox: when to try again and
-- why the last attempt failed.
ALTER TABLE notification_outbox ADD COLUMN next_attempt_at TEXT;
ALTER TABLE notification_outbox ADD COLUMN last_error TEXT;
