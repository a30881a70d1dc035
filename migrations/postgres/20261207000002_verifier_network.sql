-- Verifiers per network (PRODUCT.md §6): the network a verifier probes
-- from, as the operator names it ("MTS mobile"); NULL when not named.
ALTER TABLE servers ADD COLUMN verifier_network TEXT COLLATE "C";
