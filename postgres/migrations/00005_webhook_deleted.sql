-- +goose Up
-- A deleted endpoint (DeleteWebhookEndpoint) keeps its row, disabled, so
-- its deliveries and their attempt logs keep their endpoint; deleted_at
-- hides it from every lookup by id and from the list.
ALTER TABLE webhook_endpoints ADD COLUMN deleted_at timestamptz;

-- +goose Down
ALTER TABLE webhook_endpoints DROP COLUMN deleted_at;
