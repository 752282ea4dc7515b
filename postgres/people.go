package postgres

import (
	"context"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// CreateUser implements sello.PeopleStore. Returns INVALID_REQUEST or
// CONFLICT.
func (db *DB) CreateUser(ctx context.Context, u *sello.User) error {
	email, err := sello.NormalizeEmail(u.Email)
	if err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	lang := u.Language
	if lang == "" {
		lang = "es"
	}
	_, err = db.pool.Exec(ctx, `
		INSERT INTO users (id, email, password_hash, language, totp_secret, totp_confirmed_at, recovery_codes, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, email, u.PasswordHash, lang, nullBytes(u.TOTPSecret), sello.StoredTime(u.TOTPConfirmedAt), hashesValue(u.RecoveryCodeHashes), now)
	if errorKind(err) == kindUnique {
		return sello.Errorf(sello.CodeConflict, "A user with email %s exists.", email).WithErr(err)
	} else if err != nil {
		return dbError(err, "create user")
	}
	u.ID, u.Email, u.Language, u.CreatedAt = id, email, lang, now
	u.TOTPConfirmedAt = sello.StoredTime(u.TOTPConfirmedAt)
	return nil
}

const userColumns = `id, email, password_hash, language, totp_secret, totp_confirmed_at, totp_last_step, recovery_codes, created_at`

// FindUserByID implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindUserByID(ctx context.Context, id string) (*sello.User, error) {
	return db.findUser(ctx, `id = $1`, id)
}

// FindUserByEmail implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (*sello.User, error) {
	e, err := sello.NormalizeEmail(email)
	if err != nil {
		return nil, sello.Errorf(sello.CodeNotFound, "User not found.")
	}
	return db.findUser(ctx, `email = $1`, e)
}

func (db *DB) findUser(ctx context.Context, where string, arg any) (*sello.User, error) {
	var u sello.User
	var codes [][]byte
	err := db.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE `+where, arg).Scan(
		&u.ID, &u.Email, &u.PasswordHash, &u.Language, &u.TOTPSecret, &u.TOTPConfirmedAt, &u.TOTPLastStep, &codes, &u.CreatedAt)
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "User not found.")
	} else if err != nil {
		return nil, dbError(err, "find user")
	}
	u.CreatedAt, u.TOTPConfirmedAt = utc(u.CreatedAt), utcPtr(u.TOTPConfirmedAt)
	if len(codes) > 0 {
		u.RecoveryCodeHashes = codes
	}
	return &u, nil
}

// UpdateUser implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) UpdateUser(ctx context.Context, u *sello.User) error {
	u.TOTPConfirmedAt = sello.StoredTime(u.TOTPConfirmedAt)
	tag, err := db.pool.Exec(ctx, `
		UPDATE users SET password_hash = $1, language = $2, totp_secret = $3, totp_confirmed_at = $4, recovery_codes = $5
		WHERE id = $6`,
		u.PasswordHash, u.Language, nullBytes(u.TOTPSecret), u.TOTPConfirmedAt, hashesValue(u.RecoveryCodeHashes), u.ID)
	return oneRow(tag.RowsAffected(), err, "update user", "User not found.")
}

// UseTOTPStep implements sello.PeopleStore: one conditional UPDATE, which
// a concurrent one with the same step waits for and then finds false.
// Returns CONFLICT or NOT_FOUND.
func (db *DB) UseTOTPStep(ctx context.Context, userID string, step int64) error {
	tag, err := db.pool.Exec(ctx, `UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_last_step < $1`, step, userID)
	if err != nil {
		return dbError(err, "use totp step")
	} else if tag.RowsAffected() == 1 {
		return nil
	}
	if _, err := db.FindUserByID(ctx, userID); err != nil {
		return err
	}
	return sello.Errorf(sello.CodeConflict, "This code, or a later one, was used already.")
}

// UseRecoveryCode implements sello.PeopleStore: one conditional UPDATE.
// Returns NOT_FOUND.
func (db *DB) UseRecoveryCode(ctx context.Context, userID string, hash []byte) error {
	tag, err := db.pool.Exec(ctx, `
		UPDATE users SET recovery_codes = array_remove(recovery_codes, $1)
		WHERE id = $2 AND $1 = ANY (recovery_codes)`, hash, userID)
	if err != nil {
		return dbError(err, "use recovery code")
	} else if tag.RowsAffected() == 0 {
		return sello.Errorf(sello.CodeNotFound, "No such unused recovery code.")
	}
	return nil
}

