-- +goose Up
-- The portal's people (docs/portal.md): users, their roles in tenants,
-- their sessions, one-time links (invitations, password resets) and the
-- audit log of what they change.
ALTER TABLE tenants ADD COLUMN second_factor_required INTEGER NOT NULL DEFAULT 0; -- an owner's choice

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    email             TEXT NOT NULL UNIQUE, -- lower case
    password_hash     TEXT NOT NULL DEFAULT '', -- argon2id; '' until set
    language          TEXT NOT NULL DEFAULT 'es',
    totp_secret       BLOB, -- sealed with the master key
    totp_confirmed_at TEXT,
    totp_last_step    INTEGER NOT NULL DEFAULT 0,
    recovery_codes    BLOB, -- the unused codes' SHA-256 hashes, 32 bytes each, one after another
    created_at        TEXT NOT NULL
) STRICT;

CREATE TABLE memberships (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    user_id    TEXT NOT NULL REFERENCES users (id),
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'accountant')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
) STRICT;

CREATE INDEX memberships_user ON memberships (user_id);

-- Only the SHA-256 of a session's cookie token is kept.
CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    token_hash       BLOB NOT NULL,
    user_id          TEXT NOT NULL REFERENCES users (id),
    tenant_id        TEXT REFERENCES tenants (id), -- the tenant worked in; NULL for none
    csrf_token       TEXT NOT NULL,
    second_factor_at TEXT,
    address          TEXT NOT NULL,
    user_agent       TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    last_seen_at     TEXT NOT NULL, -- idle expiry counts from it
    expires_at       TEXT NOT NULL, -- absolute expiry
    revoked_at       TEXT
) STRICT;

CREATE UNIQUE INDEX sessions_token_hash ON sessions (token_hash);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
CREATE INDEX sessions_last_seen ON sessions (last_seen_at);

CREATE TABLE one_time_links (
    id         TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('invite', 'reset')),
    email      TEXT NOT NULL,
    tenant_id  TEXT REFERENCES tenants (id), -- invitations only
    role       TEXT NOT NULL, -- invitations only; '' for a reset
    created_by TEXT NOT NULL, -- a user's id; '' for the operator's CLI
    expires_at TEXT NOT NULL,
    used_at    TEXT,
    created_at TEXT NOT NULL,
    CHECK ((purpose = 'invite') = (tenant_id IS NOT NULL AND role <> ''))
) STRICT;

CREATE INDEX one_time_links_expires ON one_time_links (expires_at);

-- The audit log: one chain per tenant (seq from 1), each entry's hash
-- covering the one before's (sello.AuditHash). Appends read the last
-- entry in the same write transaction as they insert (SQLite has one
-- writer at a time), and UNIQUE (tenant_id, seq) refuses a fork.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    seq         INTEGER NOT NULL,
    actor_id    TEXT NOT NULL, -- '' for the operator's CLI
    actor_email TEXT NOT NULL,
    action      TEXT NOT NULL,
    target      TEXT NOT NULL,
    address     TEXT NOT NULL,
    before_json BLOB, -- bytes as given, so the hash sees what was hashed
    after_json  BLOB,
    at          TEXT NOT NULL,
    prev_hash   BLOB,
    hash        BLOB NOT NULL,
    UNIQUE (tenant_id, seq)
) STRICT;

CREATE INDEX audit_log_actor ON audit_log (tenant_id, actor_id, seq);

-- Append-only: the database refuses to change or remove an entry. Whoever
-- can write the file can drop the triggers; the chain then shows the edit
-- (sello audit verify).
-- +goose StatementBegin
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only: UPDATE refused');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only: DELETE refused');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER audit_log_no_delete;
DROP TRIGGER audit_log_no_update;
DROP TABLE audit_log;
DROP TABLE one_time_links;
DROP TABLE sessions;
DROP TABLE memberships;
DROP TABLE users;
ALTER TABLE tenants DROP COLUMN second_factor_required;
