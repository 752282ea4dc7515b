-- +goose Up
-- The receiver side (issue 12): the documents suppliers send to a tenant,
-- the seeds and tokens of its receiver's authentication, and whether the
-- receiver requires a token (on unless turned off).
ALTER TABLE tenants ADD COLUMN receiver_auth_off boolean NOT NULL DEFAULT false;

CREATE TABLE inbound_documents (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    type        text NOT NULL,
    encf        text NOT NULL,
    issuer_rnc  text NOT NULL,
    issuer_name text NOT NULL,
    buyer_rnc   text NOT NULL,
    issue_date  date NOT NULL,
    total       text NOT NULL,
    xml         bytea NOT NULL,
    acuse       bytea NOT NULL,
    approval    text NOT NULL,
    received_at timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (tenant_id, environment, issuer_rnc, encf)
);

CREATE TABLE receiver_seeds (
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    value       text NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    PRIMARY KEY (tenant_id, environment, value)
);

CREATE TABLE receiver_tokens (
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    hash        bytea NOT NULL,
    issued_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, environment, hash)
);

-- +goose Down
DROP TABLE receiver_tokens;
DROP TABLE receiver_seeds;
DROP TABLE inbound_documents;
ALTER TABLE tenants DROP COLUMN receiver_auth_off;
