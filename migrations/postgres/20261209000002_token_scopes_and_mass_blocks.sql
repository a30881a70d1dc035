-- API tokens carry scopes (PRODUCT.md §6): read, fleet or admin. Tokens of
-- before could do everything: they become admin. A token made in the
-- panel remembers its operator, so that a password change revokes it.
ALTER TABLE api_tokens ADD COLUMN scope TEXT COLLATE "C" NOT NULL DEFAULT 'admin'
    CHECK (scope IN ('read', 'fleet', 'admin'));
ALTER TABLE api_tokens ADD COLUMN created_by BIGINT;

-- The mass block guard (PRODUCT.md §6): when one verifier's blocks cover
-- most of what it probes, their actions wait for the operator, who runs
-- them or dismisses them; the decision holds while that guard does.
CREATE TABLE mass_block_decisions (
    verifier_id TEXT COLLATE "C" PRIMARY KEY,
    decision    TEXT COLLATE "C" NOT NULL CHECK (decision IN ('confirmed', 'dismissed')),
    decided_at  TIMESTAMPTZ NOT NULL
);
