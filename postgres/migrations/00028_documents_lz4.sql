-- +goose Up
-- The documents' large values (the e-CF's JSON, the signed XML, the RFCE,
-- the buyer's acuse) compressed with LZ4 instead of pglz, where the server
-- was built with it (docs/decisions.md, "PostgreSQL's documents: TOAST").
-- A signed e-CF is about 3.5 KB, mostly base64 (the certificate, the
-- signature): pglz gives up on it (it wants a quarter saved) after having
-- tried the whole value, and the value goes out of line as it was; LZ4
-- tries in a small part of the time and keeps what it saves (a quarter
-- less TOAST here); reading it back costs a decompression of a few
-- microseconds. Values written before keep theirs; both are read alike.
-- Updates that do not set a value keep the TOAST pointer (the
-- transitions' coalesce($n, signed_xml)): nothing is recompressed.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE documents ALTER COLUMN payload SET COMPRESSION lz4, ALTER COLUMN signed_xml SET COMPRESSION lz4,
            ALTER COLUMN rfce_xml SET COMPRESSION lz4, ALTER COLUMN arecf_xml SET COMPRESSION lz4;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE documents ALTER COLUMN payload SET COMPRESSION DEFAULT, ALTER COLUMN signed_xml SET COMPRESSION DEFAULT,
    ALTER COLUMN rfce_xml SET COMPRESSION DEFAULT, ALTER COLUMN arecf_xml SET COMPRESSION DEFAULT;
