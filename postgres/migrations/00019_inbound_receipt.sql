-- +goose Up
-- The receipt of a document under an issuer's e-NCF reads no other
-- document (docs/receptor.md, "Limits"): it looks up the same bytes
-- (inbound_documents_bytes) and the accepted one
-- (inbound_documents_accepted), and counts those DGII has not confirmed
-- received in the quota's window from this index alone.
CREATE INDEX inbound_documents_unconfirmed ON inbound_documents (encf, issuer_rnc, tenant_id, environment, received_at)
    WHERE dgii_status IN ('pending', 'not_found');

-- +goose Down
DROP INDEX inbound_documents_unconfirmed;
