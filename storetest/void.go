package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
)

// voidOf is a request voiding from–to of typ.
func voidOf(tenantID string, e sello.Environment, typ sello.DocumentType, from, to int64) sello.VoidDraft {
	return sello.VoidDraft{TenantID: tenantID, Environment: e,
		Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: string(typ), From: from, To: to}}}}
}

// MustCreateVoid creates a void and fails the test on error.
func MustCreateVoid(tb testing.TB, s sello.Store, d sello.VoidDraft) *sello.Void {
	tb.Helper()
	v, replayed, err := sello.CreateVoid(tb.Context(), s, d)
	if err != nil {
		tb.Fatalf("CreateVoid %+v: %v", d.Request, err)
	} else if replayed {
		tb.Fatalf("CreateVoid %+v: replayed, want a new void", d.Request)
	}
	return v
}

func testVoids(t *testing.T, open Open) {
	const e31 = sello.TypeCreditoFiscal
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		for range 3 {
			MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31))
		}
		start := e.clock.Peek()
		v := MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 4, 13))
		if v.ID == "" || v.State != sello.VoidPending || v.Count() != 10 || !v.CreatedAt.Equal(start) || v.DGII != nil {
			t.Errorf("void: got %+v, want pending, 10 numbers, created at %v", v, start)
		}
		got, err := e.s.FindVoid(ctx, tn.ID, sello.EnvTest, v.ID)
		if err != nil {
			t.Fatalf("FindVoid: %v", err)
		}
		deepEqual(t, "FindVoid", got, v)
		// Numbering moved past the void: the next document is 14.
		if next := mustSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1).Next; next != 14 {
			t.Errorf("sequence Next: got %d, want 14", next)
		}
		if d := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31)); d.ENCF != encf(e31, 14) {
			t.Errorf("next document: got %s, want %s", d.ENCF, encf(e31, 14))
		}
		jobs := mustJobsOf(t, newRunner(t, e.s, nil), sello.VoidJob{}.Kind())
		if len(jobs) != 1 || jobs[0].MaxAttempts != sello.VoidJobMaxAttempts {
			t.Fatalf("void jobs: got %+v, want one with %d attempts", jobs, sello.VoidJobMaxAttempts)
		}
	})
	t.Run("SkipsVoidAhead", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 10)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 11, 20)
		// Ahead of the next number, and across two ranges: 3–4 and 9–12.
		MustCreateVoid(t, e.s, sello.VoidDraft{TenantID: tn.ID, Environment: sello.EnvTest, Request: sello.VoidRequest{
			Ranges: []sello.VoidRangeRequest{{Type: "E31", From: 9, To: 12}, {Type: "31", From: 3, To: 4}}}})
		var got []string
		for range 8 {
			got = append(got, MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31)).ENCF)
		}
		want := []string{encf(e31, 1), encf(e31, 2), encf(e31, 5), encf(e31, 6), encf(e31, 7), encf(e31, 8), encf(e31, 13), encf(e31, 14)}
		deepEqual(t, "numbers", got, want)
		// An explicit voided number is refused.
		nd := newDoc(tn.ID, sello.EnvTest, e31)
		nd.ENCF = encf(e31, 10)
		_, _, err := e.s.CreateDocument(t.Context(), nd)
		wantError(t, err, sello.CodeValidationFailed)
		wantDetail(t, err, sello.ENCFPath, "is voided")
	})
	t.Run("VoidToTheEnd", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 5)
		MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31))
		MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 2, 5))
		_, _, err := e.s.CreateDocument(t.Context(), newDoc(tn.ID, sello.EnvTest, e31))
		wantError(t, err, sello.CodeSequenceExhausted)
		if s := mustSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1); s.Remaining() != 0 {
			t.Errorf("left: got %d, want 0", s.Remaining())
		}
	})
	t.Run("ErrUsed", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		d := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31))
		MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31))
		_, _, err := sello.CreateVoid(t.Context(), e.s, voidOf(tn.ID, sello.EnvTest, e31, 1, 10))
		wantError(t, err, sello.CodeValidationFailed, "credit note (type 34, E34)")
		wantDetail(t, err, "ranges[0]", encf(e31, 1)+" is used by document "+d.ID)
		if n := len(errorDetails(t, err)); n != 2 {
			t.Errorf("details: got %d, want one per used number (2)", n)
		}
		// The path is the request's own index, whatever order Check sorts
		// the ranges in.
		two := voidOf(tn.ID, sello.EnvTest, e31, 50, 60)
		two.Request.Ranges = append(two.Request.Ranges, sello.VoidRangeRequest{Type: "E31", From: 1, To: 10})
		_, _, err = sello.CreateVoid(t.Context(), e.s, two)
		wantDetail(t, err, "ranges[1]", encf(e31, 1)+" is used by document "+d.ID)
		// Nothing was reserved.
		MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 3, 10))
	})
	t.Run("ErrOutsideRanges", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 201, 300)
		for _, r := range [][3]int64{{95, 105, 101}, {150, 160, 150}, {90, 250, 101}} {
			_, _, err := sello.CreateVoid(t.Context(), e.s, voidOf(tn.ID, sello.EnvTest, e31, r[0], r[1]))
			wantError(t, err, sello.CodeValidationFailed, "registered ranges")
			if ds := errorDetails(t, err); len(ds) != 1 || !strings.Contains(ds[0].Message, encf(e31, r[2])+"–") {
				t.Errorf("void %d–%d: details %+v, want the gap from %s", r[0], r[1], ds, encf(e31, r[2]))
			}
		}
		// Another type's ranges do not count; another environment's neither.
		MustAddSequence(t, e.s, tn.ID, sello.EnvCert, sello.TypeConsumo, 1, 100)
		_, _, err := sello.CreateVoid(t.Context(), e.s, voidOf(tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 5))
		wantError(t, err, sello.CodeValidationFailed, "registered ranges")
		// Adjacent ranges cover a void across them.
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 101, 200)
		MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 95, 205))
	})
	t.Run("ErrVoided", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		v := MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 10, 20))
		_, _, err := sello.CreateVoid(t.Context(), e.s, voidOf(tn.ID, sello.EnvTest, e31, 15, 30))
		wantError(t, err, sello.CodeValidationFailed, "already voided")
		wantDetail(t, err, "ranges[0]", "E310000000015–E310000000020 is already voided by void "+v.ID)
		// Once DGII rejected it, the numbers can be voided again; they stay
		// out of numbering meanwhile.
		if _, err := e.s.RecordVoidOutcome(t.Context(), tn.ID, sello.EnvTest, v.ID, sello.VoidOutcome{State: sello.VoidRejected,
			DGII: sello.NewDGIITextResult("3", "Anulación rechazada", []string{"El campo NoLinea no es válido, no cumple orden secuencial."})}); err != nil {
			t.Fatalf("RecordVoidOutcome: %v", err)
		}
		MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 15, 30))
		for range 9 {
			MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31))
		}
		if d := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, e31)); d.ENCF != encf(e31, 31) {
			t.Errorf("10th document: got %s, want %s (10–30 voided)", d.ENCF, encf(e31, 31))
		}
		// A failed void (DGII never answered) holds its numbers too, and
		// they may be voided again; an accepted one's may not.
		f := MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 40, 45))
		if _, err := e.s.RecordVoidOutcome(t.Context(), tn.ID, sello.EnvTest, f.ID, sello.VoidOutcome{State: sello.VoidFailed, FailureReason: "dgii: HTTP 503"}); err != nil {
			t.Fatalf("RecordVoidOutcome: %v", err)
		}
		again := MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 40, 45))
		if _, err := e.s.RecordVoidOutcome(t.Context(), tn.ID, sello.EnvTest, again.ID, sello.VoidOutcome{State: sello.VoidAccepted,
			DGII: sello.NewDGIITextResult("1", "Anulación procesada", []string{})}); err != nil {
			t.Fatalf("RecordVoidOutcome: %v", err)
		}
		_, _, err = sello.CreateVoid(t.Context(), e.s, voidOf(tn.ID, sello.EnvTest, e31, 44, 46))
		wantDetail(t, err, "ranges[0]", "E310000000044–E310000000045 is already voided by void "+again.ID+" (accepted)")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		for _, c := range []struct {
			ranges []sello.VoidRangeRequest
			path   string
		}{
			{nil, "ranges"},
			{[]sello.VoidRangeRequest{{Type: "30", From: 1, To: 2}}, "ranges[0].type"},
			{[]sello.VoidRangeRequest{{Type: "31", From: 0, To: 2}}, "ranges[0].from"},
			{[]sello.VoidRangeRequest{{Type: "31", From: 5, To: 4}}, "ranges[0].to"},
			{[]sello.VoidRangeRequest{{Type: "31", From: 1, To: sello.MaxSequenceNumber + 1}}, "ranges[0].to"},
			{[]sello.VoidRangeRequest{{Type: "31", From: 1, To: 10}, {Type: "E31", From: 10, To: 12}}, "ranges[1]"},
		} {
			_, _, err := sello.CreateVoid(t.Context(), e.s, sello.VoidDraft{TenantID: tn.ID, Environment: sello.EnvTest, Request: sello.VoidRequest{Ranges: c.ranges}})
			wantError(t, err, sello.CodeInvalidRequest)
			wantDetail(t, err, c.path, "")
		}
		many := make([]sello.VoidRangeRequest, sello.MaxVoidRangesPerType+1)
		for i := range many {
			many[i] = sello.VoidRangeRequest{Type: "31", From: int64(2*i + 1), To: int64(2*i + 1)}
		}
		_, _, err := sello.CreateVoid(t.Context(), e.s, sello.VoidDraft{TenantID: tn.ID, Environment: sello.EnvTest, Request: sello.VoidRequest{Ranges: many}})
		wantError(t, err, sello.CodeInvalidRequest)
		wantDetail(t, err, "ranges", "At most 10000 ranges of one type")
	})
	t.Run("Idempotency", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		d := voidOf(tn.ID, sello.EnvTest, e31, 50, 60)
		d.IdempotencyKey, d.RequestHash = "void-1", []byte("hash-1")
		v := MustCreateVoid(t, e.s, d)
		again, replayed, err := sello.CreateVoid(t.Context(), e.s, d)
		if err != nil || !replayed || again.ID != v.ID {
			t.Fatalf("replay: got %v, %v, %v; want void %s replayed", again, replayed, err, v.ID)
		}
		other := voidOf(tn.ID, sello.EnvTest, e31, 70, 80)
		other.IdempotencyKey, other.RequestHash = "void-1", []byte("hash-2")
		_, _, err = sello.CreateVoid(t.Context(), e.s, other)
		wantError(t, err, sello.CodeIdempotencyKeyReused, "void-1")
		// The same key in another environment is another key.
		MustAddSequence(t, e.s, tn.ID, sello.EnvCert, e31, 1, 100)
		d.Environment = sello.EnvCert
		MustCreateVoid(t, e.s, d)
	})
	t.Run("Outcome", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		v := MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 1, 10))
		signed := []byte("<ANECF>…</ANECF>")
		got, err := e.s.RecordVoidOutcome(ctx, tn.ID, sello.EnvTest, v.ID, sello.VoidOutcome{ANECF: signed})
		if err != nil || got.State != sello.VoidPending || string(got.ANECF) != string(signed) {
			t.Fatalf("RecordVoidOutcome (signed): got %+v, %v", got, err)
		}
		dgii := sello.NewDGIITextResult("1", "Anulación procesada", []string{"Las secuencias fueron anuladas correctamente."})
		if _, err := e.s.RecordVoidOutcome(ctx, tn.ID, sello.EnvTest, v.ID, sello.VoidOutcome{State: sello.VoidAccepted, DGII: dgii}); err != nil {
			t.Fatalf("RecordVoidOutcome: %v", err)
		}
		got, err = e.s.FindVoid(ctx, tn.ID, sello.EnvTest, v.ID)
		if err != nil || got.State != sello.VoidAccepted || string(got.ANECF) != string(signed) || !got.UpdatedAt.After(got.CreatedAt) {
			t.Fatalf("FindVoid: got %+v, %v", got, err)
		}
		deepEqual(t, "dgii", got.DGII, dgii)
		_, err = e.s.RecordVoidOutcome(ctx, tn.ID, sello.EnvTest, v.ID, sello.VoidOutcome{State: sello.VoidRejected})
		wantError(t, err, sello.CodeConflict, "accepted")
		evs := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventVoidUpdated, Limit: 10}, AtLeast(1))
		if len(evs) != 1 || evs[0].Data.Payload["voidId"] != v.ID || fmt.Sprint(evs[0].Data.Payload["state"]) != "accepted" {
			t.Fatalf("void.updated events: got %+v; want one, accepted", evs)
		}
	})
	t.Run("List", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, e31, 1, 100)
		var ids []string
		for i := range int64(5) {
			ids = append(ids, MustCreateVoid(t, e.s, voidOf(tn.ID, sello.EnvTest, e31, 10*i+1, 10*i+5)).ID)
		}
		slices.Reverse(ids)
		var got []string
		cursor := ""
		for {
			page, next, err := e.s.ListVoids(ctx, tn.ID, sello.EnvTest, sello.VoidFilter{Cursor: cursor, Limit: 2})
			if err != nil {
				t.Fatalf("ListVoids: %v", err)
			}
			for _, v := range page {
				if len(v.Ranges) != 1 || v.ANECF != nil {
					t.Errorf("listed void %+v: want its range and no ANECF", v)
				}
				got = append(got, v.ID)
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		deepEqual(t, "newest first", got, ids)
		_, _, err := e.s.ListVoids(ctx, tn.ID, sello.EnvTest, sello.VoidFilter{Cursor: "nonsense"})
		wantError(t, err, sello.CodeInvalidRequest)
	})
	t.Run("Isolation", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, a.ID, sello.EnvTest, e31, 1, 100)
		MustAddSequence(t, e.s, b.ID, sello.EnvTest, e31, 1, 100)
		MustAddSequence(t, e.s, a.ID, sello.EnvCert, e31, 1, 100)
		v := MustCreateVoid(t, e.s, voidOf(a.ID, sello.EnvTest, e31, 1, 10))
		for _, c := range []struct {
			tenant string
			env    sello.Environment
		}{{b.ID, sello.EnvTest}, {a.ID, sello.EnvCert}} {
			_, err := e.s.FindVoid(ctx, c.tenant, c.env, v.ID)
			wantError(t, err, sello.CodeNotFound)
			_, err = e.s.RecordVoidOutcome(ctx, c.tenant, c.env, v.ID, sello.VoidOutcome{State: sello.VoidAccepted})
			wantError(t, err, sello.CodeNotFound)
			if l, _, err := e.s.ListVoids(ctx, c.tenant, c.env, sello.VoidFilter{}); err != nil || len(l) != 0 {
				t.Errorf("ListVoids %s %s: got %d, %v; want none", c.tenant, c.env, len(l), err)
			}
			// Their numbers 1–10 are theirs: not voided.
			if d := MustCreateDocument(t, e.s, newDoc(c.tenant, c.env, e31)); d.ENCF != encf(e31, 1) {
				t.Errorf("first document of %s %s: got %s, want %s", c.tenant, c.env, d.ENCF, encf(e31, 1))
			}
			MustCreateVoid(t, e.s, voidOf(c.tenant, c.env, e31, 5, 10))
		}
	})
	t.Run("ConcurrentWithNumbering", func(t *testing.T) {
		testVoidsConcurrent(t, open)
	})
}

