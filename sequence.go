package sello

import (
	"context"
	"fmt"
	"time"
)

// Sequence is a range of e-NCF numbers DGII authorized a tenant for one type
// in one environment. Sello consumes it in order: Next is the next number it
// will assign.
type Sequence struct {
	ID          string       `json:"id"`
	TenantID    string       `json:"tenantId"`
	Environment Environment  `json:"environment"`
	Type        DocumentType `json:"type"`
	From        int64        `json:"from"`
	To          int64        `json:"to"`
	Next        int64        `json:"next"`
	// ExpiresOn is the authorization's expiry (FechaVencimientoSecuencia);
	// nil for ranges without one (DGII's types 32 and 34).
	ExpiresOn *Date     `json:"expiresOn"`
	CreatedAt time.Time `json:"createdAt"`
}

// Remaining is how many numbers the range has left.
func (s *Sequence) Remaining() int64 { return max(0, s.To-s.Next+1) }

// Contains reports whether number n lies in the range.
func (s *Sequence) Contains(n int64) bool { return n >= s.From && n <= s.To }

// Expired reports whether the range can no longer be used at now: a range is
// usable through the whole of its expiry day in the Dominican Republic.
func (s *Sequence) Expired(now time.Time) bool {
	return s.ExpiresOn != nil && TodayInDR(now).After(*s.ExpiresOn)
}

// Validate checks a new range: a known environment and type, 1 ≤ From ≤ To
// ≤ MaxSequenceNumber, and no ExpiresOn for the types without one (see
// DocumentType.HasSequenceExpiry). Returns INVALID_REQUEST.
func (s *Sequence) Validate() error {
	if _, err := ParseEnvironment(string(s.Environment)); err != nil {
		return err
	} else if _, err := ParseDocumentType(string(s.Type)); err != nil {
		return err
	} else if s.From < 1 || s.To > MaxSequenceNumber || s.From > s.To {
		return Errorf(CodeInvalidRequest, "Range %d–%d is not valid: it needs 1 ≤ from ≤ to ≤ %d.", s.From, s.To, int64(MaxSequenceNumber))
	} else if s.ExpiresOn != nil && !s.Type.HasSequenceExpiry() {
		return Errorf(CodeInvalidRequest, "Type %s has no sequence expiry: DGII's format gives types 32 and 34 no FechaVencimientoSecuencia, so give none.", s.Type)
	}
	return nil
}

// NextSequence returns the range the next number of type t comes from: the
// oldest unexpired range of t with numbers left. Returns SEQUENCE_EXHAUSTED
// naming the type (E31 form), the environment, why no range serves (none
// registered, all used up, all expired — the latest one's last day named —
// or some of each) and what to do: have DGII authorize a new range and
// register it.
func NextSequence(seqs []*Sequence, env Environment, t DocumentType, now time.Time) (*Sequence, error) {
	var used, expired int
	var last *Sequence // the expired range that expired last
	for _, s := range seqs {
		if s.Environment != env || s.Type != t {
			continue
		}
		if s.Expired(now) {
			expired++
			if last == nil || s.ExpiresOn.After(*last.ExpiresOn) {
				last = s
			}
			continue
		}
		if s.Remaining() > 0 {
			return s, nil
		}
		used++
	}
	var why Text
	switch {
	case used == 0 && expired == 0:
		why = Textf("No e-NCF range of type %s is registered in %s.", t.Code(), env)
	case expired == 0 && used == 1:
		why = Textf("Every e-NCF range of type %s in %s is used up (%d range).", t.Code(), env, used)
	case expired == 0:
		why = Textf("Every e-NCF range of type %s in %s is used up (%d ranges).", t.Code(), env, used)
	case used == 0:
		why = Textf("Every e-NCF range of type %s in %s is expired (the last one, %d–%d, on %s).", t.Code(), env, last.From, last.To, last.ExpiresOn)
	default:
		why = Textf("Every e-NCF range of type %s in %s is used up (%d) or expired (%d; the last one, %d–%d, on %s).", t.Code(), env, used, expired, last.From, last.To, last.ExpiresOn)
	}
	return nil, Errorf(CodeSequenceExhausted, "%s Request a new range of type %s from %s and register it with %s; the document used no number.", why, t.Code(), dgiiRangeRequest, registerWith(env))
}

