package sello_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func certificationRows() []*sello.CertificationRow {
	return []*sello.CertificationRow{
		{Sheet: "ECF", SheetRow: 2, Kind: sello.CertificationECF, ENCF: "E310000000001"},
		{Sheet: "ACECF", SheetRow: 2, Kind: sello.CertificationACECF, ENCF: "E310000000009"},
	}
}

func TestNewCertificationRun(t *testing.T) {
	now := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	t.Run("OK", func(t *testing.T) {
		run, err := sello.NewCertificationRun("t1", sello.EnvCert, certificationRows(), now)
		if err != nil {
			t.Fatal(err)
		}
		if run.State != sello.CertificationRunning || run.Row(1).Index != 1 || run.Row(2).State != sello.RowPending || run.Next() != run.Row(1) {
			t.Fatalf("run %+v", run)
		}
	})
	for name, c := range map[string]struct {
		env  sello.Environment
		rows []*sello.CertificationRow
		says string
	}{
		"ErrTesteCF":   {sello.EnvTest, certificationRows(), "only in CerteCF"},
		"ErrProd":      {sello.EnvProd, certificationRows(), "only in CerteCF"},
		"ErrNoRows":    {sello.EnvCert, nil, "no rows"},
		"ErrNoENCF":    {sello.EnvCert, []*sello.CertificationRow{{Sheet: "ECF", SheetRow: 5, Kind: sello.CertificationECF}}, "ECF[5]"},
		"ErrKind":      {sello.EnvCert, []*sello.CertificationRow{{Sheet: "X", SheetRow: 2, Kind: "anecf", ENCF: "E310000000001"}}, "Unknown kind"},
		"ErrDuplicate": {sello.EnvCert, append(certificationRows(), &sello.CertificationRow{Sheet: "RFCE", SheetRow: 3, Kind: sello.CertificationRFCE, ENCF: "E310000000001"}), "also row 1"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sello.NewCertificationRun("t1", c.env, c.rows, now)
			if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !strings.Contains(describeError(err), c.says) {
				t.Fatalf("got %v; want VALIDATION_FAILED saying %q", describeError(err), c.says)
			}
		})
	}
}

// TestCertificationRunRecord: only the next row moves, only forward; the
// last acceptance passes the run, a rejection stops it, a failure fails it.
func TestCertificationRunRecord(t *testing.T) {
	now := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	newRun := func(t *testing.T) *sello.CertificationRun {
		run, err := sello.NewCertificationRun("t1", sello.EnvCert, certificationRows(), now)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	record := func(t *testing.T, run *sello.CertificationRun, i int, state string) error {
		t.Helper()
		_, err := run.Record(i, sello.CertificationRowUpdate{State: state}, now)
		return err
	}
	t.Run("Passed", func(t *testing.T) {
		run := newRun(t)
		for _, s := range []struct {
			i     int
			state string
		}{{1, sello.RowSigned}, {1, sello.RowSigned}, {1, sello.RowSent}, {1, sello.RowAcceptedConditional}, {2, sello.RowSigned}, {2, sello.RowAccepted}} {
			if err := record(t, run, s.i, s.state); err != nil {
				t.Fatalf("row %d %s: %v", s.i, s.state, err)
			}
		}
		if run.State != sello.CertificationPassed || run.Next() != nil || run.Failure != nil {
			t.Fatalf("run %s", run.State)
		}
		if err := record(t, run, 2, sello.RowAccepted); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("after the end: %v", err)
		}
	})
	t.Run("ErrBackward", func(t *testing.T) {
		run := newRun(t)
		if err := record(t, run, 1, sello.RowSent); err != nil {
			t.Fatal(err)
		}
		if err := record(t, run, 1, sello.RowSigned); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("backward: %v", err)
		}
		if err := record(t, run, 1, "done"); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("unknown state: %v", err)
		}
		if err := record(t, run, 2, sello.RowSigned); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("not the next row: %v", err)
		}
	})
	t.Run("Failed", func(t *testing.T) {
		run := newRun(t)
		if _, err := run.Record(1, sello.CertificationRowUpdate{State: sello.RowFailed, Error: "no certificate"}, now); err != nil {
			t.Fatal(err)
		}
		if run.State != sello.CertificationFailed || run.Failure == nil || !strings.Contains(run.Failure.Message, "no certificate") || run.Failure.Row != 1 {
			t.Fatalf("run %s %+v", run.State, run.Failure)
		}
	})
	t.Run("Replay", func(t *testing.T) {
		a, b := newRun(t), newRun(t)
		a.RequestHash, b.RequestHash, b.IdempotencyKey = []byte{1}, []byte{1}, "k"
		if err := b.Replay(a); err != nil {
			t.Fatal(err)
		}
		b.RequestHash = []byte{2}
		if err := b.Replay(a); sello.ErrorCodeOf(err) != sello.CodeIdempotencyKeyReused || !strings.Contains(err.Error(), a.ID) {
			t.Fatalf("another set: %v", err)
		}
	})
}

// describeError is err with its details' paths and messages.
func describeError(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if e, ok := err.(*sello.Error); ok {
		for _, d := range e.Details {
			s += "; " + d.Path + ": " + d.Message
		}
	}
	return s
}
