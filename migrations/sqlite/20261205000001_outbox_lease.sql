-- A panel delivering a notification holds it for a while (a lease), so
-- that no other replica sends it as well; one that dies mid-send lets the
-- lease run out and the row is tried again. SQLite has one panel per
-- database, but the statements are the same on both backends.
ALTER TABLE notification_outbox ADD COLUMN lease_until TEXT;
