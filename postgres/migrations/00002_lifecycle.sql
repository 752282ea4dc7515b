-- +goose Up
ALTER TABLE documents
    ADD COLUMN signed_xml bytea, -- the signed e-CF, byte for byte
    ADD COLUMN rfce_xml bytea;   -- the signed RFCE summary

CREATE TABLE certificates (
    id            text PRIMARY KEY,
    tenant_id     text NOT NULL REFERENCES tenants (id),
    environment   text NOT NULL,
    subject       text NOT NULL,
    issuer        text NOT NULL,
    serial_number text NOT NULL,
    fingerprint   text NOT NULL, -- SHA-256 of the DER, hex
    not_before    timestamptz NOT NULL,
    not_after     timestamptz NOT NULL,
    self_signed   boolean NOT NULL,
    der           bytea NOT NULL,
    sealed_key    bytea NOT NULL, -- sealed by the master key; never the plaintext key
    warned_at     timestamptz,    -- when certificate.expiring was written
    created_at    timestamptz NOT NULL,
    UNIQUE (tenant_id, environment, fingerprint)
);

CREATE INDEX certificates_tenant_env_created ON certificates (tenant_id, environment, created_at DESC, id DESC);

-- +goose Down
DROP TABLE certificates;
ALTER TABLE documents DROP COLUMN rfce_xml, DROP COLUMN signed_xml;
