package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"
)

// WorkbookMediaType is the media type of DGII's .xlsx test set.
const WorkbookMediaType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// CertificationRunState is the state of a run of DGII's certification test
// set.
type CertificationRunState string

// The states of a certification run.
const (
	// CertificationRunning: rows are being signed and sent.
	CertificationRunning CertificationRunState = "running"
	// CertificationPassed: every row accepted or accepted conditionally.
	CertificationPassed CertificationRunState = "passed"
	// CertificationStopped: DGII rejected a row; nothing after it is sent.
	CertificationStopped CertificationRunState = "stopped"
	// CertificationFailed: Sello could not build, sign or send a row
	// (Failure.Message and the row's Error say why).
	CertificationFailed CertificationRunState = "failed"
)

// CertificationRun is a run of DGII's certification test set with its rows
// (the OpenAPI's CertificationRun).
type CertificationRun struct {
	ID          string                `json:"id"`
	Environment Environment           `json:"environment"`
	State       CertificationRunState `json:"state"`
	// Counts is how many rows are in each row state.
	Counts map[string]int     `json:"counts"`
	Rows   []CertificationRow `json:"rows"`
	// Failure is the row that stopped or failed the run; nil otherwise.
	Failure   *CertificationFailure `json:"failure"`
	CreatedAt time.Time             `json:"createdAt"`
	UpdatedAt time.Time             `json:"updatedAt"`
}

// CertificationRunSummary is a certification run in a list: the run
// without its rows (the OpenAPI's CertificationRunSummary).
type CertificationRunSummary struct {
	ID          string                `json:"id"`
	Environment Environment           `json:"environment"`
	State       CertificationRunState `json:"state"`
	Counts      map[string]int        `json:"counts"`
	Failure     *CertificationFailure `json:"failure"`
	CreatedAt   time.Time             `json:"createdAt"`
	UpdatedAt   time.Time             `json:"updatedAt"`
}

