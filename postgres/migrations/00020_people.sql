-- +goose Up
-- The portal's people (docs/portal.md): users, their roles in tenants,
-- their sessions, one-time links (invitations, password resets) and the
-- audit log of what they change.
ALTER TABLE tenants ADD COLUMN second_factor_required boolean NOT NULL DEFAULT false; -- an owner's choice

CREATE TABLE users (
    id                text PRIMARY KEY,
    email             text NOT NULL UNIQUE, -- lower case
    password_hash     text NOT NULL DEFAULT '', -- argon2id; '' until set
    language          text NOT NULL DEFAULT 'es',
    totp_secret       bytea, -- sealed with the master key
    totp_confirmed_at timestamptz,
    totp_last_step    bigint NOT NULL DEFAULT 0,
    recovery_codes    bytea[] NOT NULL DEFAULT '{}', -- the unused codes' SHA-256 hashes
    created_at        timestamptz NOT NULL
);

CREATE TABLE memberships (
    tenant_id  text NOT NULL REFERENCES tenants (id),
    user_id    text NOT NULL REFERENCES users (id),
    role       text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'accountant')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

CREATE INDEX memberships_user ON memberships (user_id);

-- Only the SHA-256 of a session's cookie token is kept. Every node reads
-- the same sessions.
CREATE TABLE sessions (
    id               text PRIMARY KEY,
    token_hash       bytea NOT NULL,
    user_id          text NOT NULL REFERENCES users (id),
    tenant_id        text REFERENCES tenants (id), -- the tenant worked in; NULL for none
    csrf_token       text NOT NULL,
    second_factor_at timestamptz,
    address          text NOT NULL,
    user_agent       text NOT NULL,
    created_at       timestamptz NOT NULL,
    last_seen_at     timestamptz NOT NULL, -- idle expiry counts from it
    expires_at       timestamptz NOT NULL, -- absolute expiry
    revoked_at       timestamptz
);

CREATE UNIQUE INDEX sessions_token_hash ON sessions (token_hash);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
CREATE INDEX sessions_last_seen ON sessions (last_seen_at);

CREATE TABLE one_time_links (
    id         text PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,
    purpose    text NOT NULL CHECK (purpose IN ('invite', 'reset')),
    email      text NOT NULL,
    tenant_id  text REFERENCES tenants (id), -- invitations only
    role       text NOT NULL, -- invitations only; '' for a reset
    created_by text NOT NULL, -- a user's id; '' for the operator's CLI
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL,
    CHECK ((purpose = 'invite') = (tenant_id IS NOT NULL AND role <> ''))
);

CREATE INDEX one_time_links_expires ON one_time_links (expires_at);

-- The audit log: one chain per tenant (seq from 1), each entry's hash
-- covering the one before's (sello.AuditHash). An append locks its
-- tenant's row (FOR NO KEY UPDATE, which other tenants' appends and the
-- foreign keys' checks do not wait for) before it reads the last entry,
-- so that concurrent appends line up; UNIQUE (tenant_id, seq) refuses a
-- fork all the same.
CREATE TABLE audit_log (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    seq         bigint NOT NULL,
    actor_id    text NOT NULL, -- '' for the operator's CLI
    actor_email text NOT NULL,
    action      text NOT NULL,
    target      text NOT NULL,
    address     text NOT NULL,
    before_json bytea, -- bytes as given (not jsonb, which rewrites them), so the hash sees what was hashed
    after_json  bytea,
    at          timestamptz NOT NULL,
    prev_hash   bytea,
    hash        bytea NOT NULL,
    UNIQUE (tenant_id, seq)
);

CREATE INDEX audit_log_actor ON audit_log (tenant_id, actor_id, seq);

-- Append-only: the database refuses to change, remove or truncate
-- entries. A role that owns the table can drop the triggers; the chain
-- then shows the edit (sello audit verify).
-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- +goose Down
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
DROP TABLE one_time_links;
DROP TABLE sessions;
DROP TABLE memberships;
DROP TABLE users;
ALTER TABLE tenants DROP COLUMN second_factor_required;
