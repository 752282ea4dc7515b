-- +goose Up
-- When each warning of a range was written (issue 13): sequence.low and
-- sequence.expiring fire once per range.
ALTER TABLE sequences ADD COLUMN low_warned_at TEXT;
ALTER TABLE sequences ADD COLUMN expiry_warned_at TEXT;

-- +goose Down
ALTER TABLE sequences DROP COLUMN expiry_warned_at;
ALTER TABLE sequences DROP COLUMN low_warned_at;