// dgiiRangeRequest is where a taxpayer asks DGII for an e-NCF range.
const dgiiRangeRequest = `DGII (Oficina Virtual, "Solicitud de secuencias de e-NCF")`

// registerWith names the two ways to register a range in env, for the
// messages that tell a tenant to register one (SEQUENCE_EXHAUSTED, an
// explicit e-NCF or a void outside every range).
func registerWith(env Environment) Text {
	return Textf("POST /%s/secuencias or `sello sequences add`", env)
}

// SequenceOf returns the registered range an explicit e-NCF belongs to.
// Returns VALIDATION_FAILED at the e-NCF's path when it lies in no range
// (saying how to register one, as NextSequence does) or its range expired.
func SequenceOf(seqs []*Sequence, env Environment, encf ENCF, now time.Time) (*Sequence, error) {
	for _, s := range seqs {
		if s.Environment != env || s.Type != encf.Type || !s.Contains(encf.Number) {
			continue
		}
		if s.Expired(now) {
			return nil, ValidationErrorf(ENCFPath, "e-NCF %s belongs to a range that expired on %s", encf, s.ExpiresOn.DGII())
		}
		return s, nil
	}
	return nil, ValidationErrorf(ENCFPath, "e-NCF %s lies in no registered range of type %s in %s: register the range DGII authorized for it with %s, or request a new range of type %s from %s.", encf, encf.Type.Code(), env, registerWith(env), encf.Type.Code(), dgiiRangeRequest)
}

// SequenceRequest is a range to register, as the API's POST
// /{env}/secuencias and the operator CLI's sequences add take it.
type SequenceRequest struct {
	// Type is the e-CF type, "31" or "E31".
	Type string `json:"type"`
	From int64  `json:"from"`
	To   int64  `json:"to"`
	// ExpiresOn is the authorization's expiry (FechaVencimientoSecuencia),
	// yyyy-MM-dd (dd-MM-yyyy is accepted too): required for the types that
	// carry one, refused for 32 and 34.
	ExpiresOn *string `json:"expiresOn"`
}

// SequenceStore keeps authorized e-NCF ranges.
type SequenceStore interface {
	// AddSequence stores s with Next = From and sets its ID and CreatedAt.
	// Returns INVALID_REQUEST if s is not valid, NOT_FOUND if the tenant
	// does not exist, and CONFLICT if it overlaps a range of the same
	// tenant, environment and type.
	AddSequence(ctx context.Context, s *Sequence) error
	// FindSequences lists the tenant's ranges in env by type and start.
	FindSequences(ctx context.Context, tenantID string, env Environment) ([]*Sequence, error)
	// WarnSequence writes the event of warning w of range s (see
	// NewSequenceEvent) once: in one transaction it marks the range warned
	// for w and writes the event from the range as stored, or returns
	// false, writing nothing, when it was warned before. Returns
	// INVALID_REQUEST for an unknown warning, NOT_FOUND if the tenant has
	// no such range in its environment.
	WarnSequence(ctx context.Context, s *Sequence, w SequenceWarning, now time.Time) (bool, error)
}

