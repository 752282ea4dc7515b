package sello

import (
	"fmt"
	"regexp"
	"time"
)

// Tenant is a customer account: one taxpayer, identified by its RNC.
type Tenant struct {
	ID   string   `json:"id"`
	RNC  string   `json:"rnc"`
	Name string   `json:"name"`
	Plan RatePlan `json:"plan"`
	// ReceiverAuthOff lets callers of the tenant's receiver services
	// (DESIGN §6) post without a token; they require one by default.
	ReceiverAuthOff bool      `json:"receiverAuthOff"`
	CreatedAt       time.Time `json:"createdAt"`
}

var rncPattern = regexp.MustCompile(`^([0-9]{9}|[0-9]{11})$`)

// ValidateRNC reports whether s is a well-formed RNC (9 digits) or cédula
// (11 digits), the forms DGII's XSDs accept. Returns INVALID_REQUEST.
func ValidateRNC(s string) error {
	if !rncPattern.MatchString(s) {
		return Errorf(CodeInvalidRequest, "RNC %q must have 9 or 11 digits.", s)
	}
	return nil
}

// Validate checks a new tenant. Returns INVALID_REQUEST.
func (t *Tenant) Validate() error {
	if err := ValidateRNC(t.RNC); err != nil {
		return err
	} else if t.Name == "" {
		return Errorf(CodeInvalidRequest, "Tenant name required.")
	} else if len(t.Name) > 150 {
		return Errorf(CodeInvalidRequest, "Tenant name must be at most 150 characters.")
	}
	return t.Plan.Validate()
}

// RatePlan is a tenant's rate limit, applied to each of its API keys as a
// token bucket: Burst requests at once, refilled at Rate per second.
type RatePlan struct {
	Name  string  `json:"name"`
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst"`
}

// DefaultRatePlan is the plan of a new tenant: enough for a POS fleet's
// ordinary traffic and for the demo, small enough to stop a runaway client.
var DefaultRatePlan = RatePlan{Name: "standard", Rate: 50, Burst: 200}

// Validate checks the plan. Returns INVALID_REQUEST.
func (p RatePlan) Validate() error {
	if p.Name == "" {
		return Errorf(CodeInvalidRequest, "Plan name required.")
	} else if p.Rate <= 0 || p.Burst < 1 {
		return Errorf(CodeInvalidRequest, "Plan %q needs a rate above 0 and a burst of at least 1.", p.Name)
	}
	return nil
}

// Window is the time, in seconds, the bucket takes to refill from empty.
func (p RatePlan) Window() float64 { return float64(p.Burst) / p.Rate }

// String describes the plan for logs and CLI output.
func (p RatePlan) String() string {
	return fmt.Sprintf("%s (%g/s, burst %d)", p.Name, p.Rate, p.Burst)
}