func hashesValue(hashes [][]byte) [][]byte {
	if hashes == nil {
		return [][]byte{}
	}
	return hashes
}

func nullBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// oneRow turns an UPDATE's count into NOT_FOUND (with msg) when it
// changed no row.
func oneRow(n int64, err error, op, msg string) error {
	if err != nil {
		return dbError(err, op)
	} else if n == 0 {
		return sello.Errorf(sello.CodeNotFound, "%s", msg)
	}
	return nil
}

// lockTenant locks the tenant's row FOR NO KEY UPDATE: the membership
// changes and audit appends of one tenant line up behind it, while the
// foreign keys' checks (FOR KEY SHARE) and other tenants do not wait.
// Returns NOT_FOUND.
func lockTenant(ctx context.Context, tx pgx.Tx, tenantID string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE`, tenantID).Scan(&one)
	if isNoRows(err) {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return err
}

// PutMembership implements sello.PeopleStore. Returns INVALID_REQUEST,
// NOT_FOUND or CONFLICT.
func (db *DB) PutMembership(ctx context.Context, m *sello.Membership) error {
	if _, err := sello.ParseRole(string(m.Role)); err != nil {
		return err
	}
	now := db.now()
	var email string
	var created time.Time
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTenant(ctx, tx, m.TenantID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT email FROM users WHERE id = $1`, m.UserID).Scan(&email); isNoRows(err) {
			return sello.Errorf(sello.CodeNotFound, "User %q not found.", m.UserID)
		} else if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO memberships (tenant_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = excluded.role
			RETURNING created_at`, m.TenantID, m.UserID, m.Role, now).Scan(&created); err != nil {
			return err
		}
		return checkOwner(ctx, tx, m.TenantID, false)
	})
	if err != nil {
		return dbError(err, "put membership")
	}
	m.Email, m.CreatedAt = email, utc(created)
	return nil
}

// checkOwner returns CONFLICT if the tenant has members but no owner, or
// no owner once ownerGone (the last member, an owner, left). It
// runs in the transaction of the change, after it, with the tenant locked
// (lockTenant): no other change of its members comes between.
func checkOwner(ctx context.Context, tx pgx.Tx, tenantID string, ownerGone bool) error {
	var members, owners int
	if err := tx.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE role = 'owner') FROM memberships WHERE tenant_id = $1`,
		tenantID).Scan(&members, &owners); err != nil {
		return err
	}
	if owners == 0 && (members > 0 || ownerGone) {
		return sello.Errorf(sello.CodeConflict, "The tenant must keep an owner: make another user owner first.")
	}
	return nil
}

// DeleteMembership implements sello.PeopleStore. Returns NOT_FOUND or
// CONFLICT.
func (db *DB) DeleteMembership(ctx context.Context, tenantID, userID string) error {
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTenant(ctx, tx, tenantID); err != nil {
			return err
		}
		var role sello.Role
		err := tx.QueryRow(ctx, `DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2 RETURNING role`, tenantID, userID).Scan(&role)
		if isNoRows(err) {
			return sello.Errorf(sello.CodeNotFound, "The user is not a member of the tenant.")
		} else if err != nil {
			return err
		}
		return checkOwner(ctx, tx, tenantID, role == sello.RoleOwner)
	})
	return dbError(err, "delete membership")
}

// FindMemberships implements sello.PeopleStore.
func (db *DB) FindMemberships(ctx context.Context, tenantID string) ([]*sello.Membership, error) {
	return db.findMemberships(ctx, `m.tenant_id = $1 ORDER BY u.email`, tenantID)
}

// FindUserMemberships implements sello.PeopleStore.
func (db *DB) FindUserMemberships(ctx context.Context, userID string) ([]*sello.Membership, error) {
	return db.findMemberships(ctx, `m.user_id = $1 ORDER BY m.created_at, m.tenant_id`, userID)
}

