package sello

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// IdempotencyWindow is how long an idempotency key is remembered.
const IdempotencyWindow = 24 * time.Hour

// DocumentTx is what CreateDocument asks of the transaction that creates a
// document: the statements, no rules. Each store implements it over its own
// transaction; every method runs in that one transaction.
type DocumentTx interface {
	// VoidOf finds the void that reserves a number: numbering skips it.
	VoidLookup
	// ClaimIdempotencyKey claims d's key for the transaction: it inserts
	// the key with d.RequestHash at now, or takes over one created at or
	// before expired. While another transaction holds the key it waits for
	// it to commit or roll back. When a live key is kept, claimed is false
	// and held is what it holds.
	ClaimIdempotencyKey(ctx context.Context, d DocumentDraft, now, expired time.Time) (claimed bool, held IdempotencyRecord, err error)
	// Sequences returns the tenant's ranges of a type in env, lowest
	// first, locked until the transaction ends where concurrent
	// transactions could otherwise take the same number.
	Sequences(ctx context.Context, tenantID string, env Environment, t DocumentType) ([]*Sequence, error)
	// DocumentIDByENCF returns the id of the tenant's document in env with
	// that e-NCF, or "".
	DocumentIDByENCF(ctx context.Context, tenantID string, env Environment, encf string) (string, error)
	// SetSequenceNext stores seq.Next.
	SetSequenceNext(ctx context.Context, seq *Sequence) error
	// InsertDocument writes doc and its first status-history row. Returns
	// NOT_FOUND (no such tenant) or CONFLICT (its e-NCF is used).
	InsertDocument(ctx context.Context, doc *Document) error
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
	// SaveIdempotencySnapshot keeps, with d's key, doc as a replay returns
	// it (snapshot, its JSON without the payload, read from doc's row).
	SaveIdempotencySnapshot(ctx context.Context, d DocumentDraft, doc *Document, snapshot []byte) error
	// InsertJobs queues jobs.
	InsertJobs(ctx context.Context, jobs []Job) error
}

// IdempotencyRecord is what a live idempotency key holds: the hash of the
// request it was first used with and, once that request's document was
// written, the document's snapshot and payload.
type IdempotencyRecord struct {
	RequestHash []byte
	Snapshot    []byte // nil while the document is not written
	Payload     []byte
}

// CreateDocument creates the document d asks for, in the one transaction
// inTx runs (the store's; now is the time read in it): it claims the
// idempotency key, takes the e-NCF (d.ENCF, or the next unused number of
// the oldest usable range of d.Type), calls d.Prepare and writes the
// document, its first status, its ecf.queued event, the idempotency
// snapshot and its DocumentJob. Stores implement
// DocumentStore.CreateDocument with it. Returns INVALID_REQUEST,
// IDEMPOTENCY_KEY_REUSED, SEQUENCE_EXHAUSTED, VALIDATION_FAILED, CONFLICT,
// NOT_FOUND (no such tenant) or Prepare's error.
func CreateDocument(ctx context.Context, d DocumentDraft, inTx func(fn func(tx DocumentTx, now time.Time) error) error) (doc *Document, replayed bool, err error) {
	explicit, err := d.Check()
	if err != nil {
		return nil, false, err
	}
	err = inTx(func(tx DocumentTx, now time.Time) error {
		doc, replayed = nil, false
		if d.IdempotencyKey != "" {
			prev, err := claimIdempotencyKey(ctx, tx, d, now)
			if err != nil || prev != nil {
				doc, replayed = prev, true
				return err
			}
		}
		var n ENCF
		var seq *Sequence
		var err error
		if explicit != nil {
			n = *explicit
			seq, err = takeNumber(ctx, tx, d, n, now)
		} else {
			n, seq, err = nextNumber(ctx, tx, d, now)
		}
		if err != nil {
			return err
		}
		if doc, err = d.Build(n, seq, now); err != nil {
			return err
		}
		if err := tx.InsertDocument(ctx, doc); err != nil {
			return err
		}
		ev := NewDocumentEvent(EventECFQueued, doc, "info", "e-CF "+doc.ENCF+" queued for signing.", doc.CreatedAt)
		if err := tx.InsertEvent(ctx, ev); err != nil {
			return err
		}
		if d.IdempotencyKey != "" {
			snapshot, err := json.Marshal(doc)
			if err != nil {
				return fmt.Errorf("encode idempotency snapshot: %w", err)
			}
			if err := tx.SaveIdempotencySnapshot(ctx, d, doc, snapshot); err != nil {
				return err
			}
		}
		return tx.InsertJobs(ctx, []Job{NewDocumentJob(doc)})
	})
	if err != nil {
		return nil, false, err
	}
	return doc, replayed, nil
}

