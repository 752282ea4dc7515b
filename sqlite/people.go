package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/netip"
	"time"

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
	err = db.inTx(ctx, func(q querier) error {
		_, err := q.exec(ctx, `
			INSERT INTO users (id, email, password_hash, language, totp_secret, totp_confirmed_at, recovery_codes, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			id, email, u.PasswordHash, lang, nullBytes(u.TOTPSecret), formatTimePtr(sello.StoredTime(u.TOTPConfirmedAt)),
			joinHashes(u.RecoveryCodeHashes), formatTime(now))
		return err
	})
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
	return db.findUser(ctx, `id = ?`, id)
}

// FindUserByEmail implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (*sello.User, error) {
	e, err := sello.NormalizeEmail(email)
	if err != nil {
		return nil, sello.Errorf(sello.CodeNotFound, "User not found.")
	}
	return db.findUser(ctx, `email = ?`, e)
}

func (db *DB) findUser(ctx context.Context, where string, arg any) (*sello.User, error) {
	u, err := scanUser(db.q().queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "User not found.")
	}
	return u, dbError(err, "find user")
}

func scanUser(s scanner) (*sello.User, error) {
	var u sello.User
	var confirmed sql.NullString
	var created string
	var codes []byte
	if err := s.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.Language, &u.TOTPSecret, &confirmed, &u.TOTPLastStep, &codes, &created); err != nil {
		return nil, err
	}
	var err error
	if u.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if u.TOTPConfirmedAt, err = parseTimePtr(confirmed); err != nil {
		return nil, err
	}
	u.RecoveryCodeHashes = splitHashes(codes)
	return &u, nil
}

// UpdateUser implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) UpdateUser(ctx context.Context, u *sello.User) error {
	u.TOTPConfirmedAt = sello.StoredTime(u.TOTPConfirmedAt)
	return db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `
			UPDATE users SET password_hash = ?, language = ?, totp_secret = ?, totp_confirmed_at = ?, recovery_codes = ?
			WHERE id = ?`,
			u.PasswordHash, u.Language, nullBytes(u.TOTPSecret), formatTimePtr(u.TOTPConfirmedAt), joinHashes(u.RecoveryCodeHashes), u.ID)
		return oneRow(res, err, "update user", "User not found.")
	})
}

// UseTOTPStep implements sello.PeopleStore. Returns CONFLICT or NOT_FOUND.
func (db *DB) UseTOTPStep(ctx context.Context, userID string, step int64) error {
	return db.inTx(ctx, func(q querier) error {
		var last int64
		err := q.queryRow(ctx, `SELECT totp_last_step FROM users WHERE id = ?`, userID).Scan(&last)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.Errorf(sello.CodeNotFound, "User not found.")
		} else if err != nil {
			return dbError(err, "use totp step")
		}
		if step <= last {
			return sello.Errorf(sello.CodeConflict, "This code, or a later one, was used already.")
		}
		_, err = q.exec(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ?`, step, userID)
		return dbError(err, "use totp step")
	})
}

// UseRecoveryCode implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) UseRecoveryCode(ctx context.Context, userID string, hash []byte) error {
	return db.inTx(ctx, func(q querier) error {
		var codes []byte
		err := q.queryRow(ctx, `SELECT recovery_codes FROM users WHERE id = ?`, userID).Scan(&codes)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.Errorf(sello.CodeNotFound, "User not found.")
		} else if err != nil {
			return dbError(err, "use recovery code")
		}
		hashes := splitHashes(codes)
		for i, h := range hashes {
			if bytes.Equal(h, hash) {
				rest := append(hashes[:i:i], hashes[i+1:]...)
				_, err := q.exec(ctx, `UPDATE users SET recovery_codes = ? WHERE id = ?`, joinHashes(rest), userID)
				return dbError(err, "use recovery code")
			}
		}
		return sello.Errorf(sello.CodeNotFound, "No such unused recovery code.")
	})
}

// hashLen is a recovery code hash's length: recovery_codes keeps them one
// after another.
const hashLen = 32

func joinHashes(hashes [][]byte) []byte {
	if len(hashes) == 0 {
		return nil
	}
	return bytes.Join(hashes, nil)
}

func splitHashes(b []byte) [][]byte {
	var out [][]byte
	for len(b) >= hashLen {
		out = append(out, bytes.Clone(b[:hashLen]))
		b = b[hashLen:]
	}
	return out
}

