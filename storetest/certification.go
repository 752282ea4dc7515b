package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// certificationRows is a small test set: an e-CF, an RFCE and an ACECF.
func certificationRows() []*sello.CertificationRow {
	return []*sello.CertificationRow{
		{Sheet: "ECF", SheetRow: 2, Kind: sello.CertificationECF, ENCF: "E310000000001", Fields: map[string]string{"TipoeCF": "31", "ENCF": "E310000000001"}},
		{Sheet: "RFCE", SheetRow: 2, Kind: sello.CertificationRFCE, ENCF: "E320000000001", Fields: map[string]string{"TipoeCF": "32", "ENCF": "E320000000001"}},
		{Sheet: "ACECF", SheetRow: 2, Kind: sello.CertificationACECF, ENCF: "E310000000009", Fields: map[string]string{"ENCF": "E310000000009", "Estado": "1"}},
	}
}

// mustStartCertification starts a run of certificationRows for the tenant.
func mustStartCertification(tb testing.TB, e env, tenantID string) *sello.CertificationRun {
	tb.Helper()
	run, _, err := sello.StartCertification(tb.Context(), e.s, tenantID, sello.EnvCert, certificationRows(), "", e.clock.Now())
	if err != nil {
		tb.Fatalf("StartCertification: %v", err)
	}
	return run
}

