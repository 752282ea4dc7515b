package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sello-do/sello"
)

// CreateTenant implements sello.TenantStore. Returns INVALID_REQUEST or
// CONFLICT.
func (db *DB) CreateTenant(ctx context.Context, t *sello.Tenant) error {
	if err := t.Validate(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	_, err := db.q().exec(ctx, `
		INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, receiver_auth_off, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		id, t.RNC, t.Name, t.Plan.Name, t.Plan.Rate, t.Plan.Burst, t.ReceiverAuthOff, formatTime(now))
	if errorKind(err) == kindUnique {
		return sello.Errorf(sello.CodeConflict, "A tenant with RNC %s exists.", t.RNC).WithErr(err)
	} else if err != nil {
		return dbError(err, "create tenant")
	}
	t.ID, t.CreatedAt = id, now
	return nil
}

const tenantColumns = `id, rnc, name, plan_name, plan_rate, plan_burst, receiver_auth_off, created_at`

// FindTenantByID implements sello.TenantStore. Returns NOT_FOUND.
func (db *DB) FindTenantByID(ctx context.Context, id string) (*sello.Tenant, error) {
	t, err := scanTenant(db.q().queryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", id)
	}
	return t, dbError(err, "find tenant")
}

// FindTenantByRNC implements sello.TenantStore. Returns NOT_FOUND.
func (db *DB) FindTenantByRNC(ctx context.Context, rnc string) (*sello.Tenant, error) {
	t, err := scanTenant(db.q().queryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE rnc = ?`, rnc))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "No tenant has RNC %q.", rnc)
	}
	return t, dbError(err, "find tenant by rnc")
}

// FindTenants implements sello.TenantStore.
func (db *DB) FindTenants(ctx context.Context) ([]*sello.Tenant, error) {
	rows, err := db.q().query(ctx, `SELECT `+tenantColumns+` FROM tenants ORDER BY rnc`)
	if err != nil {
		return nil, dbError(err, "find tenants")
	}
	defer rows.Close()
	var out []*sello.Tenant
	for rows.Next() {
		t, err := scanTenant(rows)
		if err != nil {
			return nil, dbError(err, "find tenants")
		}
		out = append(out, t)
	}
	return out, dbError(rows.Err(), "find tenants")
}

// UpdateTenantPlan implements sello.TenantStore. Returns INVALID_REQUEST or
// NOT_FOUND.
func (db *DB) UpdateTenantPlan(ctx context.Context, tenantID string, plan sello.RatePlan) error {
	if err := plan.Validate(); err != nil {
		return err
	}
	res, err := db.q().exec(ctx, `
		UPDATE tenants SET plan_name = ?, plan_rate = ?, plan_burst = ? WHERE id = ?`,
		plan.Name, plan.Rate, plan.Burst, tenantID)
	if err != nil {
		return dbError(err, "update tenant plan")
	}
	if n, err := res.RowsAffected(); err != nil {
		return dbError(err, "update tenant plan")
	} else if n == 0 {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanTenant(s scanner) (*sello.Tenant, error) {
	var t sello.Tenant
	var created string
	if err := s.Scan(&t.ID, &t.RNC, &t.Name, &t.Plan.Name, &t.Plan.Rate, &t.Plan.Burst, &t.ReceiverAuthOff, &created); err != nil {
		return nil, err
	}
	var err error
	t.CreatedAt, err = parseTime(created)
	return &t, err
}