// claimIdempotencyKey claims d's key, taking over a key older than
// IdempotencyWindow. If the key is live it returns the document it created
// (a replay) or IDEMPOTENCY_KEY_REUSED.
func claimIdempotencyKey(ctx context.Context, tx DocumentTx, d DocumentDraft, now time.Time) (*Document, error) {
	claimed, held, err := tx.ClaimIdempotencyKey(ctx, d, now, now.Add(-IdempotencyWindow))
	if err != nil || claimed {
		return nil, err
	}
	if !bytes.Equal(held.RequestHash, d.RequestHash) {
		return nil, Errorf(CodeIdempotencyKeyReused, "Idempotency-Key %q was already used with a different request.", d.IdempotencyKey)
	} else if held.Snapshot == nil {
		return nil, fmt.Errorf("idempotency key %q has no snapshot", d.IdempotencyKey)
	}
	var doc Document
	if err := json.Unmarshal(held.Snapshot, &doc); err != nil {
		return nil, fmt.Errorf("decode idempotency snapshot: %w", err)
	}
	if held.Payload != nil {
		doc.Payload = json.RawMessage(held.Payload)
	}
	return &doc, nil
}

// nextNumber takes the next unused number of the oldest usable range of
// d.Type, skipping numbers already taken explicitly. Returns
// SEQUENCE_EXHAUSTED.
func nextNumber(ctx context.Context, tx DocumentTx, d DocumentDraft, now time.Time) (ENCF, *Sequence, error) {
	seqs, err := tx.Sequences(ctx, d.TenantID, d.Environment, d.Type)
	if err != nil {
		return ENCF{}, nil, err
	}
	before := make([]int64, len(seqs))
	for i, s := range seqs {
		before[i] = s.Next
	}
	for {
		seq, err := NextSequence(seqs, d.Environment, d.Type, now)
		if err != nil {
			return ENCF{}, nil, err
		}
		if _, err := skipVoided(ctx, tx, seq); err != nil {
			return ENCF{}, nil, err
		} else if seq.Remaining() == 0 {
			continue // the rest of the range is voided
		}
		n := ENCF{Type: d.Type, Number: seq.Next}
		seq.Next++
		if id, err := tx.DocumentIDByENCF(ctx, d.TenantID, d.Environment, n.String()); err != nil {
			return ENCF{}, nil, err
		} else if id != "" {
			continue // taken explicitly
		}
		for i, s := range seqs {
			if s.Next == before[i] {
				continue
			}
			if err := tx.SetSequenceNext(ctx, s); err != nil {
				return ENCF{}, nil, err
			}
		}
		return n, seq, nil
	}
}

// takeNumber checks an explicit e-NCF: unused, inside an unexpired range.
// Returns CONFLICT naming the document that has it, or VALIDATION_FAILED.
func takeNumber(ctx context.Context, tx DocumentTx, d DocumentDraft, n ENCF, now time.Time) (*Sequence, error) {
	seqs, err := tx.Sequences(ctx, d.TenantID, d.Environment, d.Type)
	if err != nil {
		return nil, err
	}
	// Checked after the ranges are locked, so that a concurrent create of
	// the same number has committed and is seen.
	if id, err := tx.DocumentIDByENCF(ctx, d.TenantID, d.Environment, n.String()); err != nil {
		return nil, err
	} else if id != "" {
		return nil, Errorf(CodeConflict, "e-NCF %s is already used by document %s.", n, id)
	}
	seq, err := SequenceOf(seqs, d.Environment, n, now)
	if err != nil {
		return nil, err
	}
	if id, _, err := tx.VoidOf(ctx, d.TenantID, d.Environment, n.Type, n.Number); err != nil {
		return nil, err
	} else if id != "" {
		return nil, ValidationErrorf(ENCFPath, "e-NCF %s is voided (void %s): a voided number is never used", n, id)
	}
	if seq.Next == n.Number {
		seq.Next++
		if err := tx.SetSequenceNext(ctx, seq); err != nil {
			return nil, err
		}
	}
	return seq, nil
}

