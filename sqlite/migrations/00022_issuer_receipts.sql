-- +goose Up
-- The receivers' per-issuer quota (ReceiverLimits.IssuerQuota) counts a
-- tenant's documents of one issuer that DGII has not accepted, received
-- in the last 24 hours. Counting them on every receipt grew with the
-- issuer's documents in the day; these counts per hour (UTC, the hour's
-- start in received_at's format) are kept in the transactions that store
-- a document (+1) and record DGII's acceptance of it (-1), and a receipt
-- sums at most 25 of them. The documents kept so far are counted here.
CREATE TABLE inbound_issuer_receipts (
    tenant_id   TEXT NOT NULL,
    environment TEXT NOT NULL,
    issuer_rnc  TEXT NOT NULL,
    hour        TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, environment, issuer_rnc, hour)
) STRICT, WITHOUT ROWID;

-- The prune of past hours: a range.
CREATE INDEX inbound_issuer_receipts_hour ON inbound_issuer_receipts (hour);

INSERT INTO inbound_issuer_receipts (tenant_id, environment, issuer_rnc, hour, n)
SELECT tenant_id, environment, issuer_rnc, substr(received_at, 1, 13) || ':00:00.000000Z', count(*)
FROM inbound_documents
WHERE dgii_status IS NULL OR dgii_status <> 'accepted'
GROUP BY tenant_id, environment, issuer_rnc, substr(received_at, 1, 13);

-- +goose Down
DROP TABLE inbound_issuer_receipts;
