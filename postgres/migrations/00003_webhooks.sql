-- +goose Up
CREATE TABLE webhook_endpoints (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id),
    environment     text NOT NULL,
    url             text NOT NULL,
    events          text[] NOT NULL DEFAULT '{}', -- event types; empty for all
    status          text NOT NULL CHECK (status IN ('active', 'paused', 'disabled')),
    disabled_reason text NOT NULL DEFAULT '',
    failing_since   timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (tenant_id, id)
);

-- The fan-out of every event looks endpoints up by tenant, environment and status.
CREATE INDEX webhook_endpoints_tenant_env_status ON webhook_endpoints (tenant_id, environment, status);

CREATE TABLE webhook_secrets (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL,
    endpoint_id text NOT NULL,
    sealed      bytea NOT NULL, -- sealed by the master key; never the plaintext secret
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz,
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id)
);

CREATE INDEX webhook_secrets_tenant_endpoint ON webhook_secrets (tenant_id, endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL,
    environment     text NOT NULL,
    endpoint_id     text NOT NULL,
    event_id        text REFERENCES events (id), -- NULL for a test delivery
    test_event      jsonb,                       -- the sello.Event of a test delivery
    event_type      text NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'held', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_error      text NOT NULL DEFAULT '',
    triggered_by    text NOT NULL CHECK (triggered_by IN ('event', 'replay', 'test')),
    replay_of       text REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id),
    CHECK ((event_id IS NULL) = (test_event IS NOT NULL))
);

CREATE INDEX webhook_deliveries_tenant_env_created ON webhook_deliveries (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (tenant_id, environment, created_at) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (tenant_id, endpoint_id, status);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_replay_of ON webhook_deliveries (replay_of);

CREATE TABLE webhook_attempts (
    delivery_id      text NOT NULL REFERENCES webhook_deliveries (id),
    n                integer NOT NULL,
    tenant_id        text NOT NULL,
    at               timestamptz NOT NULL,
    request_headers  jsonb NOT NULL,
    request_body     bytea NOT NULL,
    response_status  integer NOT NULL,
    response_headers jsonb NOT NULL,
    response_body    bytea NOT NULL, -- at most 4 KiB
    latency_us       bigint NOT NULL,
    dialed_ip        text NOT NULL,
    error_class      text NOT NULL,
    error            text NOT NULL,
    PRIMARY KEY (delivery_id, n)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_secrets;
DROP TABLE webhook_endpoints;
