package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// CreateTenant implements sello.TenantStore. Returns INVALID_REQUEST or
// CONFLICT.
func (db *DB) CreateTenant(ctx context.Context, t *sello.Tenant) error {
	if err := t.Validate(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	_, err := db.pool.Exec(ctx, `
		INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, receiver_auth_off, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, t.RNC, t.Name, t.Plan.Name, t.Plan.Rate, t.Plan.Burst, t.ReceiverAuthOff, now)
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
	t, err := scanTenant(db.pool.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", id)
	}
	return t, dbError(err, "find tenant")
}

// FindTenantByRNC implements sello.TenantStore. Returns NOT_FOUND.
func (db *DB) FindTenantByRNC(ctx context.Context, rnc string) (*sello.Tenant, error) {
	t, err := scanTenant(db.pool.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE rnc = $1`, rnc))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "No tenant has RNC %q.", rnc)
	}
	return t, dbError(err, "find tenant by rnc")
}

// FindTenants implements sello.TenantStore.
func (db *DB) FindTenants(ctx context.Context) ([]*sello.Tenant, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+tenantColumns+` FROM tenants ORDER BY rnc`)
	if err != nil {
		return nil, dbError(err, "find tenants")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Tenant, error) { return scanTenant(r) })
	return out, dbError(err, "find tenants")
}

// UpdateTenantPlan implements sello.TenantStore. Returns INVALID_REQUEST or
// NOT_FOUND.
func (db *DB) UpdateTenantPlan(ctx context.Context, tenantID string, plan sello.RatePlan) error {
	if err := plan.Validate(); err != nil {
		return err
	}
	tag, err := db.pool.Exec(ctx, `
		UPDATE tenants SET plan_name = $1, plan_rate = $2, plan_burst = $3 WHERE id = $4`,
		plan.Name, plan.Rate, plan.Burst, tenantID)
	if err != nil {
		return dbError(err, "update tenant plan")
	} else if tag.RowsAffected() == 0 {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return nil
}

func scanTenant(r pgx.Row) (*sello.Tenant, error) {
	var t sello.Tenant
	if err := r.Scan(&t.ID, &t.RNC, &t.Name, &t.Plan.Name, &t.Plan.Rate, &t.Plan.Burst, &t.ReceiverAuthOff, &t.CreatedAt); err != nil {
		return nil, err
	}
	t.CreatedAt = utc(t.CreatedAt)
	return &t, nil
}
