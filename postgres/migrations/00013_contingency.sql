-- +goose Up
-- DGII's reachability per environment (issue 13, contingency), shared by
-- every node: a row per environment, written where workers learn it.
CREATE TABLE dgii_reachability (
    environment   text PRIMARY KEY,
    state         text NOT NULL CHECK (state IN ('available', 'contingency', 'draining')),
    failing_since timestamptz,
    last_failure  timestamptz,
    last_success  timestamptz,
    since         timestamptz,
    until         timestamptz,
    updated_at    timestamptz NOT NULL
);
-- A document signed while its environment was in contingency.
ALTER TABLE documents ADD COLUMN contingency boolean NOT NULL DEFAULT false;
-- The contingency job's drain order: signed documents of an environment,
-- oldest first (partial: rows enter and leave it once).
CREATE INDEX documents_waiting ON documents (environment, created_at, id) WHERE status IN ('queued_for_signing', 'signed');

-- +goose Down
DROP INDEX documents_waiting;
ALTER TABLE documents DROP COLUMN contingency;
DROP TABLE dgii_reachability;
