package clienttest_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"net/http"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/testset"
)

// TestCertificationRuns starts and follows runs of DGII's test set through
// the SDK against Sello's real API, in CerteCF.
func TestCertificationRuns(t *testing.T) {
	a := mustRealAPI(t)
	ctx := t.Context()
	k, certKey := sello.NewAPIKey(a.tenant.ID, sello.EnvCert, "sdk", sello.Scopes, nil)
	if err := a.db.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	c := a.client(t, certKey)
	if c.Environment() != client.EnvCert {
		t.Fatalf("environment %s, want CerteCF", c.Environment())
	}
	workbook, err := os.ReadFile("../dgiisim/testdata/set-de-pruebas.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := testset.ReadWorkbook(bytes.NewReader(workbook))
	if err != nil {
		t.Fatal(err)
	}

	var fromWorkbook client.CertificationRun
	t.Run("CreateFromWorkbookRetriedOnce", func(t *testing.T) {
		// The run starts but its answer is lost; the retry, with the same
		// Idempotency-Key, gets it replayed.
		a.lose(1, func(r *http.Request) bool {
			return r.Method == "POST" && r.URL.Path == "/CerteCF/certificacion/pruebas"
		})
		res, err := c.CreateCertificationRun(ctx, client.CreateCertificationRunRequest{Workbook: workbook})
		if err != nil {
			t.Fatal(err)
		}
		if a.lost != 1 || !res.Replayed {
			t.Fatalf("%d answers lost, replayed %v: want 1 and a replay", a.lost, res.Replayed)
		}
		run := res.Run
		if run.ID == "" || run.Environment != client.EnvCert || run.State != client.CertificationRunning || len(run.Rows) != len(rows) ||
			run.Counts["pending"] != len(rows) || run.Failure != nil || run.CreatedAt.IsZero() || res.CorrelationID == "" {
			t.Fatalf("run %+v", run)
		}
		r := run.Rows[0]
		if r.Index != 1 || r.Sheet != rows[0].Sheet || r.SheetRow != rows[0].SheetRow || r.Kind != string(rows[0].Kind) || r.ENCF != rows[0].ENCF ||
			r.State != "pending" || r.TrackID != nil || r.SecurityCode != nil || r.SignedAt != nil || r.DGII != nil || r.Error != nil {
			t.Fatalf("first row %+v, want %+v pending", r, rows[0])
		}
		fromWorkbook = run
	})

	var fromRows client.CertificationRun
	t.Run("CreateFromRows", func(t *testing.T) {
		set := &client.CertificationRows{}
		for _, r := range rows[:3] {
			fields := map[string]any{}
			for k, v := range r.Fields {
				fields[k] = v
			}
			switch r.Kind {
			case sello.CertificationECF:
				set.ECF = append(set.ECF, fields)
			case sello.CertificationRFCE:
				set.RFCE = append(set.RFCE, fields)
			default:
				set.ACECF = append(set.ACECF, fields)
			}
		}
		res, err := c.CreateCertificationRun(ctx, client.CreateCertificationRunRequest{Rows: set, IdempotencyKey: "set-3"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Replayed || len(res.Run.Rows) != 3 || res.Run.Rows[2].ENCF != rows[2].ENCF || res.Run.ID == fromWorkbook.ID {
			t.Fatalf("run of 3 rows: %+v", res.Run)
		}
		fromRows = res.Run

		// The same key with another set.
		set.ECF = set.ECF[:1]
		_, err = c.CreateCertificationRun(ctx, client.CreateCertificationRunRequest{Rows: set, IdempotencyKey: "set-3"})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeIdempotencyKeyReused || e.HTTPStatus != 409 {
			t.Fatalf("another set under the key: %v, want IDEMPOTENCY_KEY_REUSED", err)
		}
	})

	t.Run("ErrNotCerteCF", func(t *testing.T) {
		_, err := a.client(t, a.key).CreateCertificationRun(ctx, client.CreateCertificationRunRequest{Workbook: workbook})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || len(e.Details) != 1 || e.Details[0].Path != "env" {
			t.Fatalf("in TesteCF: %v, want VALIDATION_FAILED at env", err)
		}
		for _, req := range []client.CreateCertificationRunRequest{{}, {Workbook: workbook, Rows: &client.CertificationRows{}}} {
			if _, err := c.CreateCertificationRun(ctx, req); err == nil || errors.As(err, &e) {
				t.Errorf("neither or both of Workbook and Rows: %v, want an error before any request", err)
			}
		}
	})

	t.Run("Get", func(t *testing.T) {
		res, err := c.GetCertificationRun(ctx, fromWorkbook.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Run, fromWorkbook) || res.Replayed {
			t.Fatalf("got %+v, want the run created %+v", res.Run, fromWorkbook)
		}
		if _, err := c.GetCertificationRun(ctx, "01976a30-0000-7000-8000-000000000000"); !client.IsNotFound(err) {
			t.Fatalf("unknown run: %v, want NOT_FOUND", err)
		}
	})

	t.Run("List", func(t *testing.T) {
		page, err := c.ListCertificationRuns(ctx, client.ListCertificationRunsParams{})
		if err != nil || len(page.Data) != 2 || page.HasMore {
			t.Fatalf("runs: %+v, %v", page, err)
		}
		s := page.Data[0] // newest first
		if s.ID != fromRows.ID || s.Environment != client.EnvCert || s.State != client.CertificationRunning || s.Counts["pending"] != 3 ||
			s.Failure != nil || !s.CreatedAt.Equal(fromRows.CreatedAt) {
			t.Fatalf("summary %+v, want the run of rows %+v", s, fromRows)
		}
		var ids []string
		for r, err := range c.CertificationRuns(ctx, client.ListCertificationRunsParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		if want := []string{fromRows.ID, fromWorkbook.ID}; !reflect.DeepEqual(ids, want) {
			t.Fatalf("every run: %v, want %v", ids, want)
		}
		if _, err := c.ListCertificationRuns(ctx, client.ListCertificationRunsParams{Cursor: "garbage"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("bad cursor: %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("PrintedRepresentations", func(t *testing.T) {
		_, err := c.GetCertificationPrintedRepresentations(ctx, fromRows.ID)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeConflict || e.HTTPStatus != 409 {
			t.Fatalf("before any row is signed: %v, want CONFLICT", err)
		}
		if rows[0].Kind == sello.CertificationACECF {
			t.Fatal("the sample's first row is an ACECF: want an e-CF")
		}
		signedAt := time.Now().UTC().Truncate(time.Millisecond)
		u := sello.CertificationRowUpdate{State: sello.RowSigned, SecurityCode: "AbC123", SignedAt: &signedAt, XML: []byte("<ECF/>")}
		if _, err := a.db.RecordCertificationRow(ctx, a.tenant.ID, sello.EnvCert, fromRows.ID, 1, u, signedAt); err != nil {
			t.Fatal(err)
		}
		zipped, err := c.GetCertificationPrintedRepresentations(ctx, fromRows.ID)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if err != nil {
			t.Fatal(err)
		}
		if len(zr.File) != 1 || zr.File[0].Name != rows[0].ENCF+".pdf" {
			t.Fatalf("%d entries, want %s.pdf (the one signed row)", len(zr.File), rows[0].ENCF)
		}
		res, err := c.GetCertificationRun(ctx, fromRows.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Run.Rows[0]; r.State != "signed" || r.SecurityCode == nil || *r.SecurityCode != "AbC123" || r.SignedAt == nil || !r.SignedAt.Equal(signedAt) {
			t.Fatalf("signed row %+v", r)
		}
	})
}
