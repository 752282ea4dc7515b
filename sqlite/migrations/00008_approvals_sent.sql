-- +goose Up
-- The tenant's commercial approvals of inbound documents (issue 12): the
-- verdict is inbound_documents.approval; beside it the approval's id, the
-- reason of a rejection, the sending status of the approval and of each leg
-- (the issuer's receiver, DGII), why a leg failed, and the signed ACECF.
ALTER TABLE inbound_documents ADD COLUMN approval_id TEXT;
ALTER TABLE inbound_documents ADD COLUMN approval_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_status TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_issuer_status TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_issuer_error TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_dgii_status TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_dgii_error TEXT NOT NULL DEFAULT '';
ALTER TABLE inbound_documents ADD COLUMN approval_acecf BLOB;
ALTER TABLE inbound_documents ADD COLUMN approval_requested_at TEXT;
ALTER TABLE inbound_documents ADD COLUMN approval_updated_at TEXT;

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
