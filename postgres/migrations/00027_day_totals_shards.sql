-- +goose Up
-- The day totals in shards (docs/decisions.md, "Inicio's totals"): a
-- transaction adds to the rows of its own shard, the slot its transaction
-- id modulo 16, so that the creates and verdicts of one company, which
-- all change today's rows, no longer take turns on one row and its lock
-- until each commit has reached the disk. Transactions running at once
-- have nearby ids, hence different slots: they do not wait for each other.
-- A transaction writes one slot, in the rows' key order as before, so two
-- never wait for each other in a circle. Readers sum the slots. The rows
-- there are keep slot 0.
ALTER TABLE document_days ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE document_days DROP CONSTRAINT document_days_pkey,
    ADD CONSTRAINT document_days_pkey PRIMARY KEY (tenant_id, environment, day, type, state, slot);

-- A change adds -1 to its old row and +1 to its new one in its slot, each
-- an upsert (the slot's row may not exist yet), the lower key first.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION document_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s smallint := pg_current_xact_id()::text::bigint % 16;
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
        INSERT INTO document_days AS d (tenant_id, environment, day, type, state, slot, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, s, 1, NEW.total, NEW.itbis)
        ON CONFLICT (tenant_id, environment, day, type, state, slot) DO UPDATE
            SET count = d.count + excluded.count, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO document_days AS d (tenant_id, environment, day, type, state, slot, count, total, itbis)
        VALUES (OLD.tenant_id, OLD.environment, OLD.issue_date, OLD.type, o_state, s, -1, -OLD.total, -OLD.itbis)
        ON CONFLICT (tenant_id, environment, day, type, state, slot) DO UPDATE
            SET count = d.count + excluded.count, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    IF TG_OP = 'UPDATE' AND (OLD.issue_date, OLD.type, o_state) < (NEW.issue_date, NEW.type, n_state) THEN
        INSERT INTO document_days AS d (tenant_id, environment, day, type, state, slot, count, total, itbis)
        VALUES (NEW.tenant_id, NEW.environment, NEW.issue_date, NEW.type, n_state, s, 1, NEW.total, NEW.itbis)
        ON CONFLICT (tenant_id, environment, day, type, state, slot) DO UPDATE
            SET count = d.count + excluded.count, total = d.total + excluded.total, itbis = d.itbis + excluded.itbis;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
CREATE TEMPORARY TABLE document_days_folded ON COMMIT DROP AS
    SELECT tenant_id, environment, day, type, state, sum(count)::bigint AS count, sum(total) AS total, sum(itbis) AS itbis
    FROM document_days GROUP BY tenant_id, environment, day, type, state;
TRUNCATE document_days;
ALTER TABLE document_days DROP CONSTRAINT document_days_pkey, DROP COLUMN slot,
    ADD CONSTRAINT document_days_pkey PRIMARY KEY (tenant_id, environment, day, type, state);
INSERT INTO document_days (tenant_id, environment, day, type, state, count, total, itbis)
    SELECT tenant_id, environment, day, type, state, count, total, itbis FROM document_days_folded;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION document_days_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
