-- +goose Up
-- When each API key first and last authenticated a request, and from
-- which client address (written at most once a minute per key:
-- sello.APIKeyUses). NULL, and '' for the address, until the first use.
ALTER TABLE api_keys ADD COLUMN first_used_at TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_address TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE api_keys DROP COLUMN last_used_address;
ALTER TABLE api_keys DROP COLUMN last_used_at;
ALTER TABLE api_keys DROP COLUMN first_used_at;
