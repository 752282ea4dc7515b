-- +goose Up
-- Certification runs in CerteCF (issue 13): DGII's test set, its rows
-- (JSON: the fields, state and DGII's answer of each) sent one at a time.
CREATE TABLE certification_runs (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    state       TEXT NOT NULL,
    row_data    TEXT NOT NULL, -- JSON list of sello.CertificationRow
    failure     TEXT,          -- JSON sello.CertificationFailure
    idempotency_key TEXT,      -- the Idempotency-Key it was started with
    request_hash    BLOB,      -- SHA-256 of its rows, for a replay
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

CREATE INDEX certification_runs_tenant_env ON certification_runs (tenant_id, environment, created_at);
CREATE UNIQUE INDEX certification_runs_idempotency ON certification_runs (tenant_id, environment, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- The signed XML of each row once built: what was sent, sent again the
-- same after a crash.
CREATE TABLE certification_row_xml (
    run_id    TEXT NOT NULL REFERENCES certification_runs (id),
    row_index INTEGER NOT NULL,
    tenant_id TEXT NOT NULL,
    xml       BLOB NOT NULL,
    PRIMARY KEY (run_id, row_index)
) STRICT;

-- +goose Down
DROP TABLE certification_row_xml;
DROP TABLE certification_runs;