// RegisterSequence checks and stores a DGII-authorized range of the tenant
// in env: the API and the operator CLI both register ranges through it. On
// top of Sequence.Validate it requires an expiry for the types that carry
// one, and refuses a range already expired at now or overlapping a
// registered one of the same type (VALIDATION_FAILED naming that range's
// id, from and to). Returns INVALID_REQUEST, VALIDATION_FAILED, or
// NOT_FOUND for an unknown tenant.
func RegisterSequence(ctx context.Context, st SequenceStore, tenantID string, env Environment, req SequenceRequest, now time.Time) (*Sequence, error) {
	t, err := ParseDocumentType(req.Type)
	if err != nil {
		return nil, err
	}
	s := &Sequence{TenantID: tenantID, Environment: env, Type: t, From: req.From, To: req.To}
	if req.ExpiresOn != nil {
		d, err := ParseDate(*req.ExpiresOn)
		if err != nil {
			return nil, err
		}
		s.ExpiresOn = &d
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.ExpiresOn == nil && t.HasSequenceExpiry() {
		return nil, Errorf(CodeInvalidRequest, "Type %s needs the expiry DGII gave the range (FechaVencimientoSecuencia, expiresOn): every type but 32 and 34 has one.", t)
	}
	if s.Expired(now) {
		var p Problems
		p.Addf("expiresOn", "expired on %s (in the Dominican Republic)", s.ExpiresOn)
		return nil, p.Errorf(CodeValidationFailed, "Range %d–%d of type %s expired on %s: no document can be numbered from it; ask DGII for a new authorization.", s.From, s.To, t, s.ExpiresOn)
	}
	overlap := func() error {
		seqs, err := st.FindSequences(ctx, tenantID, env)
		if err != nil {
			return err
		}
		for _, o := range seqs {
			if o.Type == t && o.From <= s.To && o.To >= s.From {
				var p Problems
				p.Addf("from", "overlaps range %s (%d–%d)", o.ID, o.From, o.To)
				return p.Errorf(CodeValidationFailed, "Range %d–%d overlaps the registered range %s (%d–%d) of type %s in %s.", s.From, s.To, o.ID, o.From, o.To, t, env)
			}
		}
		return nil
	}
	if err := overlap(); err != nil {
		return nil, err
	}
	if err := st.AddSequence(ctx, s); ErrorCodeOf(err) == CodeConflict {
		// A range registered since the check: name it as the check would.
		if oerr := overlap(); oerr != nil {
			return nil, oerr
		}
		return nil, err
	} else if err != nil {
		return nil, err
	}
	return s, nil
}

// SequenceState is a range's state in resources: active, expired or
// exhausted.
type SequenceState string

// The states of a range. Expired wins over exhausted.
const (
	SequenceActive    SequenceState = "active"
	SequenceExpired   SequenceState = "expired"
	SequenceExhausted SequenceState = "exhausted"
)

// State returns the range's state at now.
func (s *Sequence) State(now time.Time) SequenceState {
	switch {
	case s.Expired(now):
		return SequenceExpired
	case s.Remaining() == 0:
		return SequenceExhausted
	}
	return SequenceActive
}

// SequenceResource is a range as the API shows it.
type SequenceResource struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	From int64  `json:"from"`
	To   int64  `json:"to"`
	// Next is the next e-NCF Sello assigns from the range; nil once it is
	// used up.
	Next      *string       `json:"next"`
	Used      int64         `json:"used"`
	Left      int64         `json:"left"`
	ExpiresOn *Date         `json:"expiresOn"`
	State     SequenceState `json:"state"`
	CreatedAt string        `json:"createdAt"`
}

// Resource returns the range's resource at now.
func (s *Sequence) Resource(now time.Time) SequenceResource {
	r := SequenceResource{
		ID: s.ID, Type: s.Type.Code(), From: s.From, To: s.To,
		Used: min(s.Next, s.To+1) - s.From, Left: s.Remaining(),
		ExpiresOn: s.ExpiresOn, State: s.State(now), CreatedAt: FormatTime(s.CreatedAt),
	}
	if s.Remaining() > 0 {
		next := ENCF{Type: s.Type, Number: s.Next}.String()
		r.Next = &next
	}
	return r
}

// SequenceWarning is a threshold of a range that warns its tenant once:
// sequence.low or sequence.expiring.
type SequenceWarning string

// The warnings of a range.
const (
	SequenceWarningLow      SequenceWarning = "low"
	SequenceWarningExpiring SequenceWarning = "expiring"
)

