-- +goose Up
-- Certification runs in CerteCF (issue 13): DGII's test set, its rows
-- (JSON: the fields, state and DGII's answer of each) sent one at a time.
CREATE TABLE certification_runs (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    state       text NOT NULL,
    row_data    jsonb NOT NULL, -- list of sello.CertificationRow
    failure     jsonb,          -- sello.CertificationFailure
    idempotency_key text,       -- the Idempotency-Key it was started with
    request_hash    bytea,      -- SHA-256 of its rows, for a replay
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE INDEX certification_runs_tenant_env ON certification_runs (tenant_id, environment, created_at);
CREATE UNIQUE INDEX certification_runs_idempotency ON certification_runs (tenant_id, environment, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- The signed XML of each row once built: what was sent, sent again the
-- same after a crash.
CREATE TABLE certification_row_xml (
    run_id    text NOT NULL REFERENCES certification_runs (id),
    row_index integer NOT NULL,
    tenant_id text NOT NULL,
    xml       bytea NOT NULL,
    PRIMARY KEY (run_id, row_index)
);

-- +goose Down
DROP TABLE certification_row_xml;
DROP TABLE certification_runs;
