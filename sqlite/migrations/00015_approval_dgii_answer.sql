-- +goose Up
-- DGII's answer to the DGII leg of the tenant's commercial approvals, in
-- the API's one shape of DGII's answer (sello.DGIIResult, JSON).
ALTER TABLE inbound_documents ADD COLUMN approval_dgii_answer TEXT;

-- +goose Down
ALTER TABLE inbound_documents DROP COLUMN approval_dgii_answer;