// DocumentDraft is a document not created yet: what a client asked for,
// before the store takes its e-NCF. DocumentStore.CreateDocument turns it
// into a Document.
type DocumentDraft struct {
	TenantID    string
	Environment Environment
	Type        DocumentType
	// ENCF is the e-NCF the client chose, or "" to take the next number of
	// the tenant's sequence for Type.
	ENCF string
	// IdempotencyKey, when set, makes the create idempotent: RequestHash
	// identifies the request it was first used with.
	IdempotencyKey string
	RequestHash    []byte
	// Prepare completes the document once its e-NCF is known. The store
	// calls it inside the creating transaction, with the sequence the number
	// belongs to; it must do no I/O. An error from it aborts the create.
	Prepare func(encf ENCF, seq *Sequence) (*PreparedDocument, error)
}

// PreparedDocument is the content of a document about to be stored.
type PreparedDocument struct {
	Payload json.RawMessage
	Total   string
	// ITBIS is TotalITBIS with two decimals, "" when the e-CF has none.
	ITBIS     string
	BuyerRNC  string
	IssueDate Date
}

// Check validates nd before a store opens its transaction, and returns the
// explicit e-NCF it names (nil when the store must assign one). Returns
// INVALID_REQUEST or VALIDATION_FAILED at the e-NCF's path.
func (nd DocumentDraft) Check() (*ENCF, error) {
	if nd.TenantID == "" {
		return nil, Errorf(CodeInvalidRequest, "Tenant required.")
	} else if _, err := ParseEnvironment(string(nd.Environment)); err != nil {
		return nil, err
	} else if _, err := ParseDocumentType(string(nd.Type)); err != nil {
		return nil, err
	} else if nd.Prepare == nil {
		return nil, errors.New("create document: no Prepare function")
	} else if len(nd.IdempotencyKey) > 255 {
		return nil, Errorf(CodeInvalidRequest, "Idempotency-Key must be at most 255 characters.")
	}
	if nd.ENCF == "" {
		return nil, nil
	}
	e, err := ParseENCF(nd.ENCF)
	if err != nil {
		var p Problems
		p.AddText(ENCFPath, ErrorText(err))
		return nil, p.error()
	} else if e.Type != nd.Type {
		return nil, ValidationErrorf(ENCFPath, "e-NCF %s is of type %s, not %s.", nd.ENCF, e.Type, nd.Type)
	}
	return &e, nil
}

// Build calls nd.Prepare for number n of seq and returns the document to
// store: queued for signing, with delivery not_sent for the types that
// travel to an electronic buyer (not_applicable for the others) and no
// commercial approval. Returns Prepare's error.
func (nd DocumentDraft) Build(n ENCF, seq *Sequence, now time.Time) (*Document, error) {
	p, err := nd.Prepare(n, seq)
	if err != nil {
		return nil, err
	} else if !json.Valid(p.Payload) {
		return nil, errors.New("create document: Prepare returned a payload that is not JSON")
	}
	doc := &Document{
		ID:          NewDocumentID(),
		TenantID:    nd.TenantID,
		Environment: nd.Environment,
		Type:        nd.Type,
		ENCF:        n.String(),
		Status:      StatusQueuedForSigning,
		Total:       p.Total,
		ITBIS:       cmp.Or(p.ITBIS, "0.00"),
		BuyerRNC:    p.BuyerRNC,
		IssueDate:   p.IssueDate,
		Delivery:    Delivery{Status: DeliveryNotApplicable},
		CreatedAt:   now,
		UpdatedAt:   now,
		Payload:     p.Payload,
	}
	if nd.Type.B2B() {
		doc.Delivery.Status = DeliveryNotSent
	}
	return doc, nil
}
