-- +goose Up
CREATE TABLE tenants (
    id         text PRIMARY KEY,
    rnc        text NOT NULL UNIQUE,
    name       text NOT NULL,
    plan_name  text NOT NULL,
    plan_rate  double precision NOT NULL,
    plan_burst integer NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    name        text NOT NULL,
    scopes      text[] NOT NULL,
    hash        bytea NOT NULL UNIQUE,
    last4       text NOT NULL,
    expires_at  timestamptz,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL
);

CREATE INDEX api_keys_tenant_created ON api_keys (tenant_id, created_at DESC, id DESC);

CREATE TABLE sequences (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    type        text NOT NULL,
    range_from  bigint NOT NULL,
    range_to    bigint NOT NULL,
    next        bigint NOT NULL,
    expires_on  date,
    created_at  timestamptz NOT NULL,
    CHECK (range_from >= 1 AND range_from <= range_to AND next >= range_from AND next <= range_to + 1)
);

CREATE INDEX sequences_tenant_env_type ON sequences (tenant_id, environment, type, range_from);

CREATE TABLE documents (
    id                  text PRIMARY KEY,
    tenant_id           text NOT NULL REFERENCES tenants (id),
    environment         text NOT NULL,
    type                text NOT NULL,
    encf                text NOT NULL,
    status              text NOT NULL,
    track_id            text NOT NULL DEFAULT '',
    security_code       text NOT NULL DEFAULT '',
    signed_at           timestamptz,
    qr_url              text NOT NULL DEFAULT '',
    total               numeric(18, 2) NOT NULL,
    buyer_rnc           text NOT NULL DEFAULT '',
    issue_date          date NOT NULL,
    dgii                jsonb,
    delivery_status     text NOT NULL,
    delivery_code       text NOT NULL DEFAULT '',
    commercial_approval jsonb,
    failure_reason      text NOT NULL DEFAULT '',
    payload             json NOT NULL, -- json, not jsonb: kept byte for byte
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    UNIQUE (tenant_id, environment, encf)
);

CREATE INDEX documents_tenant_env_created ON documents (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX documents_tenant_env_status_created ON documents (tenant_id, environment, status, created_at DESC, id DESC);
CREATE INDEX documents_tenant_env_type_created ON documents (tenant_id, environment, type, created_at DESC, id DESC);

CREATE TABLE document_status_history (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id text NOT NULL REFERENCES documents (id),
    tenant_id   text NOT NULL,
    status      text NOT NULL,
    at          timestamptz NOT NULL,
    reason      text NOT NULL DEFAULT ''
);

CREATE INDEX document_status_history_tenant_document ON document_status_history (tenant_id, document_id, at);

CREATE TABLE events (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL,
    type        text NOT NULL,
    created_at  timestamptz NOT NULL,
    document    jsonb,
    data        jsonb NOT NULL
);

CREATE INDEX events_tenant_env_seq ON events (tenant_id, environment, seq);
CREATE INDEX events_tenant_env_type_seq ON events (tenant_id, environment, type, seq);

CREATE TABLE idempotency_keys (
    tenant_id    text NOT NULL REFERENCES tenants (id),
    environment  text NOT NULL,
    key          text NOT NULL,
    request_hash bytea NOT NULL,
    document_id  text REFERENCES documents (id),
    snapshot     jsonb, -- the sello.Document first returned
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, environment, key)
);

-- Rate limiter state (GCRA): one theoretical arrival time per key, in Unix
-- nanoseconds. Unlogged: losing it in a crash only resets the buckets.
CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY,
    tat bigint NOT NULL
);

-- +goose Down
DROP TABLE rate_limits;
DROP TABLE idempotency_keys;
DROP TABLE events;
DROP TABLE document_status_history;
DROP TABLE documents;
DROP TABLE sequences;
DROP TABLE api_keys;
DROP TABLE tenants;
