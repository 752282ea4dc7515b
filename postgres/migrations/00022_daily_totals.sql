-- +goose Up
-- The portal's month at a glance (docs/portal.md, "Inicio"): a tenant's
-- documents per day, type and state, with their count and the sums of
-- their MontoTotal and TotalITBIS, kept in the transaction of every
-- change by triggers, so that a page reads a few hundred rows whatever
-- the number of documents (docs/decisions.md, "Inicio's totals").
--
-- The day is the e-CF's FechaEmision. Amounts are DOP (DGII writes
-- Totales in pesos; OtraMoneda holds the foreign currency's), summed as
-- exact numerics.

-- A document's TotalITBIS, as it computed it.
ALTER TABLE documents ADD COLUMN itbis numeric(18, 2) NOT NULL DEFAULT 0;
UPDATE documents SET itbis = (payload -> 'ECF' -> 'Encabezado' -> 'Totales' ->> 'TotalITBIS')::numeric
    WHERE payload -> 'ECF' -> 'Encabezado' -> 'Totales' ->> 'TotalITBIS' IS NOT NULL;

-- A received document's TotalITBIS as written, '' when it has none.
ALTER TABLE inbound_documents ADD COLUMN itbis text NOT NULL DEFAULT '';
UPDATE inbound_documents
    SET itbis = substring(encode(xml, 'escape') FROM '<TotalITBIS>\s*([0-9]+(?:\.[0-9]+)?)\s*</TotalITBIS>')
    WHERE substring(encode(xml, 'escape') FROM '<TotalITBIS>\s*([0-9]+(?:\.[0-9]+)?)\s*</TotalITBIS>') IS NOT NULL;

-- The documents a tenant issued, per FechaEmision, type and state: the
-- document's status, those on their way to DGII together as in_process
-- (sello.IssuedInProcess), so that signing and sending a document move
-- nothing (the CASE below is written out where it is needed: a function
-- call costs a trigger more than the rest of its work). Today's
-- rows are updated by every write of the tenant's documents: each update
-- leaves a dead version of the row behind, which the next update must step
-- over until the page is pruned. A page kept 90% free (fillfactor 10) is
-- pruned on every access past 10% full, so an update never walks more than
-- a few dead versions (the table is a few rows a day per tenant: the space
-- does not matter).
CREATE TABLE document_days (
    tenant_id   text NOT NULL,
    environment text NOT NULL,
    day         date NOT NULL,
    type        text NOT NULL,
    state       text NOT NULL,
    count       bigint NOT NULL,
    total       numeric NOT NULL,
    itbis       numeric NOT NULL,
    PRIMARY KEY (tenant_id, environment, day, type, state)
) WITH (fillfactor = 10);

-- The documents suppliers sent a tenant, per FechaEmision, type and DGII's
-- confirmation ('' for the ones received before Sello asked DGII).
CREATE TABLE inbound_days (
    tenant_id   text NOT NULL,
    environment text NOT NULL,
    day         date NOT NULL,
    type        text NOT NULL,
    state       text NOT NULL,
    count       bigint NOT NULL,
    total       numeric NOT NULL,
    itbis       numeric NOT NULL,
    PRIMARY KEY (tenant_id, environment, day, type, state)
) WITH (fillfactor = 10);

INSERT INTO document_days (tenant_id, environment, day, type, state, count, total, itbis)
SELECT tenant_id, environment, issue_date, type,
    CASE WHEN status IN ('queued_for_signing', 'signed', 'submitted') THEN 'in_process' ELSE status END, count(*), sum(total), sum(itbis)
FROM documents GROUP BY 1, 2, 3, 4, 5;

INSERT INTO inbound_days (tenant_id, environment, day, type, state, count, total, itbis)
SELECT tenant_id, environment, issue_date, type, coalesce(dgii_status, ''), count(*), sum(total::numeric),
    sum(coalesce(nullif(itbis, '')::numeric, 0))
FROM inbound_documents GROUP BY tenant_id, environment, issue_date, type, coalesce(dgii_status, '');

