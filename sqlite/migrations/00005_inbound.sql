-- +goose Up
-- The receiver side (issue 12): the documents suppliers send to a tenant,
-- the seeds and tokens of its receiver's authentication, and whether the
-- receiver requires a token (on unless turned off).
ALTER TABLE tenants ADD COLUMN receiver_auth_off INTEGER NOT NULL DEFAULT 0;

CREATE TABLE inbound_documents (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    type        TEXT NOT NULL,
    encf        TEXT NOT NULL,
    issuer_rnc  TEXT NOT NULL,
    issuer_name TEXT NOT NULL,
    buyer_rnc   TEXT NOT NULL,
    issue_date  TEXT NOT NULL,
    total       TEXT NOT NULL,
    xml         BLOB NOT NULL,
    acuse       BLOB NOT NULL,
    approval    TEXT NOT NULL,
    received_at TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    UNIQUE (tenant_id, environment, issuer_rnc, encf)
) STRICT;

CREATE TABLE receiver_seeds (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    value       TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    used_at     TEXT,
    PRIMARY KEY (tenant_id, environment, value)
) STRICT;

CREATE TABLE receiver_tokens (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    hash        BLOB NOT NULL,
    issued_at   TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    PRIMARY KEY (tenant_id, environment, hash)
) STRICT;

-- +goose Down
DROP TABLE receiver_tokens;
DROP TABLE receiver_seeds;
DROP TABLE inbound_documents;
ALTER TABLE tenants DROP COLUMN receiver_auth_off;
