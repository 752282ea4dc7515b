package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/pdf"
	"github.com/sello-do/sello/testset"
)

// xlsxType is the media type of an .xlsx workbook.
const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// certificationBody is the success body carrying one run.
type certificationBody struct {
	OK            bool                           `json:"ok"`
	Run           sello.CertificationRunResource `json:"run"`
	CorrelationID string                         `json:"correlationId"`
}

// handleCreateCertification starts a run of DGII's test set
// (sello.StartCertification, as the CLI's certification run): 202 with the
// run. The set is DGII's workbook, posted as multipart/form-data (part
// "file") or as the body itself (the .xlsx media type), or its rows as
// JSON (testset.ReadJSON). Only in CerteCF: elsewhere 422
// VALIDATION_FAILED before the body is read. An Idempotency-Key used
// before replays that run (Idempotent-Replayed: true), or is 409
// IDEMPOTENCY_KEY_REUSED with another test set.
func (s *Server) handleCreateCertification(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := sello.CertificationEnvironment(p.Env); err != nil {
		return err
	}
	idemKey, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	rows, err := readTestSet(w, r)
	if err != nil {
		return err
	}
	run, replayed, err := sello.StartCertification(r.Context(), s.Store, p.Tenant.ID, p.Env, rows, idemKey, s.now())
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusAccepted, certificationBody{OK: true, Run: run.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// readTestSet reads the test set of a request by its media type. Returns
// UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE, INVALID_REQUEST and the
// errors of the testset readers.
func readTestSet(w http.ResponseWriter, r *http.Request) ([]*sello.CertificationRow, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.ContentLength > testset.MaxSize+multipartOverhead {
		return nil, sello.Errorf(sello.CodePayloadTooLarge, "The test set exceeds %d bytes.", testset.MaxSize)
	}
	body := http.MaxBytesReader(w, r.Body, testset.MaxSize+multipartOverhead)
	switch mt {
	case "application/json":
		b, err := readAll(body)
		if err != nil {
			return nil, err
		}
		return testset.ReadJSON(b)
	case xlsxType:
		return testset.ReadWorkbook(body)
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, sello.Errorf(sello.CodeInvalidRequest, "The multipart/form-data Content-Type has no boundary.")
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil, sello.Errorf(sello.CodeInvalidRequest, "The form has no part named \"file\": send DGII's workbook as file.")
			} else if err != nil {
				return nil, readError(err)
			}
			if part.FormName() == "file" {
				return testset.ReadWorkbook(part)
			}
		}
	}
	accepted := sello.Textf("send DGII's workbook as multipart/form-data (part \"file\") or as %s, or the rows as application/json", xlsxType)
	if r.Header.Get("Content-Type") == "" {
		return nil, sello.Errorf(sello.CodeUnsupportedMediaType, "The request has no Content-Type: %s.", accepted)
	}
	return nil, sello.Errorf(sello.CodeUnsupportedMediaType, "Content-Type %q is not accepted here: %s.", r.Header.Get("Content-Type"), accepted)
}

// readAll reads a body limited by http.MaxBytesReader.
func readAll(body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, readError(err)
	}
	return b, nil
}

// readError is a body that could not be read: too large or cut.
func readError(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return sello.Errorf(sello.CodePayloadTooLarge, "The test set exceeds %d bytes.", testset.MaxSize)
	}
	return bodyReadError(err)
}

// handleListCertifications lists a page of the tenant's runs in the
// environment, newest first, without their rows: a tenant has a handful,
// read whole and paged here (pageOf). Runs exist only in CerteCF;
// elsewhere the list is empty.
func (s *Server) handleListCertifications(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	l := newListQuery(r.URL.Query(), "cursor", "limit")
	pq := l.page()
	if err := l.err(); err != nil {
		return err
	}
	runs, err := s.Store.FindCertificationRuns(r.Context(), p.Tenant.ID, p.Env)
	if err != nil {
		return err
	}
	runs, next, err := pageOf(runs, pq, func(run *sello.CertificationRun) (time.Time, string) { return run.CreatedAt, run.ID })
	if err != nil {
		return err
	}
	out := make([]sello.CertificationRunSummary, len(runs))
	for i, run := range runs {
		out[i] = run.Summary()
	}
	writeList(w, r, out, next)
	return nil
}

// handleGetCertification reports a run: each row's progress and DGII's
// answers. 404 for another tenant's or environment's run.
func (s *Server) handleGetCertification(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	run, err := s.Store.FindCertificationRun(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, certificationBody{OK: true, Run: run.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleGetCertificationPDFs returns a ZIP of the printed representations
// of the run's signed e-CFs (the RFCE rows' full e-CF 32 included), one
// PDF per e-CF named {eNCF}.pdf, as DGII's simulation step asks. 404 for
// another tenant's or environment's run; 409 CONFLICT while no e-CF of the
// run is signed yet.
func (s *Server) handleGetCertificationPDFs(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	run, err := s.Store.FindCertificationRun(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
	if err != nil {
		return err
	}
	zb, n, err := pdf.PrintedRepresentations(run)
	if err != nil {
		return err
	} else if n == 0 {
		return sello.Errorf(sello.CodeConflict, "No e-CF of certification run %s is signed yet: its printed representations follow its signatures.", run.ID)
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="representaciones-impresas-%s.zip"`, run.ID))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(zb)
	return nil
}
