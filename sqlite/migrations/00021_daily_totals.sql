-- +goose Up
-- The portal's month at a glance (docs/portal.md, "Inicio"): a tenant's
-- documents per day, type and state, with their count and the sums of
-- their MontoTotal and TotalITBIS, kept in the transaction of every
-- change by triggers, so that a page reads a few hundred rows whatever
-- the number of documents (docs/decisions.md, "Inicio's totals").
--
-- The day is the e-CF's FechaEmision. Amounts are DOP (DGII writes
-- Totales in pesos; OtraMoneda holds the foreign currency's), summed in
-- exact cents: SQLite has no decimal type. The virtual columns *_cents
-- turn an amount's text ("1180", "1180.5" or "1180.00": at most two
-- decimals, as DGII's XSD allows) into cents without going through a
-- float.

-- A document's TotalITBIS, as it computed it (two decimals).
ALTER TABLE documents ADD COLUMN itbis TEXT NOT NULL DEFAULT '0.00';
UPDATE documents SET itbis = CASE json_type(payload, '$.ECF.Encabezado.Totales.TotalITBIS')
        WHEN 'text' THEN json_extract(payload, '$.ECF.Encabezado.Totales.TotalITBIS')
        WHEN 'integer' THEN json_extract(payload, '$.ECF.Encabezado.Totales.TotalITBIS') || '.00'
        ELSE printf('%.2f', json_extract(payload, '$.ECF.Encabezado.Totales.TotalITBIS')) END
    WHERE json_type(payload, '$.ECF.Encabezado.Totales.TotalITBIS') IN ('text', 'integer', 'real');
-- A document's state in the day totals: its status, those on their way to
-- DGII together (sello.IssuedInProcess), so that signing and sending a
-- document move nothing.
ALTER TABLE documents ADD COLUMN day_state TEXT GENERATED ALWAYS AS (
    CASE WHEN status IN ('queued_for_signing', 'signed', 'submitted') THEN 'in_process' ELSE status END) VIRTUAL;
ALTER TABLE documents ADD COLUMN total_cents INTEGER GENERATED ALWAYS AS (CASE WHEN instr(total, '.') = 0 THEN CAST(total AS INTEGER) * 100 ELSE CAST(substr(total, 1, instr(total, '.') - 1) AS INTEGER) * 100 + CAST(substr(substr(total, instr(total, '.') + 1) || '00', 1, 2) AS INTEGER) END) VIRTUAL;
ALTER TABLE documents ADD COLUMN itbis_cents INTEGER GENERATED ALWAYS AS (CASE WHEN instr(itbis, '.') = 0 THEN CAST(itbis AS INTEGER) * 100 ELSE CAST(substr(itbis, 1, instr(itbis, '.') - 1) AS INTEGER) * 100 + CAST(substr(substr(itbis, instr(itbis, '.') + 1) || '00', 1, 2) AS INTEGER) END) VIRTUAL;

-- A received document's TotalITBIS as written, '' when it has none.
ALTER TABLE inbound_documents ADD COLUMN itbis TEXT NOT NULL DEFAULT '';
UPDATE inbound_documents SET itbis = trim(CAST(substr(xml, instr(xml, CAST('<TotalITBIS>' AS BLOB)) + 12,
        instr(xml, CAST('</TotalITBIS>' AS BLOB)) - instr(xml, CAST('<TotalITBIS>' AS BLOB)) - 12) AS TEXT))
    WHERE instr(xml, CAST('<TotalITBIS>' AS BLOB)) > 0 AND instr(xml, CAST('</TotalITBIS>' AS BLOB)) > 0;
ALTER TABLE inbound_documents ADD COLUMN total_cents INTEGER GENERATED ALWAYS AS (CASE WHEN instr(total, '.') = 0 THEN CAST(total AS INTEGER) * 100 ELSE CAST(substr(total, 1, instr(total, '.') - 1) AS INTEGER) * 100 + CAST(substr(substr(total, instr(total, '.') + 1) || '00', 1, 2) AS INTEGER) END) VIRTUAL;
ALTER TABLE inbound_documents ADD COLUMN itbis_cents INTEGER GENERATED ALWAYS AS (CASE WHEN instr(itbis, '.') = 0 THEN CAST(itbis AS INTEGER) * 100 ELSE CAST(substr(itbis, 1, instr(itbis, '.') - 1) AS INTEGER) * 100 + CAST(substr(substr(itbis, instr(itbis, '.') + 1) || '00', 1, 2) AS INTEGER) END) VIRTUAL;

-- The documents a tenant issued, per FechaEmision, type and day_state.
CREATE TABLE document_days (
    tenant_id   TEXT NOT NULL,
    environment TEXT NOT NULL,
    day         TEXT NOT NULL, -- yyyy-MM-dd
    type        TEXT NOT NULL,
    state       TEXT NOT NULL,
    count       INTEGER NOT NULL,
    total_cents INTEGER NOT NULL,
    itbis_cents INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, environment, day, type, state)
) STRICT, WITHOUT ROWID;

-- The documents suppliers sent a tenant, per FechaEmision, type and DGII's
-- confirmation ('' for the ones received before Sello asked DGII).
CREATE TABLE inbound_days (
    tenant_id   TEXT NOT NULL,
    environment TEXT NOT NULL,
    day         TEXT NOT NULL, -- yyyy-MM-dd
    type        TEXT NOT NULL,
    state       TEXT NOT NULL,
    count       INTEGER NOT NULL,
    total_cents INTEGER NOT NULL,
    itbis_cents INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, environment, day, type, state)
) STRICT, WITHOUT ROWID;