func (db *DB) findMemberships(ctx context.Context, where string, arg any) ([]*sello.Membership, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT m.tenant_id, m.user_id, u.email, m.role, m.created_at
		FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE `+where, arg)
	if err != nil {
		return nil, dbError(err, "find memberships")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Membership, error) {
		var m sello.Membership
		err := r.Scan(&m.TenantID, &m.UserID, &m.Email, &m.Role, &m.CreatedAt)
		m.CreatedAt = utc(m.CreatedAt)
		return &m, err
	})
	return out, dbError(err, "find memberships")
}

// SetSecondFactorRequired implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) SetSecondFactorRequired(ctx context.Context, tenantID string, required bool) error {
	tag, err := db.pool.Exec(ctx, `UPDATE tenants SET second_factor_required = $1 WHERE id = $2`, required, tenantID)
	return oneRow(tag.RowsAffected(), err, "set second factor required", "Tenant \""+tenantID+"\" not found.")
}

// SecondFactorRequired implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) SecondFactorRequired(ctx context.Context, tenantID string) (bool, error) {
	var required bool
	err := db.pool.QueryRow(ctx, `SELECT second_factor_required FROM tenants WHERE id = $1`, tenantID).Scan(&required)
	if isNoRows(err) {
		return false, sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return required, dbError(err, "second factor required")
}

// CreateSession implements sello.PeopleStore. Returns INVALID_REQUEST,
// NOT_FOUND or CONFLICT.
func (db *DB) CreateSession(ctx context.Context, s *sello.Session) error {
	if len(s.TokenHash) == 0 {
		return sello.Errorf(sello.CodeInvalidRequest, "Session token hash required.")
	}
	id := sello.NewID()
	defaultSessionTimes(s, db.now())
	_, err := db.pool.Exec(ctx, `
		INSERT INTO sessions (id, token_hash, user_id, tenant_id, csrf_token, second_factor_at, address, user_agent, created_at, last_seen_at, expires_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		id, s.TokenHash, s.UserID, nullText(s.TenantID), s.CSRFToken, s.SecondFactorAt, addrText(s.Address), s.UserAgent,
		s.CreatedAt, s.LastSeenAt, s.ExpiresAt, s.RevokedAt)
	switch errorKind(err) {
	case kindForeignKey:
		return &sello.Error{Code: sello.CodeNotFound, Message: "The session's user or tenant does not exist.", Err: err}
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "A session with this token hash exists.", Err: err}
	}
	if err != nil {
		return dbError(err, "create session")
	}
	s.ID = id
	return nil
}

// defaultSessionTimes sets the times s lacks (CreatedAt now, LastSeenAt
// CreatedAt, ExpiresAt SessionLifetime after it) and brings them all to
// the stored precision.
func defaultSessionTimes(s *sello.Session, now time.Time) {
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.LastSeenAt.IsZero() {
		s.LastSeenAt = s.CreatedAt
	}
	if s.ExpiresAt.IsZero() {
		s.ExpiresAt = s.CreatedAt.Add(sello.SessionLifetime)
	}
	s.CreatedAt = s.CreatedAt.UTC().Truncate(time.Microsecond)
	s.LastSeenAt = s.LastSeenAt.UTC().Truncate(time.Microsecond)
	s.ExpiresAt = s.ExpiresAt.UTC().Truncate(time.Microsecond)
	s.SecondFactorAt, s.RevokedAt = sello.StoredTime(s.SecondFactorAt), sello.StoredTime(s.RevokedAt)
}

func addrText(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

const sessionColumns = `id, token_hash, user_id, tenant_id, csrf_token, second_factor_at, address, user_agent, created_at, last_seen_at, expires_at, revoked_at`

// FindSessionByTokenHash implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindSessionByTokenHash(ctx context.Context, hash []byte) (*sello.Session, error) {
	var s sello.Session
	var tenant *string
	var addr string
	err := db.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE token_hash = $1`, hash).Scan(
		&s.ID, &s.TokenHash, &s.UserID, &tenant, &s.CSRFToken, &s.SecondFactorAt, &addr, &s.UserAgent, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &s.RevokedAt)
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "Session not found.")
	} else if err != nil {
		return nil, dbError(err, "find session")
	}
	if tenant != nil {
		s.TenantID = *tenant
	}
	if addr != "" {
		if s.Address, err = netip.ParseAddr(addr); err != nil {
			return nil, err
		}
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = utc(s.CreatedAt), utc(s.LastSeenAt), utc(s.ExpiresAt)
	s.SecondFactorAt, s.RevokedAt = utcPtr(s.SecondFactorAt), utcPtr(s.RevokedAt)
	return &s, nil
}

// TouchSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) TouchSession(ctx context.Context, id string, now time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $1 WHERE id = $2`, now.UTC().Truncate(time.Microsecond), id)
	return oneRow(tag.RowsAffected(), err, "touch session", "Session not found.")
}

// UpdateSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) UpdateSession(ctx context.Context, s *sello.Session) error {
	s.SecondFactorAt = sello.StoredTime(s.SecondFactorAt)
	tag, err := db.pool.Exec(ctx, `UPDATE sessions SET tenant_id = $1, second_factor_at = $2 WHERE id = $3`,
		nullText(s.TenantID), s.SecondFactorAt, s.ID)
	if errorKind(err) == kindForeignKey {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", s.TenantID).WithErr(err)
	}
	return oneRow(tag.RowsAffected(), err, "update session", "Session not found.")
}

// RevokeSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) RevokeSession(ctx context.Context, id string, now time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE sessions SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`,
		now.UTC().Truncate(time.Microsecond), id)
	return oneRow(tag.RowsAffected(), err, "revoke session", "Session not found.")
}

// RevokeUserSessions implements sello.PeopleStore.
func (db *DB) RevokeUserSessions(ctx context.Context, userID, except string, now time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND id <> $3 AND revoked_at IS NULL`,
		now.UTC().Truncate(time.Microsecond), userID, except)
	return dbError(err, "revoke user sessions")
}

// PruneSessions implements sello.PeopleStore.
func (db *DB) PruneSessions(ctx context.Context, now, idleBefore time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= $1 OR last_seen_at < $2`,
		now.UTC(), idleBefore.UTC())
	return tag.RowsAffected(), dbError(err, "prune sessions")
}

// CreateLink implements sello.PeopleStore. Returns INVALID_REQUEST,
// NOT_FOUND or CONFLICT.
func (db *DB) CreateLink(ctx context.Context, l *sello.OneTimeLink) error {
	if err := sello.CheckLink(l); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	l.ExpiresAt = l.ExpiresAt.UTC().Truncate(time.Microsecond)
	l.UsedAt = sello.StoredTime(l.UsedAt)
	_, err := db.pool.Exec(ctx, `
		INSERT INTO one_time_links (id, token_hash, purpose, email, tenant_id, role, created_by, expires_at, used_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		id, l.TokenHash, l.Purpose, l.Email, nullText(l.TenantID), l.Role, l.CreatedBy, l.ExpiresAt, l.UsedAt, now)
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", l.TenantID).WithErr(err)
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "A link with this token hash exists.", Err: err}
	}
	if err != nil {
		return dbError(err, "create link")
	}
	l.ID, l.CreatedAt = id, now
	return nil
}

const linkColumns = `id, token_hash, purpose, email, tenant_id, role, created_by, expires_at, used_at, created_at`

// UseLink implements sello.PeopleStore: one conditional UPDATE, which a
// concurrent one waits for and then finds the link used. Returns
// NOT_FOUND.
func (db *DB) UseLink(ctx context.Context, hash []byte, now time.Time) (*sello.OneTimeLink, error) {
	now = now.UTC().Truncate(time.Microsecond)
	l, err := scanLink(db.pool.QueryRow(ctx, `
		UPDATE one_time_links SET used_at = $1
		WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1
		RETURNING `+linkColumns, now, hash))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "The link is unknown, used or expired.")
	}
	return l, dbError(err, "use link")
}

// FindLink implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindLink(ctx context.Context, hash []byte, now time.Time) (*sello.OneTimeLink, error) {
	l, err := scanLink(db.pool.QueryRow(ctx, `
		SELECT `+linkColumns+` FROM one_time_links
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`, hash, now.UTC()))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "The link is unknown, used or expired.")
	}
	return l, dbError(err, "find link")
}

// PruneLinks implements sello.PeopleStore.
func (db *DB) PruneLinks(ctx context.Context, now time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM one_time_links WHERE used_at < $1 OR expires_at < $1`, now.UTC())
	return tag.RowsAffected(), dbError(err, "prune links")
}

