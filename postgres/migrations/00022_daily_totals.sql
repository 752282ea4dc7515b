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

-- The documents a tenant issued, per FechaEmision, type and status.
CREATE TABLE document_days (
    tenant_id   text NOT NULL,
    environment text NOT NULL,
    day         date NOT NULL,
    type        text NOT NULL,
    status      text NOT NULL,
    count       bigint NOT NULL,
    total       numeric NOT NULL,
    itbis       numeric NOT NULL,
    PRIMARY KEY (tenant_id, environment, day, type, status)
);

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
);

INSERT INTO document_days (tenant_id, environment, day, type, status, count, total, itbis)
SELECT tenant_id, environment, issue_date, type, status, count(*), sum(total), sum(itbis)
FROM documents GROUP BY tenant_id, environment, issue_date, type, status;

INSERT INTO inbound_days (tenant_id, environment, day, type, state, count, total, itbis)
SELECT tenant_id, environment, issue_date, type, coalesce(dgii_status, ''), count(*), sum(total::numeric),
    sum(coalesce(nullif(itbis, '')::numeric, 0))
FROM inbound_documents GROUP BY tenant_id, environment, issue_date, type, coalesce(dgii_status, '');

-- The triggers: a new document adds to its day's row; a change of its
-- status (or of anything the row is keyed or summed by) moves it from the
-- old row to the new one; a deleted document leaves its row. The row
-- stays locked until the commit: two changes lock their two rows in the
-- rows' key order, so that they never wait for each other in a circle.
-- +goose StatementBegin
CREATE FUNCTION document_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    -- The rows to change, in key order, and what each gets.
    days  date[];
    types text[];
    sts   text[];
    n     bigint[];
    tot   numeric[];
    itb   numeric[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        days := ARRAY[NEW.issue_date]; types := ARRAY[NEW.type]; sts := ARRAY[NEW.status];
        n := ARRAY[1]; tot := ARRAY[NEW.total]; itb := ARRAY[NEW.itbis];
    ELSIF TG_OP = 'DELETE' THEN
        days := ARRAY[OLD.issue_date]; types := ARRAY[OLD.type]; sts := ARRAY[OLD.status];
        n := ARRAY[-1]; tot := ARRAY[-OLD.total]; itb := ARRAY[-OLD.itbis];
    ELSIF (OLD.issue_date, OLD.type, OLD.status) < (NEW.issue_date, NEW.type, NEW.status) THEN
        days := ARRAY[OLD.issue_date, NEW.issue_date]; types := ARRAY[OLD.type, NEW.type]; sts := ARRAY[OLD.status, NEW.status];
        n := ARRAY[-1, 1]; tot := ARRAY[-OLD.total, NEW.total]; itb := ARRAY[-OLD.itbis, NEW.itbis];
    ELSE
        days := ARRAY[NEW.issue_date, OLD.issue_date]; types := ARRAY[NEW.type, OLD.type]; sts := ARRAY[NEW.status, OLD.status];
        n := ARRAY[1, -1]; tot := ARRAY[NEW.total, -OLD.total]; itb := ARRAY[NEW.itbis, -OLD.itbis];
    END IF;
    FOR i IN 1 .. array_length(n, 1) LOOP
        INSERT INTO document_days AS d (tenant_id, environment, day, type, status, count, total, itbis)
        VALUES (coalesce(NEW.tenant_id, OLD.tenant_id), coalesce(NEW.environment, OLD.environment), days[i], types[i], sts[i], n[i], tot[i], itb[i])
        ON CONFLICT (tenant_id, environment, day, type, status) DO UPDATE
            SET count = d.count + excluded.count, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER document_days AFTER INSERT OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION document_days_change();
CREATE TRIGGER document_days_update AFTER UPDATE OF status, issue_date, type, total, itbis ON documents
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.issue_date IS DISTINCT FROM NEW.issue_date
        OR OLD.type IS DISTINCT FROM NEW.type OR OLD.total IS DISTINCT FROM NEW.total OR OLD.itbis IS DISTINCT FROM NEW.itbis)
    EXECUTE FUNCTION document_days_change();

-- +goose StatementBegin
CREATE FUNCTION inbound_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    days  date[];
    types text[];
    sts   text[];
    n     bigint[];
    tot   numeric[];
    itb   numeric[];
    o_state text;
    n_state text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        o_state := coalesce(OLD.dgii_status, '');
    END IF;
    IF TG_OP <> 'DELETE' THEN
        n_state := coalesce(NEW.dgii_status, '');
    END IF;
    IF TG_OP = 'INSERT' THEN
        days := ARRAY[NEW.issue_date]; types := ARRAY[NEW.type]; sts := ARRAY[n_state];
        n := ARRAY[1]; tot := ARRAY[NEW.total::numeric]; itb := ARRAY[coalesce(nullif(NEW.itbis, '')::numeric, 0)];
    ELSIF TG_OP = 'DELETE' THEN
        days := ARRAY[OLD.issue_date]; types := ARRAY[OLD.type]; sts := ARRAY[o_state];
        n := ARRAY[-1]; tot := ARRAY[-OLD.total::numeric]; itb := ARRAY[-coalesce(nullif(OLD.itbis, '')::numeric, 0)];
    ELSIF (OLD.issue_date, OLD.type, o_state) < (NEW.issue_date, NEW.type, n_state) THEN
        days := ARRAY[OLD.issue_date, NEW.issue_date]; types := ARRAY[OLD.type, NEW.type]; sts := ARRAY[o_state, n_state];
        n := ARRAY[-1, 1]; tot := ARRAY[-OLD.total::numeric, NEW.total::numeric];
        itb := ARRAY[-coalesce(nullif(OLD.itbis, '')::numeric, 0), coalesce(nullif(NEW.itbis, '')::numeric, 0)];
    ELSE
        days := ARRAY[NEW.issue_date, OLD.issue_date]; types := ARRAY[NEW.type, OLD.type]; sts := ARRAY[n_state, o_state];
        n := ARRAY[1, -1]; tot := ARRAY[NEW.total::numeric, -OLD.total::numeric];
        itb := ARRAY[coalesce(nullif(NEW.itbis, '')::numeric, 0), -coalesce(nullif(OLD.itbis, '')::numeric, 0)];
    END IF;
    FOR i IN 1 .. array_length(n, 1) LOOP
        INSERT INTO inbound_days AS d (tenant_id, environment, day, type, state, count, total, itbis)
        VALUES (coalesce(NEW.tenant_id, OLD.tenant_id), coalesce(NEW.environment, OLD.environment), days[i], types[i], sts[i], n[i], tot[i], itb[i])
        ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE
            SET count = d.count + excluded.count, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END LOOP;
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