INSERT INTO document_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
SELECT tenant_id, environment, issue_date, type, day_state, count(*), sum(total_cents), sum(itbis_cents)
FROM documents GROUP BY tenant_id, environment, issue_date, type, day_state;

INSERT INTO inbound_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
SELECT tenant_id, environment, issue_date, type, coalesce(dgii_status, ''), count(*), sum(total_cents), sum(itbis_cents)
FROM inbound_documents GROUP BY tenant_id, environment, issue_date, type, coalesce(dgii_status, '');

-- The triggers: a new document adds to its day's row; a change of its
-- state (or of anything the row is keyed or summed by) moves it from the
-- old row to the new one; a deleted document leaves its row. SQLite has
-- one writer, so the rows need no locking order (PostgreSQL's do).
-- +goose StatementBegin
CREATE TRIGGER document_days_insert AFTER INSERT ON documents
BEGIN
    INSERT INTO document_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
    VALUES (new.tenant_id, new.environment, new.issue_date, new.type, new.day_state, 1, new.total_cents, new.itbis_cents)
    ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE SET count = count + excluded.count,
        total_cents = total_cents + excluded.total_cents, itbis_cents = itbis_cents + excluded.itbis_cents;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER document_days_update AFTER UPDATE OF status, issue_date, type, total, itbis ON documents
WHEN old.day_state IS NOT new.day_state OR old.issue_date IS NOT new.issue_date OR old.type IS NOT new.type
    OR old.total IS NOT new.total OR old.itbis IS NOT new.itbis
BEGIN
    UPDATE document_days SET count = count - 1, total_cents = total_cents - old.total_cents, itbis_cents = itbis_cents - old.itbis_cents
    WHERE tenant_id = old.tenant_id AND environment = old.environment AND day = old.issue_date AND type = old.type
        AND state = old.day_state;
    INSERT INTO document_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
    VALUES (new.tenant_id, new.environment, new.issue_date, new.type, new.day_state, 1, new.total_cents, new.itbis_cents)
    ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE SET count = count + excluded.count,
        total_cents = total_cents + excluded.total_cents, itbis_cents = itbis_cents + excluded.itbis_cents;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER document_days_delete AFTER DELETE ON documents
BEGIN
    UPDATE document_days SET count = count - 1, total_cents = total_cents - old.total_cents, itbis_cents = itbis_cents - old.itbis_cents
    WHERE tenant_id = old.tenant_id AND environment = old.environment AND day = old.issue_date AND type = old.type
        AND state = old.day_state;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbound_days_insert AFTER INSERT ON inbound_documents
BEGIN
    INSERT INTO inbound_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
    VALUES (new.tenant_id, new.environment, new.issue_date, new.type, coalesce(new.dgii_status, ''), 1, new.total_cents, new.itbis_cents)
    ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE SET count = count + excluded.count,
        total_cents = total_cents + excluded.total_cents, itbis_cents = itbis_cents + excluded.itbis_cents;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbound_days_update AFTER UPDATE OF dgii_status, issue_date, type, total, itbis ON inbound_documents
WHEN old.dgii_status IS NOT new.dgii_status OR old.issue_date IS NOT new.issue_date OR old.type IS NOT new.type
    OR old.total IS NOT new.total OR old.itbis IS NOT new.itbis
BEGIN
    UPDATE inbound_days SET count = count - 1, total_cents = total_cents - old.total_cents, itbis_cents = itbis_cents - old.itbis_cents
    WHERE tenant_id = old.tenant_id AND environment = old.environment AND day = old.issue_date AND type = old.type
        AND state = coalesce(old.dgii_status, '');
    INSERT INTO inbound_days (tenant_id, environment, day, type, state, count, total_cents, itbis_cents)
    VALUES (new.tenant_id, new.environment, new.issue_date, new.type, coalesce(new.dgii_status, ''), 1, new.total_cents, new.itbis_cents)
    ON CONFLICT (tenant_id, environment, day, type, state) DO UPDATE SET count = count + excluded.count,
        total_cents = total_cents + excluded.total_cents, itbis_cents = itbis_cents + excluded.itbis_cents;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbound_days_delete AFTER DELETE ON inbound_documents
BEGIN
    UPDATE inbound_days SET count = count - 1, total_cents = total_cents - old.total_cents, itbis_cents = itbis_cents - old.itbis_cents
    WHERE tenant_id = old.tenant_id AND environment = old.environment AND day = old.issue_date AND type = old.type
        AND state = coalesce(old.dgii_status, '');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER inbound_days_delete;
DROP TRIGGER inbound_days_update;
DROP TRIGGER inbound_days_insert;
DROP TRIGGER document_days_delete;
DROP TRIGGER document_days_update;
DROP TRIGGER document_days_insert;
DROP TABLE inbound_days;
DROP TABLE document_days;
ALTER TABLE inbound_documents DROP COLUMN itbis_cents;
ALTER TABLE inbound_documents DROP COLUMN total_cents;
ALTER TABLE inbound_documents DROP COLUMN itbis;
ALTER TABLE documents DROP COLUMN itbis_cents;
ALTER TABLE documents DROP COLUMN total_cents;
ALTER TABLE documents DROP COLUMN day_state;
ALTER TABLE documents DROP COLUMN itbis;
