package portal

import (
	"bytes"
	"net/http"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/pdf"
	"github.com/sello-do/sello/testset"
)

// The Certificación pages (CerteCF only; docs/certification.md): the
// company's runs of DGII's test set, the form that starts one with DGII's
// workbook (testset.ReadWorkbook and sello.StartCertification, as POST
// /CerteCF/certificacion/pruebas and sello certification run), each run's
// page, which follows it row by row (htmx refreshes the rows while it
// runs; a link reloads them without JavaScript), and the ZIP of its
// printed representations (pdf.PrintedRepresentations). Owners and
// administrators start runs; the others read.

func certificationPath() string { return envPagePath(sello.EnvCert, "certificacion") }
func certificationRunPath(id string) string {
	return envPagePath(sello.EnvCert, "certificacion", id)
}
func certificationRowsPath(id string) string {
	return envPagePath(sello.EnvCert, "certificacion", id, "filas")
}
func certificationZIPPath(id string) string {
	return envPagePath(sello.EnvCert, "certificacion", id, "representaciones-impresas")
}

// certificationUploadLimit bounds a request that uploads DGII's workbook:
// the workbook (testset.MaxSize) and the form's other fields.
const certificationUploadLimit = testset.MaxSize + 64<<10

// bodyLimit is how large a request's body may be: the portal's forms are
// small (maxFormBytes); the workbook's upload takes more.
func bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && r.URL.Path == certificationPath() {
		return certificationUploadLimit
	}
	return maxFormBytes
}

// certificationStateKeys and certificationRowStateKeys are the catalogue
// keys of a run's and a row's states.
var (
	certificationStateKeys = map[string]string{
		sello.CertificationRunning: "a run's state: running",
		sello.CertificationPassed:  "a run's state: passed",
		sello.CertificationStopped: "a run's state: stopped",
		sello.CertificationFailed:  "a run's state: failed",
	}
	certificationRowStateKeys = map[string]string{
		sello.RowPending:             "a row's state: pending",
		sello.RowSigned:              "a row's state: signed",
		sello.RowSent:                "a row's state: sent",
		sello.RowAccepted:            "a row's state: accepted",
		sello.RowAcceptedConditional: "a row's state: accepted with conditions",
		sello.RowRejected:            "a row's state: rejected",
		sello.RowFailed:              "a row's state: failed",
	}
	certificationKindKeys = map[sello.CertificationKind]string{
		sello.CertificationECF:   "e-CF",
		sello.CertificationRFCE:  "RFCE summary",
		sello.CertificationACECF: "commercial approval (ACECF)",
	}
)

// certificationView is the list of runs and the form that starts one.
type certificationView struct {
	Runs      []*sello.CertificationRun
	CanManage bool
	// Key is the start's idempotency key: the form sent twice starts one
	// run.
	Key   string
	Error *formError
	// Signing is false when no certificate can sign in CerteCF now (a run
	// would fail at its first row).
	Signing bool
}

// handleCertification lists the company's runs in CerteCF, newest first.
// Elsewhere it sends to CerteCF's page: DGII's test sets run only there.
func (s *Server) handleCertification(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	if env != sello.EnvCert {
		s.redirect(w, r, certificationPath())
		return nil
	}
	return s.renderCertification(w, r, v, http.StatusOK, nil)
}

func (s *Server) renderCertification(w http.ResponseWriter, r *http.Request, v *visit, status int, fe *formError) error {
	runs, err := s.Store.FindCertificationRuns(r.Context(), v.Tenant.ID, sello.EnvCert)
	if err != nil {
		return err
	}
	view := certificationView{Runs: runs, CanManage: canManage(v, certificateManagers), Key: sello.NewID(), Error: fe}
	if _, err := s.Store.FindSigningCertificate(r.Context(), v.Tenant.ID, sello.EnvCert, s.now()); err == nil {
		view.Signing = true
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	s.render(w, r, status, certificationPage(s.fiscalLayout(r, v, v.T("Certification")), view))
	return nil
}

// handleCertificationStart starts a run with the uploaded workbook: its
// rows (testset.ReadWorkbook) through sello.StartCertification, with the
// form's idempotency key. The run is audited (certification_run.created)
// and its page shown. A refusal (not a workbook, no rows, a row without a
// valid e-NCF) shows the list again with the message.
func (s *Server) handleCertificationStart(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, certificateManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		fe := formErrorOf(v, err)
		if fe == nil {
			return err
		}
		return s.renderCertification(w, r, v, http.StatusBadRequest, fe)
	}
	if err := sello.CertificationEnvironment(env); err != nil {
		return fail(err)
	}
	b, file, err := uploadedFile(r, v, "file", testset.MaxSize)
	if err != nil {
		return fail(err)
	}
	rows, err := testset.ReadWorkbook(bytes.NewReader(b))
	if err != nil {
		return fail(err)
	}
	key := r.PostFormValue("key")
	if len(key) > 255 {
		key = key[:255]
	}
	run, replayed, err := sello.StartCertification(r.Context(), s.Store, v.Tenant.ID, env, rows, key, s.now())
	if err != nil {
		return fail(err)
	}
	if !replayed {
		kinds := map[sello.CertificationKind]int{}
		for _, row := range run.Rows {
			kinds[row.Kind]++
		}
		if err := s.auditFiscal(r.Context(), v, "certification_run.created", run.ID, certificationAudit{
			Environment: env, File: file, Rows: len(run.Rows), Kinds: kinds}); err != nil {
			return err
		}
	}
	s.redirect(w, r, certificationRunPath(run.ID))
	return nil
}

