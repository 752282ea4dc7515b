-- +goose Up
CREATE TABLE webhook_endpoints (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    environment     TEXT NOT NULL,
    url             TEXT NOT NULL,
    events          TEXT NOT NULL DEFAULT '', -- comma-separated event types; '' for all
    status          TEXT NOT NULL CHECK (status IN ('active', 'paused', 'disabled')),
    disabled_reason TEXT NOT NULL DEFAULT '',
    failing_since   TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (tenant_id, id)
) STRICT;

-- The fan-out of every event looks endpoints up by tenant, environment and status.
CREATE INDEX webhook_endpoints_tenant_env_status ON webhook_endpoints (tenant_id, environment, status);

CREATE TABLE webhook_secrets (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    sealed      BLOB NOT NULL, -- sealed by the master key; never the plaintext secret
    created_at  TEXT NOT NULL,
    expires_at  TEXT,
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id)
) STRICT;

CREATE INDEX webhook_secrets_tenant_endpoint ON webhook_secrets (tenant_id, endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    environment     TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    event_id        TEXT REFERENCES events (id), -- NULL for a test delivery
    test_event      TEXT,                        -- JSON sello.Event of a test delivery
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'held', 'succeeded', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_error      TEXT NOT NULL DEFAULT '',
    triggered_by    TEXT NOT NULL CHECK (triggered_by IN ('event', 'replay', 'test')),
    replay_of       TEXT REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id),
    CHECK ((event_id IS NULL) = (test_event IS NOT NULL))
) STRICT;

CREATE INDEX webhook_deliveries_tenant_env_created ON webhook_deliveries (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (tenant_id, environment, created_at) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (tenant_id, endpoint_id, status);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_replay_of ON webhook_deliveries (replay_of);

CREATE TABLE webhook_attempts (
    delivery_id      TEXT NOT NULL REFERENCES webhook_deliveries (id),
    n                INTEGER NOT NULL,
    tenant_id        TEXT NOT NULL,
    at               TEXT NOT NULL,
    request_headers  TEXT NOT NULL, -- JSON
    request_body     BLOB NOT NULL,
    response_status  INTEGER NOT NULL,
    response_headers TEXT NOT NULL, -- JSON
    response_body    BLOB NOT NULL, -- at most 4 KiB
    latency_us       INTEGER NOT NULL,
    dialed_ip        TEXT NOT NULL,
    error_class      TEXT NOT NULL,
    error            TEXT NOT NULL,
    PRIMARY KEY (delivery_id, n)
) STRICT;

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_secrets;
DROP TABLE webhook_endpoints;
