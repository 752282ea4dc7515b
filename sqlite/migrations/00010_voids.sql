-- +goose Up
-- The tenant's voids of e-NCF ranges (ANECF, issue 13): the void, DGII's
-- answer and the signed ANECF; void_ranges holds its ranges, which
-- numbering skips whatever the void's state (docs/decisions.md).
CREATE TABLE voids (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    environment     TEXT NOT NULL,
    state           TEXT NOT NULL,
    dgii            TEXT, -- JSON {codigo, nombre, mensajes}
    failure_reason  TEXT NOT NULL DEFAULT '',
    anecf           BLOB,
    idempotency_key TEXT,
    request_hash    BLOB,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE INDEX voids_tenant_env_created ON voids (tenant_id, environment, created_at, id);
CREATE UNIQUE INDEX voids_idempotency_key ON voids (tenant_id, environment, idempotency_key);

CREATE TABLE void_ranges (
    void_id     TEXT NOT NULL REFERENCES voids (id),
    tenant_id   TEXT NOT NULL,
    environment TEXT NOT NULL,
    type        TEXT NOT NULL,
    range_from  INTEGER NOT NULL,
    range_to    INTEGER NOT NULL,
    PRIMARY KEY (void_id, type, range_from),
    CHECK (range_from >= 1 AND range_from <= range_to)
) STRICT;

CREATE INDEX void_ranges_lookup ON void_ranges (tenant_id, environment, type, range_from);

-- +goose Down
DROP TABLE void_ranges;
DROP TABLE voids;
