package storetest

import (
	"testing"

	"github.com/sello-do/sello"
)

func testSequence(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		expires := sello.Date{Year: 2027, Month: 12, Day: 31}
		s := &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 1, To: 500, ExpiresOn: &expires}
		start := e.clock.Peek()
		if err := e.s.AddSequence(ctx, s); err != nil {
			t.Fatalf("AddSequence: %v", err)
		}
		if s.ID == "" || s.Next != 1 || !s.CreatedAt.Equal(start) {
			t.Errorf("ID, Next, CreatedAt: got %q, %d, %v; want an id, 1, %v", s.ID, s.Next, s.CreatedAt, start)
		}
		got, err := e.s.FindSequences(ctx, tn.ID, sello.EnvTest)
		if err != nil {
			t.Fatalf("FindSequences: %v", err)
		}
		deepEqual(t, "FindSequences", got, []*sello.Sequence{s})
	})
	t.Run("ListByTypeAndStart", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 100, 199)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 500, 599)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 99)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
		got, err := e.s.FindSequences(t.Context(), tn.ID, sello.EnvTest)
		if err != nil {
			t.Fatalf("FindSequences: %v", err)
		}
		var keys []string
		for _, s := range got {
			keys = append(keys, encf(s.Type, s.From))
		}
		deepEqual(t, "order", keys, []string{encf("31", 1), encf("31", 500), encf("32", 1), encf("32", 100)})
	})
	t.Run("ErrOverlap", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 100, 200)
		for _, r := range [][2]int64{{50, 100}, {200, 300}, {120, 130}, {1, 1000}} {
			err := e.s.AddSequence(t.Context(), &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: r[0], To: r[1]})
			wantError(t, err, sello.CodeConflict, "100", "200")
		}
		// Adjacent ranges do not overlap.
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 201, 300)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 99)
	})
	t.Run("SameRangeElsewhere", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, a.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, a.ID, sello.EnvCert, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, a.ID, sello.EnvTest, sello.TypeConsumo, 1, 100)
		MustAddSequence(t, e.s, b.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		err := e.s.AddSequence(t.Context(), &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 10, To: 5})
		wantError(t, err, sello.CodeInvalidRequest, "10", "5")
		err = e.s.AddSequence(t.Context(), &sello.Sequence{TenantID: tn.ID, Environment: "prod", Type: sello.TypeCreditoFiscal, From: 1, To: 5})
		wantError(t, err, sello.CodeInvalidRequest, "prod")
		expires := sello.Date{Year: 2099, Month: 12, Day: 31}
		for _, typ := range []sello.DocumentType{sello.TypeConsumo, sello.TypeNotaCredito} {
			err = e.s.AddSequence(t.Context(), &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: typ, From: 1, To: 5, ExpiresOn: &expires})
			wantError(t, err, sello.CodeInvalidRequest, "Type "+string(typ)+" has no sequence expiry")
		}
	})
	t.Run("ErrTenantNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		err := e.s.AddSequence(t.Context(), &sello.Sequence{TenantID: "no-such-tenant", Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 1, To: 5})
		wantError(t, err, sello.CodeNotFound, "no-such-tenant")
	})
}

// mustSequence returns the tenant's range of typ that starts at from.
func mustSequence(tb testing.TB, s sello.Store, tenantID string, e sello.Environment, typ sello.DocumentType, from int64) *sello.Sequence {
	tb.Helper()
	seqs, err := s.FindSequences(tb.Context(), tenantID, e)
	if err != nil {
		tb.Fatalf("FindSequences: %v", err)
	}
	for _, seq := range seqs {
		if seq.Type == typ && seq.From == from {
			return seq
		}
	}
	tb.Fatalf("no range of type %s from %d", typ, from)
	return nil
}
