-- +goose Up
-- The received documents' list (GET /{env}/documentos-recibidos, the
-- portal's Recibidos), newest first by (received_at, id): a range of this
-- index, not a sort of every document the tenant received in the
-- environment (migration 17's rebuild dropped the index it had).
CREATE INDEX inbound_documents_list ON inbound_documents (tenant_id, environment, received_at, id);

-- +goose Down
DROP INDEX inbound_documents_list;
