-- +goose Up
CREATE TABLE tenants (
    id         TEXT PRIMARY KEY,
    rnc        TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    plan_name  TEXT NOT NULL,
    plan_rate  REAL NOT NULL,
    plan_burst INTEGER NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    scopes      TEXT NOT NULL, -- comma-separated
    hash        BLOB NOT NULL UNIQUE,
    last4       TEXT NOT NULL,
    expires_at  TEXT,
    revoked_at  TEXT,
    created_at  TEXT NOT NULL
) STRICT;

CREATE INDEX api_keys_tenant_created ON api_keys (tenant_id, created_at DESC, id DESC);

CREATE TABLE sequences (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    type        TEXT NOT NULL,
    range_from  INTEGER NOT NULL,
    range_to    INTEGER NOT NULL,
    next        INTEGER NOT NULL,
    expires_on  TEXT, -- yyyy-MM-dd
    created_at  TEXT NOT NULL,
    CHECK (range_from >= 1 AND range_from <= range_to AND next >= range_from AND next <= range_to + 1)
) STRICT;

CREATE INDEX sequences_tenant_env_type ON sequences (tenant_id, environment, type, range_from);

CREATE TABLE documents (
    id                  TEXT PRIMARY KEY,
    tenant_id           TEXT NOT NULL REFERENCES tenants (id),
    environment         TEXT NOT NULL,
    type                TEXT NOT NULL,
    encf                TEXT NOT NULL,
    status              TEXT NOT NULL,
    track_id            TEXT NOT NULL DEFAULT '',
    security_code       TEXT NOT NULL DEFAULT '',
    signed_at           TEXT,
    qr_url              TEXT NOT NULL DEFAULT '',
    total               TEXT NOT NULL, -- exact decimal, two places
    buyer_rnc           TEXT NOT NULL DEFAULT '',
    issue_date          TEXT NOT NULL, -- yyyy-MM-dd
    dgii                TEXT,          -- JSON
    delivery_status     TEXT NOT NULL,
    delivery_code       TEXT NOT NULL DEFAULT '',
    commercial_approval TEXT,          -- JSON
    failure_reason      TEXT NOT NULL DEFAULT '',
    payload             TEXT NOT NULL, -- JSON, byte-exact
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    UNIQUE (tenant_id, environment, encf)
) STRICT;

CREATE INDEX documents_tenant_env_created ON documents (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX documents_tenant_env_status_created ON documents (tenant_id, environment, status, created_at DESC, id DESC);
CREATE INDEX documents_tenant_env_type_created ON documents (tenant_id, environment, type, created_at DESC, id DESC);

CREATE TABLE document_status_history (
    id          INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    tenant_id   TEXT NOT NULL,
    status      TEXT NOT NULL,
    at          TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX document_status_history_tenant_document ON document_status_history (tenant_id, document_id, at);

CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    type        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    document    TEXT, -- JSON
    data        TEXT NOT NULL -- JSON
) STRICT;

CREATE INDEX events_tenant_env_seq ON events (tenant_id, environment, seq);
CREATE INDEX events_tenant_env_type_seq ON events (tenant_id, environment, type, seq);

CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    environment  TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash BLOB NOT NULL,
    document_id  TEXT REFERENCES documents (id),
    snapshot     TEXT, -- JSON of the sello.Document first returned
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, environment, key)
) STRICT;

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE events;
DROP TABLE document_status_history;
DROP TABLE documents;
DROP TABLE sequences;
DROP TABLE api_keys;
DROP TABLE tenants;