// CertificationRow is one row of a run: one document of the test set.
type CertificationRow struct {
	// Index is the row's place in the run, from 1: rows are sent in this
	// order.
	Index int `json:"index"`
	// Sheet is the workbook sheet (or JSON list) of the row, SheetRow its
	// number there (the header is row 1; from 1 in a JSON list).
	Sheet    string `json:"sheet"`
	SheetRow int    `json:"sheetRow"`
	// Kind is ecf, rfce or acecf.
	Kind string `json:"kind"`
	ENCF string `json:"encf"`
	// State is pending, signed, sent, accepted, accepted_conditional,
	// rejected or failed.
	State string `json:"state"`
	// TrackID, SecurityCode and SignedAt are nil until they exist.
	TrackID      *string    `json:"trackId"`
	SecurityCode *string    `json:"securityCode"`
	SignedAt     *time.Time `json:"signedAt"`
	// DGII is DGII's answer: the verdict of an e-CF or RFCE, or for an
	// ACECF Codigo 1 (taken) or 2 (refused); nil until DGII answered.
	DGII *DGIIResult `json:"dgii"`
	// Error says why a failed row failed; nil otherwise.
	Error     *string   `json:"error"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// CertificationFailure is the row that stopped or failed a run.
type CertificationFailure struct {
	Row      int    `json:"row"`
	Sheet    string `json:"sheet"`
	SheetRow int    `json:"sheetRow"`
	ENCF     string `json:"encf"`
	Message  string `json:"message"`
	// Mensajes are DGII's messages on the rejected row.
	Mensajes []DGIIMessage `json:"mensajes"`
}

// CertificationRows is DGII's test set as JSON: per list, the rows of the
// workbook's sheet, each a map of header (DGII's element name, with [n] per
// repeated ancestor: "NombreItem[1]") to value (a string, a number, or nil
// for an absent element).
type CertificationRows struct {
	ECF   []map[string]any `json:"ecf,omitempty"`
	RFCE  []map[string]any `json:"rfce,omitempty"`
	ACECF []map[string]any `json:"acecf,omitempty"`
}

// CreateCertificationRunRequest is a test set to run: DGII's workbook as
// published (Workbook) or its rows (Rows), one of the two.
type CreateCertificationRunRequest struct {
	// Workbook is DGII's .xlsx, sent as it is (WorkbookMediaType).
	Workbook []byte
	// Rows is the test set as JSON rows.
	Rows *CertificationRows
	// IdempotencyKey makes retries safe; a random UUID is used when empty.
	// Without it, a retried start would send DGII the same e-NCFs again,
	// which DGII rejects as used.
	IdempotencyKey string
}

// CertificationRunResponse is an answer carrying one certification run.
type CertificationRunResponse struct {
	Run CertificationRun
	// Replayed is true when a create answered a repeat of an earlier create
	// with the same Idempotency-Key and test set: no new run was started.
	Replayed      bool
	CorrelationID string
}

// CreateCertificationRun starts a run of DGII's certification test set
// (202, the run running): each row is signed with the tenant's certificate
// and sent to DGII in order, until DGII rejects one. Only in CerteCF. The
// request carries an Idempotency-Key, the same on every retry. It needs
// scope tenant:admin.
//
// API errors: VALIDATION_FAILED (the environment is not CerteCF; no rows or
// over 1,000; a row without e-NCF or two with one; a header repeated),
// INVALID_REQUEST (not an .xlsx workbook, or no sheet of rows),
// INVALID_JSON, PAYLOAD_TOO_LARGE (over 10 MiB), IDEMPOTENCY_KEY_REUSED
// (the key started a run of another set).
func (c *Client) CreateCertificationRun(ctx context.Context, req CreateCertificationRunRequest) (*CertificationRunResponse, error) {
	r := request{method: http.MethodPost, path: "/certificacion/pruebas"}
	switch {
	case req.Workbook != nil && req.Rows != nil:
		return nil, errors.New("sello: certification run: give the Workbook or the Rows, not both")
	case req.Workbook != nil:
		r.body, r.contentType = req.Workbook, WorkbookMediaType
	case req.Rows != nil:
		body, err := marshalBody(req.Rows)
		if err != nil {
			return nil, err
		}
		r.body = body
	default:
		return nil, errors.New("sello: certification run: no Workbook and no Rows")
	}
	header, err := idempotencyHeader(req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	r.header = header
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	run, cid, err := one[CertificationRun](resp, "run")
	if err != nil {
		return nil, err
	}
	return &CertificationRunResponse{Run: run, Replayed: resp.header.Get("Idempotent-Replayed") == "true", CorrelationID: cid}, nil
}

// ListCertificationRunsParams pages ListCertificationRuns.
type ListCertificationRunsParams struct {
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListCertificationRuns returns one page of the tenant's certification
// runs, newest first, without their rows; empty outside CerteCF. It needs
// scope tenant:admin. API errors: INVALID_REQUEST (a malformed Cursor or
// Limit).
func (c *Client) ListCertificationRuns(ctx context.Context, p ListCertificationRunsParams) (*Page[CertificationRunSummary], error) {
	return list[CertificationRunSummary](ctx, c, "/certificacion/pruebas", pageQuery{}.page(p.Cursor, p.Limit))
}

// CertificationRuns ranges over every certification run of the tenant,
// newest first, fetching page after page. It stops at the first error,
// which it yields.
func (c *Client) CertificationRuns(ctx context.Context, p ListCertificationRunsParams) iter.Seq2[*CertificationRunSummary, error] {
	return every(p.Cursor, func(cursor string) (*Page[CertificationRunSummary], error) {
		p.Cursor = cursor
		return c.ListCertificationRuns(ctx, p)
	})
}

// GetCertificationRun returns the certification run with id, with every
// row's progress and DGII's answers. It needs scope tenant:admin. API
// errors: NOT_FOUND.
func (c *Client) GetCertificationRun(ctx context.Context, id string) (*CertificationRunResponse, error) {
	seg, err := pathID("certification run", id)
	if err != nil {
		return nil, err
	}
	run, cid, err := get[CertificationRun](ctx, c, "/certificacion/pruebas"+seg, "run")
	if err != nil {
		return nil, err
	}
	return &CertificationRunResponse{Run: run, CorrelationID: cid}, nil
}

// GetCertificationPrintedRepresentations returns a ZIP of the printed
// representations of the run's signed e-CFs, each <e-NCF>.pdf; a finished
// run gives the same bytes every time. It needs scope tenant:admin. API
// errors: NOT_FOUND, CONFLICT (no row is signed yet).
func (c *Client) GetCertificationPrintedRepresentations(ctx context.Context, id string) ([]byte, error) {
	seg, err := pathID("certification run", id)
	if err != nil {
		return nil, err
	}
	return c.file(ctx, "/certificacion/pruebas"+seg+"/representaciones-impresas", "application/zip")
}
