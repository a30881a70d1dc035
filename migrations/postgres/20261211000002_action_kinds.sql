-- Block kinds (PRODUCT.md §8): a "blocked" action may be limited to the
-- kinds it runs on, as a JSON array of kind names; [] runs on every kind.
ALTER TABLE actions ADD COLUMN kinds TEXT NOT NULL DEFAULT '[]';
