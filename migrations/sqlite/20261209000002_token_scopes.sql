-- API tokens carry scopes (PRODUCT.md §6): read, fleet or admin. Tokens of
-- before could do everything: they become admin. A token made in the
-- panel remembers its operator, so that a password change revokes it.
ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin'
    CHECK (scope IN ('read', 'fleet', 'admin'));
ALTER TABLE api_tokens ADD COLUMN created_by INTEGER;
