-- +goose Up
-- DGII's confirmation of received documents (issue 20): the security code
-- the confirmation asks DGII about, its state, when DGII last answered,
-- its codigo and what it means. Several different documents may now be
-- kept under one issuer and e-NCF until DGII accepts one of them: the
-- unique key becomes the bytes (their SHA-256), and at most one document
-- under an e-NCF is accepted. SQLite cannot drop a table's UNIQUE
-- constraint, so the table is built anew (nothing references it), with its
-- indexes. Rows from before keep a NULL hash, security code '' and a NULL
-- dgii_status (received before Sello asked DGII).
CREATE TABLE inbound_documents_new (
    id                     TEXT PRIMARY KEY,
    tenant_id              TEXT NOT NULL REFERENCES tenants (id),
    environment            TEXT NOT NULL,
    type                   TEXT NOT NULL,
    encf                   TEXT NOT NULL,
    issuer_rnc             TEXT NOT NULL,
    issuer_name            TEXT NOT NULL,
    buyer_rnc              TEXT NOT NULL,
    issue_date             TEXT NOT NULL,
    total                  TEXT NOT NULL,
    xml                    BLOB NOT NULL,
    acuse                  BLOB NOT NULL,
    approval               TEXT NOT NULL,
    received_at            TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    approval_id            TEXT,
    approval_reason        TEXT NOT NULL DEFAULT '',
    approval_status        TEXT NOT NULL DEFAULT '',
    approval_issuer_status TEXT NOT NULL DEFAULT '',
    approval_issuer_error  TEXT NOT NULL DEFAULT '',
    approval_dgii_status   TEXT NOT NULL DEFAULT '',
    approval_dgii_error    TEXT NOT NULL DEFAULT '',
    approval_acecf         BLOB,
    approval_requested_at  TEXT,
    approval_updated_at    TEXT,
    signer                 TEXT,
    approval_dgii_answer   TEXT,
    xml_sha256             BLOB,
    security_code          TEXT NOT NULL DEFAULT '',
    dgii_status            TEXT,
    dgii_checked_at        TEXT,
    dgii_codigo            INTEGER,
    dgii_mensaje           TEXT NOT NULL DEFAULT ''
) STRICT;

INSERT INTO inbound_documents_new (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
    issue_date, total, xml, acuse, approval, received_at, updated_at, approval_id, approval_reason, approval_status,
    approval_issuer_status, approval_issuer_error, approval_dgii_status, approval_dgii_error, approval_acecf,
    approval_requested_at, approval_updated_at, signer, approval_dgii_answer)
SELECT id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
    issue_date, total, xml, acuse, approval, received_at, updated_at, approval_id, approval_reason, approval_status,
    approval_issuer_status, approval_issuer_error, approval_dgii_status, approval_dgii_error, approval_acecf,
    approval_requested_at, approval_updated_at, signer, approval_dgii_answer
FROM inbound_documents;

DROP TABLE inbound_documents;
ALTER TABLE inbound_documents_new RENAME TO inbound_documents;

-- The e-NCF first: the index serves the lookups of one e-NCF, and
-- leaves the count of an issuer's documents to its own index.
CREATE UNIQUE INDEX inbound_documents_bytes ON inbound_documents (encf, issuer_rnc, tenant_id, environment, xml_sha256);
CREATE UNIQUE INDEX inbound_documents_accepted ON inbound_documents (encf, issuer_rnc, tenant_id, environment)
    WHERE dgii_status = 'accepted';
-- The receivers' per-issuer quota's index (00014_receiver_limits), dropped
-- with the old table.
CREATE INDEX IF NOT EXISTS inbound_documents_issuer_received ON inbound_documents (tenant_id, environment, issuer_rnc, received_at);
-- The buyer-side reads' indexes (00016_buyer_reads), dropped with the old
-- table too.
CREATE UNIQUE INDEX IF NOT EXISTS inbound_documents_approval_id ON inbound_documents (approval_id) WHERE approval_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbound_documents_approvals ON inbound_documents (tenant_id, environment, approval_requested_at, approval_id) WHERE approval_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbound_documents_encf ON inbound_documents (tenant_id, environment, encf);

-- +goose Down
CREATE TABLE inbound_documents_old (
    id                     TEXT PRIMARY KEY,
    tenant_id              TEXT NOT NULL REFERENCES tenants (id),
    environment            TEXT NOT NULL,
    type                   TEXT NOT NULL,
    encf                   TEXT NOT NULL,
    issuer_rnc             TEXT NOT NULL,
    issuer_name            TEXT NOT NULL,
    buyer_rnc              TEXT NOT NULL,
    issue_date             TEXT NOT NULL,
    total                  TEXT NOT NULL,
    xml                    BLOB NOT NULL,
    acuse                  BLOB NOT NULL,
    approval               TEXT NOT NULL,
    received_at            TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    approval_id            TEXT,
    approval_reason        TEXT NOT NULL DEFAULT '',
    approval_status        TEXT NOT NULL DEFAULT '',
    approval_issuer_status TEXT NOT NULL DEFAULT '',
    approval_issuer_error  TEXT NOT NULL DEFAULT '',
    approval_dgii_status   TEXT NOT NULL DEFAULT '',
    approval_dgii_error    TEXT NOT NULL DEFAULT '',
    approval_acecf         BLOB,
    approval_requested_at  TEXT,
    approval_updated_at    TEXT,
    signer                 TEXT,
    approval_dgii_answer   TEXT,
    UNIQUE (tenant_id, environment, issuer_rnc, encf)
) STRICT;

-- Of several documents under one e-NCF, the accepted one, else the first.
INSERT OR IGNORE INTO inbound_documents_old
SELECT id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
    issue_date, total, xml, acuse, approval, received_at, updated_at, approval_id, approval_reason, approval_status,
    approval_issuer_status, approval_issuer_error, approval_dgii_status, approval_dgii_error, approval_acecf,
    approval_requested_at, approval_updated_at, signer, approval_dgii_answer
FROM inbound_documents
ORDER BY dgii_status = 'accepted' DESC, received_at, id;

DROP TABLE inbound_documents;
ALTER TABLE inbound_documents_old RENAME TO inbound_documents;
CREATE INDEX IF NOT EXISTS inbound_documents_issuer_received ON inbound_documents (tenant_id, environment, issuer_rnc, received_at);
CREATE UNIQUE INDEX IF NOT EXISTS inbound_documents_approval_id ON inbound_documents (approval_id) WHERE approval_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbound_documents_approvals ON inbound_documents (tenant_id, environment, approval_requested_at, approval_id) WHERE approval_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbound_documents_encf ON inbound_documents (tenant_id, environment, encf);
