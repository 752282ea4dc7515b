-- +goose Up
-- Delivery of accepted documents to the buyer's receiver: why a delivery
-- failed, and the buyer's signed acuse de recibo (ARECF) as received.
ALTER TABLE documents ADD COLUMN delivery_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN arecf_xml BLOB;

-- +goose Down
ALTER TABLE documents DROP COLUMN arecf_xml;
ALTER TABLE documents DROP COLUMN delivery_reason;
