package client

import (
	"context"
	"time"
)

// DGIIState is the state of DGII's services in an environment, as Sello
// sees them.
type DGIIState string

// The states of DGII's services.
const (
	// DGIIAvailable: documents are sent to DGII as they are signed.
	DGIIAvailable DGIIState = "available"
	// DGIIContingency: DGII has not answered for longer than the server's
	// threshold; documents are still accepted, numbered and signed
	// (Contingency true), and wait.
	DGIIContingency DGIIState = "contingency"
	// DGIIDraining: DGII answers again and the documents that waited are
	// being sent, oldest first; new ones wait behind them.
	DGIIDraining DGIIState = "draining"
)

// DGIIStatus is the state of DGII's services in the client's environment
// and the tenant's backlog (the OpenAPI's DGIIStatus).
type DGIIStatus struct {
	State DGIIState `json:"state"`
	// Since and Until bound the current or last contingency; nil when there
	// was none (Until also while it lasts).
	Since *time.Time `json:"since"`
	Until *time.Time `json:"until"`
	// FailingSince is the first failed call since DGII last answered; nil
	// when the last call succeeded.
	FailingSince *time.Time `json:"failingSince"`
	// LastFailure is the last call DGII did not answer; nil before any.
	LastFailure *time.Time `json:"lastFailure"`
	// LastSuccess is when DGII last answered a call (up to a minute old);
	// nil before DGII first answered.
	LastSuccess *time.Time `json:"lastSuccess"`
	// Waiting counts the tenant's documents not yet at DGII
	// (queued_for_signing or signed).
	Waiting int `json:"waiting"`
	// OldestWaiting is the oldest of them's creation; nil when none waits.
	OldestWaiting *time.Time `json:"oldestWaiting"`
	// Deadline is OldestWaiting plus 72 hours, DGII's deadline for e-CFs
	// issued in contingency (per a secondary source); nil when none waits.
	Deadline *time.Time `json:"deadline"`
}

// DGIIStatusResponse is the answer of GetDGIIStatus.
type DGIIStatusResponse struct {
	DGII          DGIIStatus
	CorrelationID string
}

// GetDGIIStatus returns the state of DGII's services in the client's
// environment (the same for every tenant) and the tenant's own backlog
// (GET /{env}/estado-dgii). It needs scope tenant:admin. API errors: the
// authentication errors alone.
func (c *Client) GetDGIIStatus(ctx context.Context) (*DGIIStatusResponse, error) {
	s, cid, err := get[DGIIStatus](ctx, c, "/estado-dgii", "dgii")
	if err != nil {
		return nil, err
	}
	return &DGIIStatusResponse{DGII: s, CorrelationID: cid}, nil
}
