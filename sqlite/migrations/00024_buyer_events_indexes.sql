-- +goose Up
-- The documents' list filtered by buyer (GET /{env}/documentos-ecf?buyer=,
-- the portal's Documentos "comprador"), newest first: a range of this
-- index, not a walk of the tenant's documents until 51 are the buyer's
-- (all of them for a buyer with fewer).
CREATE INDEX documents_tenant_env_buyer_created ON documents (tenant_id, environment, buyer_rnc, created_at DESC, id DESC);

-- A document's events (FindDocumentEvents, the portal's document page):
-- by the id of the document's snapshot, not every event of the tenant.
-- The store's query writes the same expression, which SQLite requires
-- to use the index.
CREATE INDEX events_tenant_document ON events (tenant_id, json_extract(document, '$.id'));

-- +goose Down
DROP INDEX events_tenant_document;
DROP INDEX documents_tenant_env_buyer_created;
