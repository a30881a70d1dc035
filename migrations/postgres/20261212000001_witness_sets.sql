-- Witness sets (docs/concepts/witness-sets.md): beyond witness_set_threshold
-- servers, each normal server is watched by a set of witness_set_size
-- witnesses, one of which rotates every witness_rotation_s seconds.
ALTER TABLE settings ADD COLUMN witness_set_threshold BIGINT NOT NULL DEFAULT 64 CHECK (witness_set_threshold >= 1);
ALTER TABLE settings ADD COLUMN witness_set_size BIGINT NOT NULL DEFAULT 12 CHECK (witness_set_size BETWEEN 1 AND 32);
ALTER TABLE settings ADD COLUMN witness_rotation_s BIGINT NOT NULL DEFAULT 3600 CHECK (witness_rotation_s >= 1);
