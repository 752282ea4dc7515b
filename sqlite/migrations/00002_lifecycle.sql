-- +goose Up
ALTER TABLE documents ADD COLUMN signed_xml BLOB; -- the signed e-CF, byte for byte
ALTER TABLE documents ADD COLUMN rfce_xml BLOB;   -- the signed RFCE summary

CREATE TABLE certificates (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    environment   TEXT NOT NULL,
    subject       TEXT NOT NULL,
    issuer        TEXT NOT NULL,
    serial_number TEXT NOT NULL,
    fingerprint   TEXT NOT NULL, -- SHA-256 of the DER, hex
    not_before    TEXT NOT NULL,
    not_after     TEXT NOT NULL,
    self_signed   INTEGER NOT NULL,
    der           BLOB NOT NULL,
    sealed_key    BLOB NOT NULL, -- sealed by the master key; never the plaintext key
    warned_at     TEXT,          -- when certificate.expiring was written
    created_at    TEXT NOT NULL,
    UNIQUE (tenant_id, environment, fingerprint)
) STRICT;

CREATE INDEX certificates_tenant_env_created ON certificates (tenant_id, environment, created_at DESC, id DESC);

-- +goose Down
DROP TABLE certificates;
ALTER TABLE documents DROP COLUMN rfce_xml;
ALTER TABLE documents DROP COLUMN signed_xml;
