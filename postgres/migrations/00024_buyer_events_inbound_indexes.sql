-- +goose Up
-- The documents' list filtered by buyer (GET /{env}/documentos-ecf?buyer=,
-- the portal's Documentos "comprador"), newest first: a range of this
-- index, not a walk of the tenant's documents until 51 are the buyer's
-- (all of them for a buyer with fewer).
CREATE INDEX documents_tenant_env_buyer_created ON documents (tenant_id, environment, buyer_rnc, created_at DESC, id DESC);

-- A document's events (FindDocumentEvents, the portal's document page):
-- by the id of the document's snapshot, not every event of the tenant.
CREATE INDEX events_tenant_document ON events (tenant_id, (document->>'id'));

-- The received documents' list (GET /{env}/documentos-recibidos, the
-- portal's Recibidos), newest first by (received_at, id): a range of this
-- index, not a sort of every document the tenant received in the
-- environment (SQLite's migration 23).
CREATE INDEX inbound_documents_list ON inbound_documents (tenant_id, environment, received_at, id);

-- +goose Down
DROP INDEX inbound_documents_list;
DROP INDEX events_tenant_document;
DROP INDEX documents_tenant_env_buyer_created;