// testVoidsConcurrent creates documents of a type from many goroutines
// while others void that type's next numbers: no number ends up both on a
// document and in a void, and no number is assigned twice.
func testVoidsConcurrent(t *testing.T, open Open) {
	const creators, each, voiders, voidsEach = 6, 20, 3, 8
	e := newEnv(t, open)
	ctx := t.Context()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10_000)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		docs     []string
		errs     []error
		refused  int
		accepted []*sello.Void
	)
	for range creators {
		wg.Go(func() {
			for range each {
				d, _, err := e.s.CreateDocument(ctx, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					docs = append(docs, d.ENCF)
				}
				mu.Unlock()
			}
		})
	}
	for range voiders {
		wg.Go(func() {
			for k := range int64(voidsEach) {
				// The next numbers as seen now: by the time the void takes the
				// lock, a document may have taken some of them.
				seqs, err := e.s.FindSequences(ctx, tn.ID, sello.EnvTest)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				next := seqs[0].Next + 2*k // near and a little ahead
				v, _, err := sello.CreateVoid(ctx, e.s, voidOf(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, next, next+2))
				mu.Lock()
				switch {
				case err == nil:
					accepted = append(accepted, v)
				case sello.ErrorCodeOf(err) == sello.CodeValidationFailed:
					refused++ // a number was used or voided meanwhile
				default:
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d operations failed, first: %v", len(errs), errs[0])
	}
	if len(docs) != creators*each {
		t.Fatalf("documents: got %d, want %d", len(docs), creators*each)
	}
	if len(accepted) == 0 {
		t.Fatalf("no void was created (%d refused): the test raced nothing", refused)
	}
	used := map[string]bool{}
	for _, n := range docs {
		if used[n] {
			t.Errorf("%s assigned twice", n)
		}
		used[n] = true
	}
	voided := 0
	for _, v := range accepted {
		for _, r := range v.Ranges {
			for n := r.From; n <= r.To; n++ {
				voided++
				if used[encf(r.Type, n)] {
					t.Errorf("%s is both on a document and in void %s", encf(r.Type, n), v.ID)
				}
			}
		}
	}
	// The documents as stored agree with what the creates returned.
	stored, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvTest, sello.DocumentFilter{Limit: sello.MaxPageSize})
	if err != nil || len(stored) != creators*each {
		t.Fatalf("ListDocuments: got %d, %v; want %d", len(stored), err, creators*each)
	}
	t.Logf("%d documents, %d voids (%d numbers), %d voids refused", len(docs), len(accepted), voided, refused)
}

// errorDetails returns the details of err, a *sello.Error.
func errorDetails(tb testing.TB, err error) []sello.ErrorDetail {
	tb.Helper()
	var e *sello.Error
	if !errors.As(err, &e) {
		tb.Fatalf("error %v is not a *sello.Error", err)
	}
	return e.Details
}
