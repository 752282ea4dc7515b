-- +goose Up
-- The tenant's voids of e-NCF ranges (ANECF, issue 13): the void, DGII's
-- answer and the signed ANECF; void_ranges holds its ranges, which
-- numbering skips whatever the void's state (docs/decisions.md).
CREATE TABLE voids (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id),
    environment     text NOT NULL,
    state           text NOT NULL,
    dgii            jsonb, -- {codigo, nombre, mensajes}
    failure_reason  text NOT NULL DEFAULT '',
    anecf           bytea,
    idempotency_key text,
    request_hash    bytea,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);

CREATE INDEX voids_tenant_env_created ON voids (tenant_id, environment, created_at, id);
CREATE UNIQUE INDEX voids_idempotency_key ON voids (tenant_id, environment, idempotency_key);

CREATE TABLE void_ranges (
    void_id     text NOT NULL REFERENCES voids (id),
    tenant_id   text NOT NULL,
    environment text NOT NULL,
    type        text NOT NULL,
    range_from  bigint NOT NULL,
    range_to    bigint NOT NULL,
    PRIMARY KEY (void_id, type, range_from),
    CHECK (range_from >= 1 AND range_from <= range_to)
);

CREATE INDEX void_ranges_lookup ON void_ranges (tenant_id, environment, type, range_from);

-- +goose Down
DROP TABLE void_ranges;
DROP TABLE voids;
