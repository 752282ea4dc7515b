-- +goose Up
-- The receivers' per-issuer quota (ReceiverLimits.IssuerQuota) counts a
-- tenant's documents of one issuer that DGII has not accepted, received
-- in the last 24 hours. Counting them on every receipt grew with the
-- issuer's documents in the day; these counts per hour (UTC, the hour's
-- start) are kept in the transactions that store a document (+1) and
-- record DGII's acceptance of it (-1), and a receipt sums at most 25 of
-- them. The documents kept so far are counted here.
CREATE TABLE inbound_issuer_receipts (
    tenant_id   text NOT NULL,
    environment text NOT NULL,
    issuer_rnc  text NOT NULL,
    hour        timestamptz NOT NULL,
    n           integer NOT NULL,
    PRIMARY KEY (tenant_id, environment, issuer_rnc, hour)
);

-- The prune of past hours: a range.
CREATE INDEX inbound_issuer_receipts_hour ON inbound_issuer_receipts (hour);

INSERT INTO inbound_issuer_receipts (tenant_id, environment, issuer_rnc, hour, n)
SELECT tenant_id, environment, issuer_rnc, date_trunc('hour', received_at, 'UTC'), count(*)
FROM inbound_documents
WHERE dgii_status IS NULL OR dgii_status <> 'accepted'
GROUP BY 1, 2, 3, 4;

-- +goose Down
DROP TABLE inbound_issuer_receipts;
