-- +goose Up
-- The receivers bounded (issue 20). Seeds are stateless now: a row is
-- written only when a seed is redeemed, kept until the seed expires. The
-- seeds and tokens still stored were issued by the old scheme: forget the
-- seeds (none can be redeemed any more); keep the tokens.
DELETE FROM receiver_seeds;
-- The periodic prune of expired seeds and tokens across tenants is a
-- range of these.
CREATE INDEX receiver_seeds_expires ON receiver_seeds (expires_at);
CREATE INDEX receiver_tokens_expires ON receiver_tokens (expires_at);
-- The quota per issuer counts an issuer's documents received to a tenant
-- in the last day.
CREATE INDEX inbound_documents_issuer_received ON inbound_documents (tenant_id, environment, issuer_rnc, received_at);

-- +goose Down
DROP INDEX inbound_documents_issuer_received;
DROP INDEX receiver_tokens_expires;
DROP INDEX receiver_seeds_expires;
