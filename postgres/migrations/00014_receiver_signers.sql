-- +goose Up
-- Who signed what the tenants' receivers received (issue 20): the
-- sello.Signer of an inbound e-CF and of the signed seed a token was issued
-- for; NULL for rows from before. Tokens issued before carry no signer and
-- could not be held to it in eCF: they are forgotten (a token lasts an
-- hour; its holder authenticates again).
ALTER TABLE inbound_documents ADD COLUMN signer jsonb;
ALTER TABLE receiver_tokens ADD COLUMN signer jsonb;
DELETE FROM receiver_tokens;

-- +goose Down
ALTER TABLE receiver_tokens DROP COLUMN signer;
ALTER TABLE inbound_documents DROP COLUMN signer;