func scanLink(r pgx.Row) (*sello.OneTimeLink, error) {
	var l sello.OneTimeLink
	var tenant *string
	if err := r.Scan(&l.ID, &l.TokenHash, &l.Purpose, &l.Email, &tenant, &l.Role, &l.CreatedBy, &l.ExpiresAt, &l.UsedAt, &l.CreatedAt); err != nil {
		return nil, err
	}
	if tenant != nil {
		l.TenantID = *tenant
	}
	l.ExpiresAt, l.CreatedAt, l.UsedAt = utc(l.ExpiresAt), utc(l.CreatedAt), utcPtr(l.UsedAt)
	return &l, nil
}

// AppendAudit implements sello.PeopleStore: it locks the tenant's row
// (lockTenant), reads the chain's last entry and inserts the next in one
// transaction, so that concurrent appends line up instead of forking.
// Returns INVALID_REQUEST or NOT_FOUND.
func (db *DB) AppendAudit(ctx context.Context, e *sello.AuditEntry) error {
	if e.Action == "" {
		return sello.Errorf(sello.CodeInvalidRequest, "Audit entry action required.")
	}
	at := e.At
	if at.IsZero() {
		at = db.now()
	}
	next := *e
	next.ID, next.At = sello.NewID(), at.UTC().Truncate(time.Microsecond)
	next.Before, next.After = nullBytes(e.Before), nullBytes(e.After)
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTenant(ctx, tx, e.TenantID); err != nil {
			return err
		}
		var last int64
		var prev []byte
		err := tx.QueryRow(ctx, `SELECT seq, hash FROM audit_log WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1`, e.TenantID).Scan(&last, &prev)
		if err != nil && !isNoRows(err) {
			return err
		}
		next.Seq, next.PrevHash = last+1, prev
		next.Hash = sello.AuditHash(prev, &next)
		_, err = tx.Exec(ctx, `
			INSERT INTO audit_log (id, tenant_id, seq, actor_id, actor_email, action, target, address, before_json, after_json, at, prev_hash, hash)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			next.ID, next.TenantID, next.Seq, next.ActorID, next.ActorEmail, next.Action, next.Target, next.Address,
			next.Before, next.After, next.At, nullBytes(next.PrevHash), next.Hash)
		return err
	})
	if err != nil {
		return dbError(err, "append audit")
	}
	*e = next
	return nil
}

const auditColumns = `seq, id, tenant_id, actor_id, actor_email, action, target, address, before_json, after_json, at, prev_hash, hash`

// FindAudit implements sello.PeopleStore.
func (db *DB) FindAudit(ctx context.Context, tenantID string, f sello.AuditFilter) ([]*sello.AuditEntry, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultAuditLimit
	}
	var since *time.Time
	if !f.Since.IsZero() {
		s := f.Since.UTC()
		since = &s
	}
	return db.findAudit(ctx, `
		tenant_id = $1
		AND ($2::text = '' OR actor_id = $2::text)
		AND starts_with(action, $3)
		AND ($4::timestamptz IS NULL OR at >= $4)
		AND ($5::bigint = 0 OR seq < $5::bigint)
		ORDER BY seq DESC LIMIT $6`,
		tenantID, f.ActorID, f.Action, since, f.Before, min(limit, sello.MaxAuditLimit))
}

// AuditChain implements sello.PeopleStore.
func (db *DB) AuditChain(ctx context.Context, tenantID string) ([]*sello.AuditEntry, error) {
	return db.findAudit(ctx, `tenant_id = $1 ORDER BY seq`, tenantID)
}

func (db *DB) findAudit(ctx context.Context, where string, args ...any) ([]*sello.AuditEntry, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE `+where, args...)
	if err != nil {
		return nil, dbError(err, "find audit")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.AuditEntry, error) {
		var e sello.AuditEntry
		err := r.Scan(&e.Seq, &e.ID, &e.TenantID, &e.ActorID, &e.ActorEmail, &e.Action, &e.Target, &e.Address,
			&e.Before, &e.After, &e.At, &e.PrevHash, &e.Hash)
		e.At = utc(e.At)
		return &e, err
	})
	return out, dbError(err, "find audit")
}
