-- +goose Up
-- DGII's confirmation of received documents (issue 20): the security code
-- the confirmation asks DGII about, its state, when DGII last answered,
-- its codigo and what it means. Several different documents may now be
-- kept under one issuer and e-NCF until DGII accepts one of them: the
-- unique key becomes the bytes (their SHA-256), and at most one document
-- under an e-NCF is accepted. Rows from before keep security code '' and a
-- NULL dgii_status (received before Sello asked DGII).
ALTER TABLE inbound_documents ADD COLUMN xml_sha256 bytea;
UPDATE inbound_documents SET xml_sha256 = sha256(xml);
ALTER TABLE inbound_documents ALTER COLUMN xml_sha256 SET NOT NULL;
ALTER TABLE inbound_documents ADD COLUMN security_code text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN dgii_status text;
ALTER TABLE inbound_documents ADD COLUMN dgii_checked_at timestamptz;
ALTER TABLE inbound_documents ADD COLUMN dgii_codigo integer;
ALTER TABLE inbound_documents ADD COLUMN dgii_mensaje text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents DROP CONSTRAINT inbound_documents_tenant_id_environment_issuer_rnc_encf_key;
-- The e-NCF first: the index serves the lookups of one e-NCF, and
-- leaves the count of an issuer's documents to its own index.
CREATE UNIQUE INDEX inbound_documents_bytes ON inbound_documents (encf, issuer_rnc, tenant_id, environment, xml_sha256);
CREATE UNIQUE INDEX inbound_documents_accepted ON inbound_documents (encf, issuer_rnc, tenant_id, environment)
    WHERE dgii_status = 'accepted';

-- +goose Down
-- Of several documents under one e-NCF, the accepted one is kept, else the
-- first received.
DELETE FROM inbound_documents d USING inbound_documents k
WHERE d.tenant_id = k.tenant_id AND d.environment = k.environment AND d.issuer_rnc = k.issuer_rnc AND d.encf = k.encf
    AND d.id <> k.id
    AND ((k.dgii_status = 'accepted' AND d.dgii_status IS DISTINCT FROM 'accepted')
        OR (d.dgii_status IS DISTINCT FROM 'accepted' AND k.dgii_status IS DISTINCT FROM 'accepted' AND (k.received_at, k.id) < (d.received_at, d.id)));
DROP INDEX inbound_documents_accepted;
DROP INDEX inbound_documents_bytes;
ALTER TABLE inbound_documents ADD UNIQUE (tenant_id, environment, issuer_rnc, encf);
ALTER TABLE inbound_documents DROP COLUMN dgii_mensaje;
ALTER TABLE inbound_documents DROP COLUMN dgii_codigo;
ALTER TABLE inbound_documents DROP COLUMN dgii_checked_at;
ALTER TABLE inbound_documents DROP COLUMN dgii_status;
ALTER TABLE inbound_documents DROP COLUMN security_code;
ALTER TABLE inbound_documents DROP COLUMN xml_sha256;
