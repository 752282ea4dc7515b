package sello

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"
)

// Certification runs DGII's test set in CerteCF (FACTS §5.2, steps 2–3;
// docs/certification.md). DGII publishes the set as a workbook whose rows
// are documents and whose column headers are the XML element names; a run
// takes those rows (from the workbook or as JSON), and its
// CertificationJob sends them to CerteCF one at a time, in order: each
// e-CF to recepción and followed to a verdict, each RFCE (type 32 under
// DOP 250,000) to recepción FC, each ACECF to aprobación comercial. The
// rows' e-NCFs are DGII's, used as given: a run consumes none of the
// tenant's sequences. A Rechazado stops the run at its row: DGII restarts
// the whole set on one rejection.

// CertificationKind is what a row of the test set is.
type CertificationKind string

// The three kinds of rows, one per sheet of DGII's workbook.
const (
	CertificationECF   CertificationKind = "ecf"   // an e-CF sent whole to recepción
	CertificationRFCE  CertificationKind = "rfce"  // a type 32 under DOP 250,000, sent as its RFCE summary
	CertificationACECF CertificationKind = "acecf" // a commercial approval sent to aprobación comercial
)

// CertificationKinds lists the kinds in the order their rows are sent:
// DGII's data tests (e-CF, then the RFCE summaries), then the commercial
// approvals.
var CertificationKinds = []CertificationKind{CertificationECF, CertificationRFCE, CertificationACECF}

// The states of a run.
const (
	CertificationRunning = "running" // rows are being sent
	CertificationPassed  = "passed"  // every row was accepted
	CertificationStopped = "stopped" // DGII rejected a row (Failure says which and why)
	CertificationFailed  = "failed"  // Sello could not send a row (Failure says why)
)

// The states of a row.
const (
	RowPending             = "pending"              // not sent yet
	RowSigned              = "signed"               // built and signed, about to be sent (its XML is kept)
	RowSent                = "sent"                 // an e-CF DGII took (trackId), waiting for the verdict
	RowAccepted            = "accepted"             // Aceptado (an ACECF: DGII's codigo 1)
	RowAcceptedConditional = "accepted_conditional" // Aceptado Condicional
	RowRejected            = "rejected"             // Rechazado (an ACECF: DGII's codigo 2)
	RowFailed              = "failed"               // Sello could not build, sign or send it
)

// MaxCertificationRows bounds a run's rows (DGII's sets have about 40).
const MaxCertificationRows = 1000