// certificationAudit is what the audit log keeps of a run started.
type certificationAudit struct {
	Environment sello.Environment               `json:"environment"`
	File        string                          `json:"file"`
	Rows        int                             `json:"rows"`
	Kinds       map[sello.CertificationKind]int `json:"kinds"`
}

// certificationRunView is one run's page, or its rows' fragment.
type certificationRunView struct {
	Run *sello.CertificationRun
	// Signed is how many of its e-CFs are signed: the ZIP has their PDFs.
	Signed int
}

// Running reports whether the run goes on (the rows then refresh).
func (view certificationRunView) Running() bool {
	return view.Run.State == sello.CertificationRunning
}

// findCertificationRun is the company's run of the path's {id} in
// CerteCF. Another company's, or one under another environment's path, is
// NOT_FOUND.
func (s *Server) findCertificationRun(r *http.Request, v *visit) (certificationRunView, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return certificationRunView{}, err
	}
	id := r.PathValue("id")
	if env != sello.EnvCert {
		return certificationRunView{}, sello.CertificationRunNotFound(id)
	}
	run, err := s.Store.FindCertificationRun(r.Context(), v.Tenant.ID, env, id)
	if err != nil {
		return certificationRunView{}, err
	}
	view := certificationRunView{Run: run}
	for _, row := range run.Rows {
		if row.Kind != sello.CertificationACECF && row.SignedAt != nil && row.SecurityCode != "" {
			view.Signed++
		}
	}
	return view, nil
}

// handleCertificationRun shows one run: its state, counts, where it
// stopped and why, and every row with DGII's answer.
func (s *Server) handleCertificationRun(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findCertificationRun(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, certificationRunPage(s.layout(r, v, v.T("Certification run")), view))
	return nil
}

// handleCertificationRows is the run's progress alone: what htmx swaps in
// every 2 s while the run goes on.
func (s *Server) handleCertificationRows(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findCertificationRun(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, certificationProgress(s.layout(r, v, v.T("Certification run")), view))
	return nil
}

// handleCertificationZIP downloads the run's printed representations, one
// PDF per signed e-CF, as GET
// /CerteCF/certificacion/pruebas/{id}/representaciones-impresas. CONFLICT
// while none is signed.
func (s *Server) handleCertificationZIP(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findCertificationRun(r, v)
	if err != nil {
		return err
	}
	zb, n, err := pdf.PrintedRepresentations(view.Run)
	if err != nil {
		return err
	} else if n == 0 {
		return pageError(sello.CodeConflict, v.T("No e-CF of this run is signed yet: its printed representations follow its signatures."))
	}
	writeFile(w, "application/zip", "representaciones-impresas-"+view.Run.ID+".zip", zb)
	return nil
}

// rowAnswer is a row's DGII answer or error, in one line.
func rowAnswer(row *sello.CertificationRow) string {
	switch {
	case row.Error != "":
		return row.Error
	case row.DGII != nil:
		msgs := dgiiMessages(row.DGII)
		out := dgiiEstado(row.DGII)
		for _, m := range msgs {
			out += " · " + m
		}
		return out
	}
	return ""
}

// runAccepted is how many rows of the run DGII accepted (with or without
// conditions).
func runAccepted(run *sello.CertificationRun) int {
	n := 0
	for _, row := range run.Rows {
		if row.State == sello.RowAccepted || row.State == sello.RowAcceptedConditional {
			n++
		}
	}
	return n
}
