package sello

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// A void (anulación, DGII's ANECF, FACTS §1.9) withdraws e-NCF numbers the
// tenant was authorized but will never use. Sello reserves the numbers when
// the void is created, in the transaction and under the lock numbering
// takes (see CreateVoid and nextNumber), so a number is never both voided
// and assigned; the worker then builds, signs and sends the ANECF and
// records DGII's answer. The numbers stay reserved whatever DGII answers
// (docs/decisions.md, issue 13, voids): numbering never assigns them.

// VoidState is where a void stands: pending until DGII answers, then
// accepted, partially_accepted (DGII voided some ranges and listed the
// others as used), rejected, or failed (Sello could not get an answer).
type VoidState string

// The states of a void.
const (
	VoidPending           VoidState = "pending"
	VoidAccepted          VoidState = "accepted"
	VoidPartiallyAccepted VoidState = "partially_accepted"
	VoidRejected          VoidState = "rejected"
	VoidFailed            VoidState = "failed"
)

// Final reports whether the state is an outcome: no run changes it again.
func (s VoidState) Final() bool { return s != VoidPending }

// Limits of one void, DGII's (FACTS §1.9): at most 10 types (one Anulacion
// line each) and 10,000 ranges per type.
const (
	MaxVoidTypes         = 10
	MaxVoidRangesPerType = 10_000
)

// VoidRange is a range of numbers of one type to void, From through To.
type VoidRange struct {
	Type DocumentType `json:"type"`
	From int64        `json:"from"`
	To   int64        `json:"to"`
}

// Count is how many numbers the range holds.
func (r VoidRange) Count() int64 { return r.To - r.From + 1 }

// String names the range by its e-NCFs: E310000000001–E310000000010.
func (r VoidRange) String() string {
	return ENCF{Type: r.Type, Number: r.From}.String() + "–" + ENCF{Type: r.Type, Number: r.To}.String()
}

