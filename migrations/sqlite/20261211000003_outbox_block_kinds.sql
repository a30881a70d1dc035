-- Block kinds (PRODUCT.md §8): a "blocked" message carries the kinds of
-- the server's blocks (a JSON array of kind names) to its webhook body.
ALTER TABLE notification_outbox ADD COLUMN block_kinds TEXT NOT NULL DEFAULT '[]';