func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// oneRow turns an UPDATE's result into NOT_FOUND (with msg) when it
// changed no row.
func oneRow(res sql.Result, err error, op, msg string) error {
	if err != nil {
		return dbError(err, op)
	}
	if n, err := res.RowsAffected(); err != nil {
		return dbError(err, op)
	} else if n == 0 {
		return sello.Errorf(sello.CodeNotFound, "%s", msg)
	}
	return nil
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
	err := db.inTx(ctx, func(q querier) error {
		if err := q.queryRow(ctx, `SELECT email FROM users WHERE id = ?`, m.UserID).Scan(&email); errors.Is(err, sql.ErrNoRows) {
			return sello.Errorf(sello.CodeNotFound, "User %q not found.", m.UserID)
		} else if err != nil {
			return err
		}
		var c string
		if err := q.queryRow(ctx, `
			INSERT INTO memberships (tenant_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = excluded.role
			RETURNING created_at`, m.TenantID, m.UserID, m.Role, formatTime(now)).Scan(&c); err != nil {
			if errorKind(err) == kindForeignKey {
				return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", m.TenantID)
			}
			return err
		}
		var err error
		if created, err = parseTime(c); err != nil {
			return err
		}
		return checkOwner(ctx, q, m.TenantID, false)
	})
	if err != nil {
		return dbError(err, "put membership")
	}
	m.Email, m.CreatedAt = email, created
	return nil
}

// checkOwner returns CONFLICT if the tenant has members but no owner, or
// no owner once ownerGone (the last member, an owner, left). It
// runs in the transaction of the change, after it: SQLite has one writer,
// so no other change comes between.
func checkOwner(ctx context.Context, q querier, tenantID string, ownerGone bool) error {
	var members, owners int
	if err := q.queryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE role = 'owner') FROM memberships WHERE tenant_id = ?`,
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
	err := db.inTx(ctx, func(q querier) error {
		var role sello.Role
		err := q.queryRow(ctx, `DELETE FROM memberships WHERE tenant_id = ? AND user_id = ? RETURNING role`, tenantID, userID).Scan(&role)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.Errorf(sello.CodeNotFound, "The user is not a member of the tenant.")
		} else if err != nil {
			return err
		}
		return checkOwner(ctx, q, tenantID, role == sello.RoleOwner)
	})
	return dbError(err, "delete membership")
}

// FindMemberships implements sello.PeopleStore.
func (db *DB) FindMemberships(ctx context.Context, tenantID string) ([]*sello.Membership, error) {
	return db.findMemberships(ctx, `m.tenant_id = ? ORDER BY u.email`, tenantID)
}

// FindUserMemberships implements sello.PeopleStore.
func (db *DB) FindUserMemberships(ctx context.Context, userID string) ([]*sello.Membership, error) {
	return db.findMemberships(ctx, `m.user_id = ? ORDER BY m.created_at, m.tenant_id`, userID)
}

func (db *DB) findMemberships(ctx context.Context, where string, arg any) ([]*sello.Membership, error) {
	rows, err := db.q().query(ctx, `
		SELECT m.tenant_id, m.user_id, u.email, m.role, m.created_at
		FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE `+where, arg)
	if err != nil {
		return nil, dbError(err, "find memberships")
	}
	defer rows.Close()
	var out []*sello.Membership
	for rows.Next() {
		var m sello.Membership
		var created string
		if err := rows.Scan(&m.TenantID, &m.UserID, &m.Email, &m.Role, &created); err != nil {
			return nil, dbError(err, "find memberships")
		}
		if m.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, &m)
	}
	return out, dbError(rows.Err(), "find memberships")
}

// SetSecondFactorRequired implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) SetSecondFactorRequired(ctx context.Context, tenantID string, required bool) error {
	return db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `UPDATE tenants SET second_factor_required = ? WHERE id = ?`, required, tenantID)
		return oneRow(res, err, "set second factor required", "Tenant \""+tenantID+"\" not found.")
	})
}

// SecondFactorRequired implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) SecondFactorRequired(ctx context.Context, tenantID string) (bool, error) {
	var required bool
	err := db.q().queryRow(ctx, `SELECT second_factor_required FROM tenants WHERE id = ?`, tenantID).Scan(&required)
	if errors.Is(err, sql.ErrNoRows) {
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
	err := db.inTx(ctx, func(q querier) error {
		_, err := q.exec(ctx, `
			INSERT INTO sessions (id, token_hash, user_id, tenant_id, csrf_token, second_factor_at, address, user_agent, created_at, last_seen_at, expires_at, revoked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, s.TokenHash, s.UserID, nullText(s.TenantID), s.CSRFToken, formatTimePtr(s.SecondFactorAt), addrText(s.Address), s.UserAgent,
			formatTime(s.CreatedAt), formatTime(s.LastSeenAt), formatTime(s.ExpiresAt), formatTimePtr(s.RevokedAt))
		return err
	})
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
	var tenant, factor, revoked sql.NullString
	var addr, created, seen, expires string
	err := db.q().queryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE token_hash = ?`, hash).Scan(
		&s.ID, &s.TokenHash, &s.UserID, &tenant, &s.CSRFToken, &factor, &addr, &s.UserAgent, &created, &seen, &expires, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "Session not found.")
	} else if err != nil {
		return nil, dbError(err, "find session")
	}
	s.TenantID = tenant.String
	if addr != "" {
		if s.Address, err = netip.ParseAddr(addr); err != nil {
			return nil, err
		}
	}
	for _, p := range []struct {
		dst *time.Time
		src string
	}{{&s.CreatedAt, created}, {&s.LastSeenAt, seen}, {&s.ExpiresAt, expires}} {
		if *p.dst, err = parseTime(p.src); err != nil {
			return nil, err
		}
	}
	if s.SecondFactorAt, err = parseTimePtr(factor); err != nil {
		return nil, err
	} else if s.RevokedAt, err = parseTimePtr(revoked); err != nil {
		return nil, err
	}
	return &s, nil
}

// TouchSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) TouchSession(ctx context.Context, id string, now time.Time) error {
	return db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, formatTime(now), id)
		return oneRow(res, err, "touch session", "Session not found.")
	})
}

// UpdateSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) UpdateSession(ctx context.Context, s *sello.Session) error {
	s.SecondFactorAt = sello.StoredTime(s.SecondFactorAt)
	err := db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `UPDATE sessions SET tenant_id = ?, second_factor_at = ? WHERE id = ?`,
			nullText(s.TenantID), formatTimePtr(s.SecondFactorAt), s.ID)
		return oneRow(res, err, "update session", "Session not found.")
	})
	if errorKind(err) == kindForeignKey {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", s.TenantID).WithErr(err)
	}
	return err
}

// RevokeSession implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) RevokeSession(ctx context.Context, id string, now time.Time) error {
	return db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `UPDATE sessions SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, formatTime(now), id)
		return oneRow(res, err, "revoke session", "Session not found.")
	})
}