// Check refuses a warning that is not one of the ranges' warnings. Returns
// INVALID_REQUEST.
func (w SequenceWarning) Check() error {
	switch w {
	case SequenceWarningLow, SequenceWarningExpiring:
		return nil
	}
	return Errorf(CodeInvalidRequest, "Unknown sequence warning %q.", w)
}

// SequenceThresholds says when a range warns. A range is low when its
// numbers left fall to LowPercent of its size or to LowCount, whichever
// comes first (the larger of the two); it is expiring ExpiryWarning before
// its expiry day. Zero fields take the defaults of
// DefaultSequenceThresholds.
type SequenceThresholds struct {
	LowPercent    int64
	LowCount      int64
	ExpiryWarning time.Duration
}

// DefaultSequenceThresholds warns at 10% or 100 numbers left and 30 days
// before expiry.
var DefaultSequenceThresholds = SequenceThresholds{LowPercent: 10, LowCount: 100, ExpiryWarning: 30 * 24 * time.Hour}

// WithDefaults returns th with its zero fields set from
// DefaultSequenceThresholds.
func (th SequenceThresholds) WithDefaults() SequenceThresholds {
	if th.LowPercent == 0 {
		th.LowPercent = DefaultSequenceThresholds.LowPercent
	}
	if th.LowCount == 0 {
		th.LowCount = DefaultSequenceThresholds.LowCount
	}
	if th.ExpiryWarning == 0 {
		th.ExpiryWarning = DefaultSequenceThresholds.ExpiryWarning
	}
	return th
}

// Warnings returns the warnings s is due at now under th (see
// SequenceThresholds). An expired or used-up range is due none: its state
// already says it, and documents are refused from it.
func (s *Sequence) Warnings(th SequenceThresholds, now time.Time) []SequenceWarning {
	th = th.WithDefaults()
	left := s.Remaining()
	if s.Expired(now) || left == 0 {
		return nil
	}
	var out []SequenceWarning
	size := s.To - s.From + 1
	if left*100 <= size*th.LowPercent || left <= th.LowCount {
		out = append(out, SequenceWarningLow)
	}
	if s.ExpiresOn != nil {
		// Day-wise in the Dominican Republic, as Expired counts.
		e := time.Date(s.ExpiresOn.Year, s.ExpiresOn.Month, s.ExpiresOn.Day, 0, 0, 0, 0, time.UTC)
		today := TodayInDR(now)
		t := time.Date(today.Year, today.Month, today.Day, 0, 0, 0, 0, time.UTC)
		if e.Sub(t) <= th.ExpiryWarning {
			out = append(out, SequenceWarningExpiring)
		}
	}
	return out
}

// NewSequenceEvent is the event of warning w of range s (as stored at now):
// sequence.low or sequence.expiring, with the range's id, type (E31), from,
// to, numbers left and expiry in its payload.
func NewSequenceEvent(s *Sequence, w SequenceWarning, now time.Time) *Event {
	var expires any
	if s.ExpiresOn != nil {
		expires = s.ExpiresOn.String()
	}
	ev := &Event{
		ID:          NewID(),
		Type:        EventSequenceLow,
		CreatedAt:   now,
		TenantID:    s.TenantID,
		Environment: s.Environment,
		Data: EventData{
			Severity: "warning",
			Message:  fmt.Sprintf("The e-NCF range %d–%d of type %s has %d numbers left.", s.From, s.To, s.Type.Code(), s.Remaining()),
			Payload: map[string]any{"sequenceId": s.ID, "type": s.Type.Code(), "from": s.From, "to": s.To,
				"left": s.Remaining(), "expiresOn": expires},
		},
	}
	if w == SequenceWarningExpiring {
		ev.Type = EventSequenceExpiring
		ev.Data.Message = fmt.Sprintf("The e-NCF range %d–%d of type %s expires on %s.", s.From, s.To, s.Type.Code(), s.ExpiresOn)
	}
	return ev
}
