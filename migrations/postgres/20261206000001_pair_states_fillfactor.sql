-- Every report rewrites its witness's whole row of pair states, so each
-- pair is updated about once a report interval. Room left on every page
-- lets PostgreSQL update a pair in place (a HOT update: no new index
-- entry, the old version reclaimed by the next write to the page), so the
-- table and its index stop growing once every pair is stored. Pages
-- written before this fill up as they are rewritten.
ALTER TABLE pair_states SET (fillfactor = 50);