// CertificationRow is one document of the test set.
type CertificationRow struct {
	// Index is the row's place in the run, from 1: rows are sent in Index
	// order.
	Index int `json:"index"`
	// Sheet is the workbook sheet (or JSON list) the row came from, and
	// SheetRow its row there (the workbook's row number, the header being
	// row 1; from 1 in a JSON list).
	Sheet    string            `json:"sheet"`
	SheetRow int               `json:"sheetRow"`
	Kind     CertificationKind `json:"kind"`
	ENCF     string            `json:"encf"`
	// Fields are the row's non-empty cells by column header (DGII's
	// element names, with [i] indexes for repeated elements).
	Fields map[string]string `json:"fields"`
	State  string            `json:"state"`
	// TrackID is DGII's trackId of an e-CF once sent.
	TrackID string `json:"trackId,omitempty"`
	// SecurityCode and SignedAt are the signed e-CF's (for an RFCE row, the
	// full e-CF 32 behind the summary), set once signed.
	SecurityCode string     `json:"securityCode,omitempty"`
	SignedAt     *time.Time `json:"signedAt,omitempty"`
	// Attempted is set, before the first send, once a send of the row may
	// have reached DGII: only then does a later run ask DGII for it before
	// sending (a row never attempted is sent, even if an earlier run of the
	// set sent the same e-NCF).
	Attempted bool `json:"attempted,omitempty"`
	// DGII is DGII's answer once it gave one.
	DGII *DGIIResult `json:"dgii"`
	// Error says why a failed row failed.
	Error     string    `json:"error,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Final reports whether the row is done with.
func (r *CertificationRow) Final() bool {
	switch r.State {
	case RowAccepted, RowAcceptedConditional, RowRejected, RowFailed:
		return true
	}
	return false
}

// CertificationFailure says where and why a run stopped or failed.
type CertificationFailure struct {
	Row      int           `json:"row"`
	Sheet    string        `json:"sheet"`
	SheetRow int           `json:"sheetRow"`
	ENCF     string        `json:"encf"`
	Message  string        `json:"message"`
	Mensajes []DGIIMessage `json:"mensajes"`
}

// CertificationRun is one run of DGII's test set by a tenant in CerteCF.
type CertificationRun struct {
	ID          string                `json:"id"`
	TenantID    string                `json:"-"`
	Environment Environment           `json:"environment"`
	State       string                `json:"state"`
	Rows        []*CertificationRow   `json:"rows"`
	Failure     *CertificationFailure `json:"failure"`
	CreatedAt   time.Time             `json:"createdAt"`
	UpdatedAt   time.Time             `json:"updatedAt"`
	// IdempotencyKey is the Idempotency-Key the run was started with (""
	// for none) and RequestHash the hash of its rows: the same key again
	// replays the run (see Replay).
	IdempotencyKey string `json:"-"`
	RequestHash    []byte `json:"-"`
}

// Replay is the rule of a start that reuses the Idempotency-Key of run
// prev: the same rows replay prev, other rows are IDEMPOTENCY_KEY_REUSED.
func (c *CertificationRun) Replay(prev *CertificationRun) error {
	if !bytes.Equal(c.RequestHash, prev.RequestHash) {
		return Errorf(CodeIdempotencyKeyReused, "Idempotency-Key %q started certification run %s with another test set.", c.IdempotencyKey, prev.ID)
	}
	return nil
}

// Job is the run's CertificationJob.
func (c *CertificationRun) Job() CertificationJob {
	return CertificationJob{TenantID: c.TenantID, Environment: c.Environment, RunID: c.ID}
}

// Next returns the row to work on: the first that is not final, nil when
// the run is over.
func (c *CertificationRun) Next() *CertificationRow {
	if c.State != CertificationRunning {
		return nil
	}
	for _, r := range c.Rows {
		if !r.Final() {
			return r
		}
	}
	return nil
}

// Row returns the row of index i, nil if there is none.
func (c *CertificationRun) Row(i int) *CertificationRow {
	if i < 1 || i > len(c.Rows) {
		return nil
	}
	return c.Rows[i-1]
}

// Counts returns how many rows are in each state.
func (c *CertificationRun) Counts() map[string]int {
	m := map[string]int{}
	for _, r := range c.Rows {
		m[r.State]++
	}
	return m
}

// CertificationRowUpdate is what a step of the job learnt about a row.
type CertificationRowUpdate struct {
	State        string
	TrackID      string     // set when the e-CF was sent
	SecurityCode string     // set when signed
	SignedAt     *time.Time // set when signed
	XML          []byte     // the signed XML sent, set when signed
	Attempted    bool       // set before the first send
	DGII         *DGIIResult
	Error        string
}

// Record applies u to row i of the run at now: the rule of a run's
// progress, the one home of it (both stores call it inside the
// transaction that saves its result). Only the run's next row changes, and
// only forward: pending → signed → sent → a final state (an RFCE or ACECF
// goes from signed to its verdict; any step may fail). A final row moves
// the run on: the last accepted row passes it, a rejected row stops it, a
// failed row fails it. Returns CONFLICT when the run is over or the row
// is not its next, INVALID_REQUEST for an unknown or backward state.
func (c *CertificationRun) Record(i int, u CertificationRowUpdate, now time.Time) (*CertificationRow, error) {
	r := c.Next()
	if r == nil {
		return nil, Errorf(CodeConflict, "Certification run %s is %s: no row takes an update.", c.ID, c.State)
	} else if r.Index != i {
		return nil, Errorf(CodeConflict, "Row %d of certification run %s is not the next to send (row %d is).", i, c.ID, r.Index)
	}
	rank := map[string]int{RowPending: 0, RowSigned: 1, RowSent: 2, RowAccepted: 3, RowAcceptedConditional: 3, RowRejected: 3, RowFailed: 3}
	to, ok := rank[u.State]
	if !ok || to <= rank[r.State] && u.State != r.State {
		return nil, Errorf(CodeInvalidRequest, "Row %d cannot go from %s to %q.", i, r.State, u.State)
	}
	r.State = u.State
	if u.TrackID != "" {
		r.TrackID = u.TrackID
	}
	if u.SecurityCode != "" {
		r.SecurityCode = u.SecurityCode
	}
	if u.SignedAt != nil {
		t := u.SignedAt.UTC()
		r.SignedAt = &t
	}
	if u.Attempted {
		r.Attempted = true
	}
	if u.DGII != nil {
		r.DGII = u.DGII
	}
	r.Error = u.Error
	r.UpdatedAt, c.UpdatedAt = now, now
	switch r.State {
	case RowRejected:
		c.State = CertificationStopped
		c.Failure = r.failure(fmt.Sprintf("DGII rejected row %d (%s row %d, %s): DGII restarts the whole set on one rejection; correct the data and start a new run.", r.Index, r.Sheet, r.SheetRow, r.ENCF))
	case RowFailed:
		c.State = CertificationFailed
		c.Failure = r.failure(fmt.Sprintf("Row %d (%s row %d, %s) could not be sent: %s", r.Index, r.Sheet, r.SheetRow, r.ENCF, r.Error))
	case RowAccepted, RowAcceptedConditional:
		if c.Next() == nil {
			c.State = CertificationPassed
		}
	}
	return r, nil
}

// failure is the run's failure at row r.
func (r *CertificationRow) failure(msg string) *CertificationFailure {
	f := &CertificationFailure{Row: r.Index, Sheet: r.Sheet, SheetRow: r.SheetRow, ENCF: r.ENCF, Message: msg, Mensajes: []DGIIMessage{}}
	if r.DGII != nil {
		f.Mensajes = append(f.Mensajes, r.DGII.Mensajes...)
	}
	return f
}

// NewCertificationRun is a run of rows by the tenant in env, rows numbered
// in order. Returns VALIDATION_FAILED when env is not CerteCF (DGII's test
// sets run only there), when there is no row or more than
// MaxCertificationRows, or when a row has no e-NCF or an unknown kind.
func NewCertificationRun(tenantID string, env Environment, rows []*CertificationRow, now time.Time) (*CertificationRun, error) {
	if err := CertificationEnvironment(env); err != nil {
		return nil, err
	}
	var p Problems
	switch {
	case len(rows) == 0:
		p.Add("rows", "The test set has no rows: give DGII's workbook or at least one row.")
	case len(rows) > MaxCertificationRows:
		p.Addf("rows", "The test set has %d rows; at most %d are taken.", len(rows), MaxCertificationRows)
	}
	seen := map[string]int{}
	for i, r := range rows {
		where := fmt.Sprintf("%s[%d]", r.Sheet, r.SheetRow)
		switch r.Kind {
		case CertificationECF, CertificationRFCE, CertificationACECF:
		default:
			p.Addf(where, "Unknown kind %q: ecf, rfce or acecf.", r.Kind)
		}
		if _, err := ParseENCF(r.ENCF); err != nil {
			p.Addf(where, "The row has no valid e-NCF (ENCF/eNCF column): %q.", r.ENCF)
		} else if r.Kind != CertificationACECF {
			if j, dup := seen[r.ENCF]; dup {
				p.Addf(where, "e-NCF %s is also row %d: each document of the set has its own.", r.ENCF, j)
			}
			seen[r.ENCF] = i + 1
		}
		r.Index, r.State, r.UpdatedAt = i+1, RowPending, now
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return &CertificationRun{
		ID: NewID(), TenantID: tenantID, Environment: env, State: CertificationRunning,
		Rows: rows, CreatedAt: now, UpdatedAt: now,
	}, nil
}

// CertificationEnvironment refuses every environment but CerteCF:
// DGII's test sets are run there (FACTS §5.2). Returns VALIDATION_FAILED.
func CertificationEnvironment(env Environment) error {
	if env != EnvCert {
		var p Problems
		p.Add("env", "Must be CerteCF.")
		return p.Errorf(CodeValidationFailed, "DGII's certification test set runs only in CerteCF, not in %s: use a CerteCF API key and /CerteCF/certificacion/pruebas.", env)
	}
	return nil
}

// StartCertification creates a run of rows for the tenant in env and
// queues its job (the API's POST /{env}/certificacion/pruebas and the
// CLI's certification run). With an idempotency key already used by the
// tenant in env it returns that run and replayed = true, starting
// nothing. Returns the errors of NewCertificationRun, Replay and the
// store.
func StartCertification(ctx context.Context, store CertificationStore, tenantID string, env Environment, rows []*CertificationRow, idempotencyKey string, now time.Time) (run *CertificationRun, replayed bool, err error) {
	if run, err = NewCertificationRun(tenantID, env, rows, now); err != nil {
		return nil, false, err
	}
	if idempotencyKey != "" {
		type content struct {
			Sheet    string
			SheetRow int
			Kind     CertificationKind
			Fields   map[string]string
		}
		set := make([]content, len(rows))
		for i, r := range rows {
			set[i] = content{r.Sheet, r.SheetRow, r.Kind, r.Fields}
		}
		b, err := json.Marshal(set)
		if err != nil {
			return nil, false, fmt.Errorf("hash certification rows: %w", err)
		}
		h := sha256.Sum256(b)
		run.IdempotencyKey, run.RequestHash = idempotencyKey, h[:]
	}
	return store.CreateCertificationRun(ctx, run)
}

// CertificationStore keeps certification runs.
type CertificationStore interface {
	// CreateCertificationRun stores run with its rows and inserts its
	// CertificationJob in one transaction, unless the tenant has a run in
	// the environment with run's IdempotencyKey: then it applies
	// run.Replay to that run and returns it with replayed = true. Returns
	// NOT_FOUND if the tenant does not exist, and the errors of Replay.
	CreateCertificationRun(ctx context.Context, run *CertificationRun) (stored *CertificationRun, replayed bool, err error)
	// FindCertificationRun returns the tenant's run in env with its rows.
	// Returns NOT_FOUND.
	FindCertificationRun(ctx context.Context, tenantID string, env Environment, id string) (*CertificationRun, error)
	// FindCertificationRuns lists the tenant's runs in env, newest first,
	// with their rows (a list shows each run's counts).
	FindCertificationRuns(ctx context.Context, tenantID string, env Environment) ([]*CertificationRun, error)
	// RecordCertificationRow applies u to row i of the run (see
	// CertificationRun.Record) in one transaction, keeping u.XML when
	// given, and returns the run as stored. Returns NOT_FOUND and the
	// errors of Record.
	RecordCertificationRow(ctx context.Context, tenantID string, env Environment, id string, i int, u CertificationRowUpdate, now time.Time) (*CertificationRun, error)
	// FindCertificationRowXML returns the signed XML kept for row i.
	// Returns NOT_FOUND when there is none.
	FindCertificationRowXML(ctx context.Context, tenantID string, env Environment, id string, i int) ([]byte, error)
}

// CertificationJob drives a run: each run of it sends the next row and
// follows it to a verdict (the worker package works it).
type CertificationJob struct {
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	RunID       string      `json:"runId"`
}

// Kind implements Job (River's JobArgs).
func (CertificationJob) Kind() string { return "sello.certification" }

// MaxAttempts implements JobMaxAttempts: as a document's job, a run waits
// out DGII's outages (snoozes do not count).
func (CertificationJob) MaxAttempts() int { return DocumentJobMaxAttempts }

// CertificationRunNotFound is NOT_FOUND for run id.
func CertificationRunNotFound(id string) error {
	return Errorf(CodeNotFound, "No certification run %s in this environment.", id)
}

// CertificationRowResource is the public form of a row: its progress and
// DGII's answer (not its fields, which the caller sent).
type CertificationRowResource struct {
	Index        int               `json:"index"`
	Sheet        string            `json:"sheet"`
	SheetRow     int               `json:"sheetRow"`
	Kind         CertificationKind `json:"kind"`
	ENCF         string            `json:"encf"`
	State        string            `json:"state"`
	TrackID      *string           `json:"trackId"`
	SecurityCode *string           `json:"securityCode"`
	SignedAt     *string           `json:"signedAt"`
	DGII         *DGIIResult       `json:"dgii"`
	Error        *string           `json:"error"`
	UpdatedAt    string            `json:"updatedAt"`
}

// CertificationRunResource is the public form of a run (the API's
// certificacion/pruebas): its state, how many rows are in each state, each
// row's progress and, when it stopped or failed, where and why.
type CertificationRunResource struct {
	ID          string                     `json:"id"`
	Environment Environment                `json:"environment"`
	State       string                     `json:"state"`
	Counts      map[string]int             `json:"counts"`
	Rows        []CertificationRowResource `json:"rows"`
	Failure     *CertificationFailure      `json:"failure"`
	CreatedAt   string                     `json:"createdAt"`
	UpdatedAt   string                     `json:"updatedAt"`
}

// CertificationRunSummary is a run in a list: its resource without the
// rows (GET /{env}/certificacion/pruebas/{id} has them).
type CertificationRunSummary struct {
	ID          string                `json:"id"`
	Environment Environment           `json:"environment"`
	State       string                `json:"state"`
	Counts      map[string]int        `json:"counts"`
	Failure     *CertificationFailure `json:"failure"`
	CreatedAt   string                `json:"createdAt"`
	UpdatedAt   string                `json:"updatedAt"`
}

// Summary returns the run's form in a list.
func (c *CertificationRun) Summary() CertificationRunSummary {
	return CertificationRunSummary{ID: c.ID, Environment: c.Environment, State: c.State, Counts: c.Counts(), Failure: c.Failure,
		CreatedAt: FormatTime(c.CreatedAt), UpdatedAt: FormatTime(c.UpdatedAt)}
}

// Resource returns the run's public form.
func (c *CertificationRun) Resource() CertificationRunResource {
	r := CertificationRunResource{
		ID: c.ID, Environment: c.Environment, State: c.State, Counts: c.Counts(),
		Rows: make([]CertificationRowResource, len(c.Rows)), Failure: c.Failure,
		CreatedAt: FormatTime(c.CreatedAt), UpdatedAt: FormatTime(c.UpdatedAt),
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	for i, row := range c.Rows {
		rr := CertificationRowResource{
			Index: row.Index, Sheet: row.Sheet, SheetRow: row.SheetRow, Kind: row.Kind, ENCF: row.ENCF, State: row.State,
			TrackID: opt(row.TrackID), SecurityCode: opt(row.SecurityCode), DGII: row.DGII, Error: opt(row.Error),
			UpdatedAt: FormatTime(row.UpdatedAt),
		}
		if row.SignedAt != nil {
			rr.SignedAt = opt(FormatTime(*row.SignedAt))
		}
		r.Rows[i] = rr
	}
	return r
}