-- The triggers: a new document adds to its day's row; a change of its
-- state (or of anything the row is keyed or summed by) moves it from the
-- old row to the new one; a deleted document leaves its row. A row stays
-- locked until the commit: a change locks its two rows in the rows' key
-- order (day, type, state), so that two changes never wait for each
-- other in a circle.
-- +goose StatementBegin
CREATE FUNCTION document_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o_state text;
    n_state text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        o_state := CASE WHEN OLD.status IN ('queued_for_signing', 'signed', 'submitted') THEN 'in_process' ELSE OLD.status END;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        n_state := CASE WHEN NEW.status IN ('queued_for_signing', 'signed', 'submitted') THEN 'in_process' ELSE NEW.status END;
    END IF;
    IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR (OLD.issue_date, OLD.type, o_state) >= (NEW.issue_date, NEW.type, n_state)) THEN
        INSERT INTO document_days AS d (tenant_id, environment, day, type, state, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, 1, NEW.total, NEW.itbis)
        ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE
            SET count = d.count + 1, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        UPDATE document_days SET count = count - 1, total = total - OLD.total, itbis = itbis - OLD.itbis
        WHERE tenant_id = OLD.tenant_id AND environment = OLD.environment AND day = OLD.issue_date
            AND type = OLD.type AND state = o_state;
    END IF;
    IF TG_OP = 'UPDATE' AND (OLD.issue_date, OLD.type, o_state) < (NEW.issue_date, NEW.type, n_state) THEN
        INSERT INTO document_days AS d (tenant_id, environment, day, type, state, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, 1, NEW.total, NEW.itbis)
        ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE
            SET count = d.count + 1, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER document_days AFTER INSERT OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION document_days_change();
CREATE TRIGGER document_days_update AFTER UPDATE OF status, issue_date, type, total, itbis ON documents
    FOR EACH ROW WHEN ((OLD.status IN ('queued_for_signing', 'signed', 'submitted')) IS DISTINCT FROM (NEW.status IN ('queued_for_signing', 'signed', 'submitted'))
        OR (OLD.status NOT IN ('queued_for_signing', 'signed', 'submitted') AND OLD.status IS DISTINCT FROM NEW.status)
        OR OLD.issue_date IS DISTINCT FROM NEW.issue_date
        OR OLD.type IS DISTINCT FROM NEW.type OR OLD.total IS DISTINCT FROM NEW.total OR OLD.itbis IS DISTINCT FROM NEW.itbis)
    EXECUTE FUNCTION document_days_change();

-- +goose StatementBegin
CREATE FUNCTION inbound_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o_state text;
    n_state text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        o_state := coalesce(OLD.dgii_status, '');
    END IF;
    IF TG_OP <> 'DELETE' THEN
        n_state := coalesce(NEW.dgii_status, '');
    END IF;
    IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR (OLD.issue_date, OLD.type, o_state) >= (NEW.issue_date, NEW.type, n_state)) THEN
        INSERT INTO inbound_days AS d (tenant_id, environment, day, type, state, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, 1, NEW.total::numeric, coalesce(nullif(NEW.itbis, '')::numeric, 0))
        ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE
            SET count = d.count + 1, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        UPDATE inbound_days SET count = count - 1, total = total - OLD.total::numeric,
            itbis = itbis - coalesce(nullif(OLD.itbis, '')::numeric, 0)
        WHERE tenant_id = OLD.tenant_id AND environment = OLD.environment AND day = OLD.issue_date
            AND type = OLD.type AND state = o_state;
    END IF;
    IF TG_OP = 'UPDATE' AND (OLD.issue_date, OLD.type, o_state) < (NEW.issue_date, NEW.type, n_state) THEN
        INSERT INTO inbound_days AS d (tenant_id, environment, day, type, state, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, 1, NEW.total::numeric, coalesce(nullif(NEW.itbis, '')::numeric, 0))
        ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE
            SET count = d.count + 1, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER inbound_days AFTER INSERT OR DELETE ON inbound_documents
    FOR EACH ROW EXECUTE FUNCTION inbound_days_change();
CREATE TRIGGER inbound_days_update AFTER UPDATE OF dgii_status, issue_date, type, total, itbis ON inbound_documents
    FOR EACH ROW WHEN (OLD.dgii_status IS DISTINCT FROM NEW.dgii_status OR OLD.issue_date IS DISTINCT FROM NEW.issue_date
        OR OLD.type IS DISTINCT FROM NEW.type OR OLD.total IS DISTINCT FROM NEW.total OR OLD.itbis IS DISTINCT FROM NEW.itbis)
    EXECUTE FUNCTION inbound_days_change();

-- +goose Down
DROP TRIGGER inbound_days_update ON inbound_documents;
DROP TRIGGER inbound_days ON inbound_documents;
DROP FUNCTION inbound_days_change();
DROP TRIGGER document_days_update ON documents;
DROP TRIGGER document_days ON documents;
DROP FUNCTION document_days_change();
DROP TABLE inbound_days;
DROP TABLE document_days;
ALTER TABLE inbound_documents DROP COLUMN itbis;
ALTER TABLE documents DROP COLUMN itbis;
