-- +goose Up
-- The tenant's commercial approvals of inbound documents (issue 12): the
-- verdict is inbound_documents.approval; beside it the approval's id, the
-- reason of a rejection, the sending status of the approval and of each leg
-- (the issuer's receiver, DGII), why a leg failed, and the signed ACECF.
ALTER TABLE inbound_documents ADD COLUMN approval_id text;
ALTER TABLE inbound_documents ADD COLUMN approval_reason text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_status text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_issuer_status text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_issuer_error text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_dgii_status text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_dgii_error text NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_acecf bytea;
ALTER TABLE inbound_documents ADD COLUMN approval_requested_at timestamptz;
ALTER TABLE inbound_documents ADD COLUMN approval_updated_at timestamptz;

-- +goose Down
ALTER TABLE inbound_documents DROP COLUMN approval_updated_at;
ALTER TABLE inbound_documents DROP COLUMN approval_requested_at;
ALTER TABLE inbound_documents DROP COLUMN approval_acecf;
ALTER TABLE inbound_documents DROP COLUMN approval_dgii_error;
ALTER TABLE inbound_documents DROP COLUMN approval_dgii_status;
ALTER TABLE inbound_documents DROP COLUMN approval_issuer_error;
ALTER TABLE inbound_documents DROP COLUMN approval_issuer_status;
ALTER TABLE inbound_documents DROP COLUMN approval_status;
ALTER TABLE inbound_documents DROP COLUMN approval_reason;
ALTER TABLE inbound_documents DROP COLUMN approval_id;
