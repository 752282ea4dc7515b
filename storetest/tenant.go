package storetest

import (
	"testing"

	"github.com/sello-do/sello"
)

func testTenant(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		want := &sello.Tenant{RNC: "131880681", Name: "Ferretería Ñ SRL", Plan: sello.RatePlan{Name: "pro", Rate: 12.5, Burst: 40}}
		start := e.clock.Peek()
		if err := e.s.CreateTenant(ctx, want); err != nil {
			t.Fatalf("CreateTenant: %v", err)
		}
		if want.ID == "" {
			t.Fatal("CreateTenant left ID empty")
		}
		if got := want.CreatedAt; !got.Equal(start) || got.Location() != start.Location() {
			t.Errorf("CreatedAt: got %v, want %v (the store's clock, UTC)", got, start)
		}
		got, err := e.s.FindTenantByID(ctx, want.ID)
		if err != nil {
			t.Fatalf("FindTenantByID: %v", err)
		}
		deepEqual(t, "FindTenantByID", got, want)
		got, err = e.s.FindTenantByRNC(ctx, want.RNC)
		if err != nil {
			t.Fatalf("FindTenantByRNC: %v", err)
		}
		deepEqual(t, "FindTenantByRNC", got, want)
	})
	t.Run("FindTenantsByRNC", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		for _, rnc := range []string{"401000003", "00100000002", "101000001"} {
			if err := e.s.CreateTenant(ctx, &sello.Tenant{RNC: rnc, Name: "T " + rnc, Plan: sello.DefaultRatePlan}); err != nil {
				t.Fatalf("CreateTenant: %v", err)
			}
		}
		ts, err := e.s.FindTenants(ctx)
		if err != nil {
			t.Fatalf("FindTenants: %v", err)
		}
		var got []string
		for _, tn := range ts {
			got = append(got, tn.RNC)
		}
		deepEqual(t, "FindTenants RNCs", got, []string{"00100000002", "101000001", "401000003"})
	})
	t.Run("ErrDuplicateRNC", func(t *testing.T) {
		e := newEnv(t, open)
		first := MustCreateTenant(t, e.s)
		err := e.s.CreateTenant(t.Context(), &sello.Tenant{RNC: first.RNC, Name: "Otra", Plan: sello.DefaultRatePlan})
		wantError(t, err, sello.CodeConflict, first.RNC)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		err := e.s.CreateTenant(t.Context(), &sello.Tenant{RNC: "12", Name: "X", Plan: sello.DefaultRatePlan})
		wantError(t, err, sello.CodeInvalidRequest, "RNC")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		_, err := e.s.FindTenantByID(t.Context(), "no-such-tenant")
		wantError(t, err, sello.CodeNotFound, "no-such-tenant")
		_, err = e.s.FindTenantByRNC(t.Context(), "999999999")
		wantError(t, err, sello.CodeNotFound, "999999999")
	})
	t.Run("UpdatePlan", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		plan := sello.RatePlan{Name: "enterprise", Rate: 500, Burst: 2000}
		if err := e.s.UpdateTenantPlan(ctx, tn.ID, plan); err != nil {
			t.Fatalf("UpdateTenantPlan: %v", err)
		}
		got, err := e.s.FindTenantByID(ctx, tn.ID)
		if err != nil {
			t.Fatalf("FindTenantByID: %v", err)
		}
		if got.Plan != plan {
			t.Errorf("Plan: got %v, want %v", got.Plan, plan)
		}
		err = e.s.UpdateTenantPlan(ctx, "no-such-tenant", plan)
		wantError(t, err, sello.CodeNotFound, "no-such-tenant")
		err = e.s.UpdateTenantPlan(ctx, tn.ID, sello.RatePlan{Name: "zero", Rate: 0, Burst: 1})
		wantError(t, err, sello.CodeInvalidRequest, "zero")
	})
}
