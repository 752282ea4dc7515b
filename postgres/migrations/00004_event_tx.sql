-- +goose Up
-- The events API orders a tenant's events by the id of the transaction that
-- wrote them, then by seq, and lists only those of transactions older than
-- every one still running (postgres/event.go ListEvents): concurrent writers
-- need no common lock. Events written before have tx 0 and come first, in
-- seq order, which was their commit order.
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN tx SET DEFAULT pg_current_xact_id();

CREATE INDEX events_tenant_env_tx_seq ON events (tenant_id, environment, tx, seq);
CREATE INDEX events_tenant_env_type_tx_seq ON events (tenant_id, environment, type, tx, seq);
DROP INDEX events_tenant_env_seq;
DROP INDEX events_tenant_env_type_seq;

-- +goose Down
CREATE INDEX events_tenant_env_seq ON events (tenant_id, environment, seq);
CREATE INDEX events_tenant_env_type_seq ON events (tenant_id, environment, type, seq);
DROP INDEX events_tenant_env_type_tx_seq;
DROP INDEX events_tenant_env_tx_seq;
ALTER TABLE events DROP COLUMN tx;