func testCertification(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		run := mustStartCertification(t, e, tn.ID)
		got, err := e.s.FindCertificationRun(ctx, tn.ID, sello.EnvCert, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "FindCertificationRun", got, run)

		signed := e.clock.Now()
		steps := []struct {
			i int
			u sello.CertificationRowUpdate
		}{
			{1, sello.CertificationRowUpdate{State: sello.RowSigned, SecurityCode: "AbC123", SignedAt: &signed, XML: []byte("<ECF/>")}},
			{1, sello.CertificationRowUpdate{State: sello.RowSent, TrackID: "t-1"}},
			{1, sello.CertificationRowUpdate{State: sello.RowAccepted, DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado"}}},
			{2, sello.CertificationRowUpdate{State: sello.RowSigned, XML: []byte("<RFCE/>")}},
			{2, sello.CertificationRowUpdate{State: sello.RowAcceptedConditional, DGII: &sello.DGIIResult{Codigo: new(4), Estado: "Aceptado Condicional"}}},
			{3, sello.CertificationRowUpdate{State: sello.RowAccepted, DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aprobación comercial aprobada"}}},
		}
		for _, s := range steps {
			if run, err = e.s.RecordCertificationRow(ctx, tn.ID, sello.EnvCert, run.ID, s.i, s.u, e.clock.Now()); err != nil {
				t.Fatalf("row %d %s: %v", s.i, s.u.State, err)
			}
		}
		got, err = e.s.FindCertificationRun(ctx, tn.ID, sello.EnvCert, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "after the steps", got, run)
		if got.State != sello.CertificationPassed || got.Row(1).TrackID != "t-1" || got.Row(1).SecurityCode != "AbC123" || !got.Row(1).SignedAt.Equal(signed) {
			t.Fatalf("run %s, row 1 %+v", got.State, got.Row(1))
		}
		xml, err := e.s.FindCertificationRowXML(ctx, tn.ID, sello.EnvCert, run.ID, 2)
		if err != nil || string(xml) != "<RFCE/>" {
			t.Fatalf("row 2 xml %q, %v", xml, err)
		}
		_, err = e.s.FindCertificationRowXML(ctx, tn.ID, sello.EnvCert, run.ID, 3)
		wantError(t, err, sello.CodeNotFound, "Row 3")
		list, err := e.s.FindCertificationRuns(ctx, tn.ID, sello.EnvCert)
		if err != nil || len(list) != 1 {
			t.Fatalf("FindCertificationRuns: %+v, %v", list, err)
		}
		deepEqual(t, "listed", list[0], got)
	})

	t.Run("ErrRejectedStops", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		run := mustStartCertification(t, e, tn.ID)
		_, err := e.s.RecordCertificationRow(ctx, tn.ID, sello.EnvCert, run.ID, 2, sello.CertificationRowUpdate{State: sello.RowSigned}, e.clock.Now())
		wantError(t, err, sello.CodeConflict, "Row 2", "row 1 is")
		rejected := &sello.DGIIResult{Codigo: new(2), Estado: "Rechazado", Mensajes: []sello.DGIIMessage{{Codigo: new(2), Valor: "MontoTotal no corresponde"}}}
		run, err = e.s.RecordCertificationRow(ctx, tn.ID, sello.EnvCert, run.ID, 1, sello.CertificationRowUpdate{State: sello.RowRejected, DGII: rejected}, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if run.State != sello.CertificationStopped || run.Failure == nil || run.Failure.Row != 1 || run.Failure.Sheet != "ECF" || run.Failure.SheetRow != 2 ||
			len(run.Failure.Mensajes) != 1 || run.Failure.Mensajes[0].Valor != "MontoTotal no corresponde" {
			t.Fatalf("run %s, failure %+v", run.State, run.Failure)
		}
		got, err := e.s.FindCertificationRun(ctx, tn.ID, sello.EnvCert, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "stopped", got, run)
		_, err = e.s.RecordCertificationRow(ctx, tn.ID, sello.EnvCert, run.ID, 2, sello.CertificationRowUpdate{State: sello.RowSigned}, e.clock.Now())
		wantError(t, err, sello.CodeConflict, "stopped")
	})

	t.Run("Isolation", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn, other := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		run := mustStartCertification(t, e, tn.ID)
		for name, f := range map[string]func() error{
			"OtherTenant": func() error {
				_, err := e.s.FindCertificationRun(ctx, other.ID, sello.EnvCert, run.ID)
				return err
			},
			"OtherEnvironment": func() error {
				_, err := e.s.FindCertificationRun(ctx, tn.ID, sello.EnvTest, run.ID)
				return err
			},
			"RecordOtherTenant": func() error {
				_, err := e.s.RecordCertificationRow(ctx, other.ID, sello.EnvCert, run.ID, 1, sello.CertificationRowUpdate{State: sello.RowSigned}, e.clock.Now())
				return err
			},
		} {
			if err := f(); sello.ErrorCodeOf(err) != sello.CodeNotFound {
				t.Errorf("%s: %v; want NOT_FOUND", name, err)
			}
		}
		if list, err := e.s.FindCertificationRuns(ctx, other.ID, sello.EnvCert); err != nil || len(list) != 0 {
			t.Errorf("the other tenant lists %d runs, %v", len(list), err)
		}
	})

	t.Run("ErrUnknownTenant", func(t *testing.T) {
		e := newEnv(t, open)
		_, _, err := sello.StartCertification(t.Context(), e.s, "no-such-tenant", sello.EnvCert, certificationRows(), "", time.Now())
		wantError(t, err, sello.CodeNotFound)
	})

	t.Run("Idempotency", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn, other := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		first, replayed, err := sello.StartCertification(ctx, e.s, tn.ID, sello.EnvCert, certificationRows(), "k-1", e.clock.Now())
		if err != nil || replayed {
			t.Fatalf("first: %v, replayed %v", err, replayed)
		}
		again, replayed, err := sello.StartCertification(ctx, e.s, tn.ID, sello.EnvCert, certificationRows(), "k-1", e.clock.Now())
		if err != nil || !replayed || again.ID != first.ID {
			t.Fatalf("again: %v, replayed %v, %+v; want %s replayed", err, replayed, again, first.ID)
		}
		changed := certificationRows()[:2]
		_, _, err = sello.StartCertification(ctx, e.s, tn.ID, sello.EnvCert, changed, "k-1", e.clock.Now())
		wantError(t, err, sello.CodeIdempotencyKeyReused, "k-1", first.ID)
		if _, replayed, err := sello.StartCertification(ctx, e.s, other.ID, sello.EnvCert, certificationRows(), "k-1", e.clock.Now()); err != nil || replayed {
			t.Fatalf("another tenant's key: %v, replayed %v", err, replayed)
		}
		list, err := e.s.FindCertificationRuns(ctx, tn.ID, sello.EnvCert)
		if err != nil || len(list) != 1 {
			t.Fatalf("%d runs, %v; want the one", len(list), err)
		}
	})
}