// Void is a tenant's void of e-NCF ranges in one environment.
type Void struct {
	ID          string
	TenantID    string
	Environment Environment
	// Ranges are by type in DGII's order, then by start.
	Ranges []VoidRange
	State  VoidState
	// DGII is DGII's answer; nil until it answers.
	DGII *DGIIResult
	// FailureReason says why a failed void got no answer.
	FailureReason string
	// ANECF is the signed ANECF as sent; nil until the worker signs it.
	ANECF []byte
	// IdempotencyKey and RequestHash are the create's, when it had a key.
	IdempotencyKey string
	RequestHash    []byte
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Count is how many numbers the void holds.
func (v *Void) Count() int64 {
	var n int64
	for _, r := range v.Ranges {
		n += r.Count()
	}
	return n
}

// Job is the void's VoidJob.
func (v *Void) Job() VoidJob {
	return VoidJob{TenantID: v.TenantID, Environment: v.Environment, VoidID: v.ID}
}

// VoidRangeRequest is a range to void as the API and the CLI take it.
type VoidRangeRequest struct {
	// Type is the e-CF type, "31" or "E31".
	Type string `json:"type"`
	From int64  `json:"from"`
	To   int64  `json:"to"`
}

// VoidRequest is a void to create: POST /{env}/anulaciones's body and the
// CLI's voids add.
type VoidRequest struct {
	Ranges []VoidRangeRequest `json:"ranges"`
}

// VoidDraft is a void to create for a tenant in an environment, with the
// create's idempotency key and the hash of its request when it has one.
type VoidDraft struct {
	TenantID       string
	Environment    Environment
	Request        VoidRequest
	IdempotencyKey string
	RequestHash    []byte
}

// Check validates the request on its own: one to MaxVoidTypes types, at
// most MaxVoidRangesPerType ranges of a type, each range of a known type
// with 1 ≤ from ≤ to ≤ MaxSequenceNumber, and no two ranges sharing a
// number. It returns the ranges by type in DGII's order, then by start.
// Returns INVALID_REQUEST with a detail per problem at "ranges[i]…".
func (r VoidRequest) Check() ([]VoidRange, error) {
	var p Problems
	if len(r.Ranges) == 0 {
		p.Add("ranges", "Required: at least one range to void.")
	}
	type indexed struct {
		VoidRange
		i int
	}
	var ranges []indexed
	perType := map[DocumentType]int{}
	for i, rr := range r.Ranges {
		path := fmt.Sprintf("ranges[%d]", i)
		t, err := ParseDocumentType(rr.Type)
		switch {
		case err != nil:
			p.AddText(path+".type", ErrorText(err))
		case rr.From < 1 || rr.From > MaxSequenceNumber:
			p.Addf(path+".from", "Must be a sequential from 1 to %d.", int64(MaxSequenceNumber))
		case rr.To < rr.From || rr.To > MaxSequenceNumber:
			p.Addf(path+".to", "Must be from from (%d) to %d.", rr.From, int64(MaxSequenceNumber))
		default:
			ranges = append(ranges, indexed{VoidRange{Type: t, From: rr.From, To: rr.To}, i})
			perType[t]++
		}
	}
	if len(perType) > MaxVoidTypes {
		p.Addf("ranges", "At most %d types in one void (DGII's limit); these ranges have %d.", MaxVoidTypes, len(perType))
	}
	for _, t := range DocumentTypes {
		if perType[t] > MaxVoidRangesPerType {
			p.Addf("ranges", "At most %d ranges of one type in one void (DGII's limit); type %s has %d.", MaxVoidRangesPerType, t.Code(), perType[t])
		}
	}
	slices.SortStableFunc(ranges, func(a, b indexed) int { return compareVoidRanges(a.VoidRange, b.VoidRange) })
	out := make([]VoidRange, len(ranges))
	for k, rg := range ranges {
		out[k] = rg.VoidRange
		if k > 0 && ranges[k-1].Type == rg.Type && rg.From <= ranges[k-1].To {
			p.Addf(fmt.Sprintf("ranges[%d]", rg.i), "Overlaps ranges[%d] (%s): each number is voided once.", ranges[k-1].i, ranges[k-1].VoidRange)
		}
	}
	if p.Len() > 0 {
		return nil, p.Errorf(CodeInvalidRequest, "The void is not valid: %d problem(s).", p.Len())
	}
	return out, nil
}

// VoidedRange is a range a void reserves, with that void's id and state.
type VoidedRange struct {
	VoidRange
	VoidID string
	State  VoidState
}

// VoidLookup finds the void that reserves a number: what numbering asks
// before it assigns one.
type VoidLookup interface {
	// VoidOf returns the id of a void of the tenant in env whose range of
	// type t holds number n, whatever the void's state, and the end of
	// that range; "" when no void holds n.
	VoidOf(ctx context.Context, tenantID string, env Environment, t DocumentType, n int64) (voidID string, through int64, err error)
}

// VoidTx is what CreateVoid asks of the transaction that creates a void:
// the statements, no rules. Every method runs in that one transaction.
type VoidTx interface {
	VoidLookup
	// FindVoidByKey returns the tenant's void in env created with that
	// idempotency key, or nil.
	FindVoidByKey(ctx context.Context, tenantID string, env Environment, key string) (*Void, error)
	// Sequences is DocumentTx.Sequences: the tenant's ranges of t in env,
	// lowest first, locked as numbering locks them.
	Sequences(ctx context.Context, tenantID string, env Environment, t DocumentType) ([]*Sequence, error)
	// SetSequenceNext stores seq.Next.
	SetSequenceNext(ctx context.Context, seq *Sequence) error
	// DocumentsInRange returns up to limit of the tenant's documents in
	// env whose e-NCF is of type t with a number from through to, by
	// e-NCF, without their Payload.
	DocumentsInRange(ctx context.Context, tenantID string, env Environment, t DocumentType, from, to int64, limit int) ([]*Document, error)
	// VoidedRanges returns the ranges of the tenant's voids in env of type
	// t that share a number with from–to, by start.
	VoidedRanges(ctx context.Context, tenantID string, env Environment, t DocumentType, from, to int64) ([]VoidedRange, error)
	// InsertVoid writes v and its ranges. Returns NOT_FOUND (no such
	// tenant) or CONFLICT (its idempotency key is taken).
	InsertVoid(ctx context.Context, v *Void) error
	// InsertJobs queues jobs.
	InsertJobs(ctx context.Context, jobs []Job) error
}

// maxNamed is how many used or voided numbers a refusal names.
const maxNamed = 20

// CreateVoid creates the void d asks for in one transaction of st: the API
// and the operator CLI both void through it. On top of VoidRequest.Check,
// under the lock numbering takes on the ranges of each type, it refuses
// (VALIDATION_FAILED, naming them) numbers that lie in none of the
// tenant's registered ranges in the environment, numbers Sello assigned to
// a document (pointing to a credit note, E34, for documents that went to
// DGII), and numbers a void not rejected already holds. Then it writes the
// void, pending, with its VoidJob, and moves each range's next number past
// the numbers voided. With an idempotency key used before by the same
// request it returns that void and replayed = true. Returns
// INVALID_REQUEST, VALIDATION_FAILED, IDEMPOTENCY_KEY_REUSED or NOT_FOUND
// (no such tenant).
func CreateVoid(ctx context.Context, st VoidStore, d VoidDraft) (v *Void, replayed bool, err error) {
	if d.TenantID == "" {
		return nil, false, Errorf(CodeInvalidRequest, "Tenant required.")
	} else if _, err := ParseEnvironment(string(d.Environment)); err != nil {
		return nil, false, err
	}
	ranges, err := d.Request.Check()
	if err != nil {
		return nil, false, err
	}
	err = st.InVoidTx(ctx, func(tx VoidTx, now time.Time) error {
		v, replayed = nil, false
		now = *StoredTime(&now)
		// The types' ranges are locked first, in DGII's type order, so that
		// a concurrent create with the same key waits and then sees it.
		seqs := map[DocumentType][]*Sequence{}
		for _, r := range ranges {
			if _, ok := seqs[r.Type]; ok {
				continue
			}
			s, err := tx.Sequences(ctx, d.TenantID, d.Environment, r.Type)
			if err != nil {
				return err
			}
			seqs[r.Type] = s
		}
		if d.IdempotencyKey != "" {
			prev, err := tx.FindVoidByKey(ctx, d.TenantID, d.Environment, d.IdempotencyKey)
			if err != nil {
				return err
			} else if prev != nil {
				if !bytes.Equal(prev.RequestHash, d.RequestHash) {
					return Errorf(CodeIdempotencyKeyReused, "Idempotency-Key %q was already used with a different request.", d.IdempotencyKey)
				}
				v, replayed = prev, true
				return nil
			}
		}
		if err := checkVoidRanges(ctx, tx, d, ranges, seqs); err != nil {
			return err
		}
		v = &Void{ID: NewID(), TenantID: d.TenantID, Environment: d.Environment, Ranges: ranges, State: VoidPending,
			IdempotencyKey: d.IdempotencyKey, RequestHash: d.RequestHash, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertVoid(ctx, v); err != nil {
			return err
		}
		for _, ss := range seqs {
			for _, s := range ss {
				if moved, err := skipVoided(ctx, tx, s); err != nil {
					return err
				} else if moved {
					if err := tx.SetSequenceNext(ctx, s); err != nil {
						return err
					}
				}
			}
		}
		return tx.InsertJobs(ctx, []Job{v.Job()})
	})
	if err != nil {
		return nil, false, err
	}
	return v, replayed, nil
}

// index returns the position in r of the range Check turned into vr: the
// detail paths point into the request as the caller wrote it.
func (r VoidRequest) index(vr VoidRange) int {
	for i, rr := range r.Ranges {
		if t, err := ParseDocumentType(rr.Type); err == nil && t == vr.Type && rr.From == vr.From && rr.To == vr.To {
			return i
		}
	}
	return -1
}

// checkVoidRanges refuses numbers outside the registered ranges, used by
// documents, or held by a void not rejected. Returns VALIDATION_FAILED.
func checkVoidRanges(ctx context.Context, tx VoidTx, d VoidDraft, ranges []VoidRange, seqs map[DocumentType][]*Sequence) error {
	var outside, used, voided Problems
	sent := false
	for _, r := range ranges {
		path := fmt.Sprintf("ranges[%d]", d.Request.index(r))
		if gap, ok := uncovered(r, seqs[r.Type]); ok {
			outside.Addf(path, "%s lies in no registered range of type %s in %s.", gap, r.Type.Code(), d.Environment)
			continue
		}
		docs, err := tx.DocumentsInRange(ctx, d.TenantID, d.Environment, r.Type, r.From, r.To, maxNamed)
		if err != nil {
			return err
		}
		for _, doc := range docs {
			if doc.WentToDGII() {
				sent = true
				used.Addf(path, "%s is used by document %s (%s), which went to DGII: cancel it with a credit note (type 34, E34).", doc.ENCF, doc.ID, doc.Status)
			} else {
				used.Addf(path, "%s is used by document %s (%s): Sello sends it to DGII; once accepted, cancel it with a credit note (type 34, E34).", doc.ENCF, doc.ID, doc.Status)
			}
		}
		held, err := tx.VoidedRanges(ctx, d.TenantID, d.Environment, r.Type, r.From, r.To)
		if err != nil {
			return err
		}
		for _, h := range held {
			if h.State == VoidRejected || h.State == VoidFailed {
				continue // DGII voided nothing, or never answered: the tenant may send it again
			}
			voided.Addf(path, "%s is already voided by void %s (%s).", VoidRange{Type: r.Type, From: max(r.From, h.From), To: min(r.To, h.To)}, h.VoidID, h.State)
		}
	}
	switch {
	case outside.Len() > 0:
		return outside.Errorf(CodeValidationFailed, "Only numbers of the tenant's registered ranges can be voided: register the range DGII authorized first, with %s.", registerWith(d.Environment))
	case used.Len() > 0 && sent:
		return used.Errorf(CodeValidationFailed, "Numbers Sello assigned to documents cannot be voided (DGII voids only unused numbers). A document that went to DGII or to the buyer is cancelled with a credit note (type 34, E34) that references it.")
	case used.Len() > 0:
		return used.Errorf(CodeValidationFailed, "Numbers Sello assigned to documents cannot be voided (DGII voids only unused numbers). Once DGII accepts the document, cancel it with a credit note (type 34, E34) that references it.")
	case voided.Len() > 0:
		return voided.Errorf(CodeValidationFailed, "Numbers already voided (by a void DGII did not reject) cannot be voided again.")
	}
	return nil
}

// uncovered returns the first part of r that no range of seqs (lowest
// first) covers.
func uncovered(r VoidRange, seqs []*Sequence) (VoidRange, bool) {
	n := r.From
	for _, s := range seqs {
		if s.To < n {
			continue
		}
		if s.From > n {
			return VoidRange{Type: r.Type, From: n, To: min(r.To, s.From-1)}, true
		}
		n = s.To + 1
		if n > r.To {
			return VoidRange{}, false
		}
	}
	return VoidRange{Type: r.Type, From: n, To: r.To}, true
}

// skipVoided moves seq.Next past the numbers voids hold (never beyond
// To+1) and reports whether it moved.
func skipVoided(ctx context.Context, tx VoidLookup, seq *Sequence) (bool, error) {
	moved := false
	for seq.Next <= seq.To {
		id, through, err := tx.VoidOf(ctx, seq.TenantID, seq.Environment, seq.Type, seq.Next)
		if err != nil {
			return false, err
		} else if id == "" {
			break
		}
		seq.Next, moved = min(through, seq.To)+1, true
	}
	return moved, nil
}

// WentToDGII reports whether the document reached DGII (or the buyer): it
// has a verdict or is waiting for one.
func (d *Document) WentToDGII() bool {
	switch d.Status {
	case StatusSubmitted, StatusAccepted, StatusAcceptedConditional, StatusRejected:
		return true
	}
	return d.Delivery.Status == DeliveryDelivered
}

// VoidOutcome is what a run of a VoidJob learnt: the signed ANECF it built,
// and DGII's answer or the failure that ends the void.
type VoidOutcome struct {
	ANECF         []byte
	State         VoidState // "" while the void stays pending
	DGII          *DGIIResult
	FailureReason string
}

// Apply records out on v at now and returns the event to write when v
// reaches its outcome (void.updated), else nil. Returns CONFLICT when v has
// its outcome already, INVALID_REQUEST for a state that is not an outcome.
func (v *Void) Apply(out VoidOutcome, now time.Time) (*Event, error) {
	if v.State.Final() {
		return nil, Errorf(CodeConflict, "Void %s is %s already.", v.ID, v.State)
	}
	if out.ANECF != nil && v.ANECF == nil {
		v.ANECF = out.ANECF
		v.UpdatedAt = now
	}
	if out.State == "" {
		return nil, nil
	}
	switch out.State {
	case VoidAccepted, VoidPartiallyAccepted, VoidRejected, VoidFailed:
	default:
		return nil, Errorf(CodeInvalidRequest, "Void outcome %q is not a final state.", out.State)
	}
	v.State, v.DGII, v.FailureReason, v.UpdatedAt = out.State, out.DGII, out.FailureReason, now
	return NewVoidEvent(v, now), nil
}

// NewVoidEvent is the void.updated event of v as it is at now: its id,
// state, count, ranges and DGII's answer in the payload.
func NewVoidEvent(v *Void, now time.Time) *Event {
	severity, msg := "info", fmt.Sprintf("DGII accepted the void of %d e-NCF numbers.", v.Count())
	switch v.State {
	case VoidPartiallyAccepted:
		severity, msg = "warning", fmt.Sprintf("DGII voided part of the %d e-NCF numbers: read its messages.", v.Count())
	case VoidRejected:
		severity, msg = "error", fmt.Sprintf("DGII rejected the void of %d e-NCF numbers: read its messages.", v.Count())
	case VoidFailed:
		severity, msg = "error", "The void could not be sent to DGII: "+v.FailureReason
	}
	r := v.Resource()
	return &Event{
		ID: NewID(), Type: EventVoidUpdated, CreatedAt: now, TenantID: v.TenantID, Environment: v.Environment,
		Data: EventData{Severity: severity, Message: msg, Payload: map[string]any{
			"voidId": v.ID, "state": v.State, "count": v.Count(), "ranges": r.Ranges, "dgii": r.DGII}},
	}
}

// VoidRangeResource is a range of a void as the API shows it.
type VoidRangeResource struct {
	Type  string `json:"type"`
	From  int64  `json:"from"`
	To    int64  `json:"to"`
	Count int64  `json:"count"`
}

// VoidResource is a void as the API shows it.
type VoidResource struct {
	ID            string              `json:"id"`
	State         VoidState           `json:"state"`
	Ranges        []VoidRangeResource `json:"ranges"`
	Count         int64               `json:"count"`
	DGII          *DGIIResult         `json:"dgii"`
	FailureReason *string             `json:"failureReason"`
	CreatedAt     string              `json:"createdAt"`
	UpdatedAt     string              `json:"updatedAt"`
}

// Resource returns the void's resource.
func (v *Void) Resource() VoidResource {
	r := VoidResource{ID: v.ID, State: v.State, Ranges: make([]VoidRangeResource, len(v.Ranges)), Count: v.Count(),
		DGII: v.DGII, CreatedAt: FormatTime(v.CreatedAt), UpdatedAt: FormatTime(v.UpdatedAt)}
	for i, rg := range v.Ranges {
		r.Ranges[i] = VoidRangeResource{Type: rg.Type.Code(), From: rg.From, To: rg.To, Count: rg.Count()}
	}
	if v.FailureReason != "" {
		r.FailureReason = &v.FailureReason
	}
	return r
}

// VoidFilter selects a page of voids: newest first, after Cursor (the
// NextCursor of the previous page, "" for the first), Limit of them (1 to
// MaxPageSize).
type VoidFilter struct {
	Cursor string
	Limit  int
}

// PageLimit returns the page size of limit: DefaultPageSize for 0 or
// less, at most MaxPageSize.
func (f VoidFilter) PageLimit() int {
	if f.Limit <= 0 {
		return DefaultPageSize
	}
	return min(f.Limit, MaxPageSize)
}

// SortVoidRanges sorts ranges by type in DGII's order, then by start: the
// order of a void's ranges.
func SortVoidRanges(rs []VoidRange) {
	slices.SortFunc(rs, compareVoidRanges)
}

func compareVoidRanges(a, b VoidRange) int {
	return cmp.Or(cmp.Compare(slices.Index(DocumentTypes, a.Type), slices.Index(DocumentTypes, b.Type)), cmp.Compare(a.From, b.From))
}

// VoidStore keeps voids.
type VoidStore interface {
	// InVoidTx runs fn in one of the store's write transactions, with the
	// time read in it; CreateVoid runs in it.
	InVoidTx(ctx context.Context, fn func(tx VoidTx, now time.Time) error) error
	// FindVoid returns the tenant's void in env. Returns NOT_FOUND.
	FindVoid(ctx context.Context, tenantID string, env Environment, id string) (*Void, error)
	// ListVoids returns a page of the tenant's voids in env, newest first,
	// without their ANECF, and the cursor of the next page ("" on the
	// last). Returns INVALID_REQUEST for an unknown cursor.
	ListVoids(ctx context.Context, tenantID string, env Environment, f VoidFilter) ([]*Void, string, error)
	// RecordVoidOutcome applies out to the void (Void.Apply) and writes
	// its event, in one transaction. Returns NOT_FOUND or CONFLICT (the
	// void has its outcome already).
	RecordVoidOutcome(ctx context.Context, tenantID string, env Environment, id string, out VoidOutcome) (*Void, error)
}

// VoidJob sends a void to DGII (the worker package works it). CreateVoid
// inserts it in the transaction that creates the void.
type VoidJob struct {
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	VoidID      string      `json:"voidId"`
}

// Kind implements Job (River's JobArgs).
func (VoidJob) Kind() string { return "sello.void" }

// VoidJobMaxAttempts bounds a void's failed runs, as an approval's: DGII
// unreachable for days does not lose the void.
const VoidJobMaxAttempts = ApprovalJobMaxAttempts

// MaxAttempts implements JobMaxAttempts.
func (VoidJob) MaxAttempts() int { return VoidJobMaxAttempts }

// VoidNotFound is the NOT_FOUND error of an unknown void.
func VoidNotFound(id string) error { return Errorf(CodeNotFound, "Void %q not found.", id) }