// RevokeUserSessions implements sello.PeopleStore.
func (db *DB) RevokeUserSessions(ctx context.Context, userID, except string, now time.Time) error {
	return db.inTx(ctx, func(q querier) error {
		_, err := q.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id <> ? AND revoked_at IS NULL`,
			formatTime(now), userID, except)
		return dbError(err, "revoke user sessions")
	})
}

// PruneSessions implements sello.PeopleStore.
func (db *DB) PruneSessions(ctx context.Context, now, idleBefore time.Time) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `DELETE FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= ? OR last_seen_at < ?`,
			formatTime(now), formatTime(idleBefore))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, dbError(err, "prune sessions")
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
	err := db.inTx(ctx, func(q querier) error {
		_, err := q.exec(ctx, `
			INSERT INTO one_time_links (id, token_hash, purpose, email, tenant_id, role, created_by, expires_at, used_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, l.TokenHash, l.Purpose, l.Email, nullText(l.TenantID), l.Role, l.CreatedBy,
			formatTime(l.ExpiresAt), formatTimePtr(l.UsedAt), formatTime(now))
		return err
	})
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

// UseLink implements sello.PeopleStore: one UPDATE, so of callers that
// race only one changes the row. Returns NOT_FOUND.
func (db *DB) UseLink(ctx context.Context, hash []byte, now time.Time) (*sello.OneTimeLink, error) {
	var l *sello.OneTimeLink
	err := db.inTx(ctx, func(q querier) error {
		var err error
		l, err = scanLink(q.queryRow(ctx, `
			UPDATE one_time_links SET used_at = ?
			WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
			RETURNING `+linkColumns, formatTime(now), hash, formatTime(now)))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "The link is unknown, used or expired.")
	}
	return l, dbError(err, "use link")
}

// FindLink implements sello.PeopleStore. Returns NOT_FOUND.
func (db *DB) FindLink(ctx context.Context, hash []byte, now time.Time) (*sello.OneTimeLink, error) {
	l, err := scanLink(db.q().queryRow(ctx, `
		SELECT `+linkColumns+` FROM one_time_links
		WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`, hash, formatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "The link is unknown, used or expired.")
	}
	return l, dbError(err, "find link")
}

// PruneLinks implements sello.PeopleStore.
func (db *DB) PruneLinks(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(q querier) error {
		res, err := q.exec(ctx, `DELETE FROM one_time_links WHERE used_at < ? OR expires_at < ?`, formatTime(now), formatTime(now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, dbError(err, "prune links")
}

func scanLink(s scanner) (*sello.OneTimeLink, error) {
	var l sello.OneTimeLink
	var tenant, used sql.NullString
	var expires, created string
	if err := s.Scan(&l.ID, &l.TokenHash, &l.Purpose, &l.Email, &tenant, &l.Role, &l.CreatedBy, &expires, &used, &created); err != nil {
		return nil, err
	}
	l.TenantID = tenant.String
	var err error
	if l.ExpiresAt, err = parseTime(expires); err != nil {
		return nil, err
	} else if l.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if l.UsedAt, err = parseTimePtr(used); err != nil {
		return nil, err
	}
	return &l, nil
}

// AppendAudit implements sello.PeopleStore: it reads the chain's last
// entry and inserts the next in one write transaction (SQLite's one
// writer: no other append comes between). Returns INVALID_REQUEST or
// NOT_FOUND.
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
	next.Before, next.After = nonEmpty(e.Before), nonEmpty(e.After)
	err := db.inTx(ctx, func(q querier) error {
		var last int64
		var prev []byte
		err := q.queryRow(ctx, `SELECT seq, hash FROM audit_log WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1`, e.TenantID).Scan(&last, &prev)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		next.Seq, next.PrevHash = last+1, prev
		next.Hash = sello.AuditHash(prev, &next)
		_, err = q.exec(ctx, `
			INSERT INTO audit_log (id, tenant_id, seq, actor_id, actor_email, action, target, address, before_json, after_json, at, prev_hash, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			next.ID, next.TenantID, next.Seq, next.ActorID, next.ActorEmail, next.Action, next.Target, next.Address,
			nullBytes(next.Before), nullBytes(next.After), formatTime(next.At), nullBytes(next.PrevHash), next.Hash)
		if errorKind(err) == kindForeignKey {
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", e.TenantID)
		}
		return err
	})
	if err != nil {
		return dbError(err, "append audit")
	}
	*e = next
	return nil
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

const auditColumns = `seq, id, tenant_id, actor_id, actor_email, action, target, address, before_json, after_json, at, prev_hash, hash`

// FindAudit implements sello.PeopleStore.
func (db *DB) FindAudit(ctx context.Context, tenantID string, f sello.AuditFilter) ([]*sello.AuditEntry, error) {
	where, args := `tenant_id = ?`, []any{tenantID}
	if f.ActorID != "" {
		where, args = where+` AND actor_id = ?`, append(args, f.ActorID)
	}
	if f.Action != "" {
		where, args = where+` AND substr(action, 1, length(?)) = ?`, append(args, f.Action, f.Action)
	}
	if !f.Since.IsZero() {
		where, args = where+` AND at >= ?`, append(args, formatTime(f.Since))
	}
	if f.Before > 0 {
		where, args = where+` AND seq < ?`, append(args, f.Before)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultAuditLimit
	}
	return db.findAudit(ctx, where+` ORDER BY seq DESC LIMIT ?`, append(args, min(limit, sello.MaxAuditLimit))...)
}

// AuditChain implements sello.PeopleStore.
func (db *DB) AuditChain(ctx context.Context, tenantID string) ([]*sello.AuditEntry, error) {
	return db.findAudit(ctx, `tenant_id = ? ORDER BY seq`, tenantID)
}

func (db *DB) findAudit(ctx context.Context, where string, args ...any) ([]*sello.AuditEntry, error) {
	rows, err := db.q().query(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE `+where, args...)
	if err != nil {
		return nil, dbError(err, "find audit")
	}
	defer rows.Close()
	var out []*sello.AuditEntry
	for rows.Next() {
		var e sello.AuditEntry
		var at string
		if err := rows.Scan(&e.Seq, &e.ID, &e.TenantID, &e.ActorID, &e.ActorEmail, &e.Action, &e.Target, &e.Address,
			&e.Before, &e.After, &at, &e.PrevHash, &e.Hash); err != nil {
			return nil, dbError(err, "find audit")
		}
		if e.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, &e)
	}
	return out, dbError(rows.Err(), "find audit")
}
