-- A webhook URL is a secret (it often carries a token): the outbox keeps
-- how a message is delivered (`target`) apart from what the panel, the API
-- and the logs show (`recipient`: an email address, the webhook's label
-- "webhook (host)", or '' when nothing is configured). Delivery takes the
-- URL from its own configuration, so it never reaches the database.
ALTER TABLE notification_outbox ADD COLUMN target TEXT NOT NULL DEFAULT 'email'
    CHECK (target IN ('none', 'email', 'webhook'));
UPDATE notification_outbox SET target = 'none' WHERE recipient = '';
-- Rows queued before: their URL goes, and so does any stored delivery
-- error that might spell it out (the host is not known here, hence the
-- bare label).
UPDATE notification_outbox
   SET target = 'webhook',
       recipient = 'webhook',
       last_error = CASE WHEN instr(last_error, '://') > 0
                         THEN 'delivery failed (details withheld: they named the webhook URL)'
                         ELSE last_error END
 WHERE recipient LIKE 'http://%' OR recipient LIKE 'https://%';

-- The panel language an operator last chose (the language switcher): the
-- language of the notifications. NULL until one is chosen (English).
ALTER TABLE settings ADD COLUMN notify_lang TEXT
    CHECK (notify_lang IS NULL OR notify_lang IN ('en', 'es', 'pt', 'sv', 'hi', 'ja'));
