-- +goose Up
-- The buyer-side reads: an approval by its id, the tenant's approvals
-- newest first (GET /{env}/aprobaciones-comerciales[/{id}]), and inbound
-- documents by e-NCF (GET /{env}/documentos-recibidos?encf=).
CREATE UNIQUE INDEX inbound_documents_approval_id ON inbound_documents (approval_id) WHERE approval_id IS NOT NULL;
CREATE INDEX inbound_documents_approvals ON inbound_documents (tenant_id, environment, approval_requested_at, approval_id) WHERE approval_id IS NOT NULL;
-- No index of its own for ?encf=: inbound_documents_bytes (00018), which
-- leads with the e-NCF, serves it; one here on (tenant, environment, encf)
-- drew the planner away from the per-issuer quota's index.

-- +goose Down
DROP INDEX inbound_documents_approvals;
DROP INDEX inbound_documents_approval_id;
