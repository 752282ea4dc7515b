package storetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// signedXML is a signed e-CF as the suite stores it: a byte-order mark,
// CRLF, tabs, trailing spaces, non-ASCII and bytes that are not UTF-8, so
// only a byte-exact store returns it equal.
var signedXML = []byte("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<ECF>\t<RazonSocial>Ñandú  </RazonSocial>\n<X>\x00\xff\xfe</X></ECF>  \r\n")

var rfceXML = []byte("<?xml version=\"1.0\"?><RFCE><Encabezado>\r\n\t</Encabezado></RFCE>")

// signedAt is the signature time the suite sets: in DR time, with
// microseconds.
var signedAt = time.Date(2026, time.March, 10, 14, 0, 1, 123456000, sello.DRZone)

// signChange is the change a signer makes.
func signChange() sello.DocumentChange {
	at := signedAt
	return sello.DocumentChange{
		From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned,
		SignedXML: signedXML, SecurityCode: "Ab3dE6", SignedAt: &at,
		QRURL:     "https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=101000001&CodigoSeguridad=Ab3dE6",
		EventType: sello.EventECFSigned, Message: "e-CF signed.",
	}
}

// mustUpdate applies ch and fails the test on error.
func mustUpdate(tb testing.TB, s sello.Store, doc *sello.Document, ch sello.DocumentChange) *sello.Document {
	tb.Helper()
	got, err := s.UpdateDocument(tb.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
	if err != nil {
		tb.Fatalf("UpdateDocument %s to %q: %v", doc.ENCF, ch.Status, err)
	}
	if got.Payload != nil {
		tb.Errorf("UpdateDocument returned the payload; it returns the document without it")
	}
	// A change never touches the payload: what the document had, it has.
	got.Payload = doc.Payload
	return got
}

// mustDocumentByID reads a document by id.
func mustDocumentByID(tb testing.TB, s sello.Store, doc *sello.Document) *sello.Document {
	tb.Helper()
	got, err := s.FindDocumentByID(tb.Context(), doc.TenantID, doc.Environment, doc.ID)
	if err != nil {
		tb.Fatalf("FindDocumentByID: %v", err)
	}
	return got
}

// mustHistory reads a document's status history.
func mustHistory(tb testing.TB, s sello.Store, doc *sello.Document) []sello.StatusChange {
	tb.Helper()
	h, err := s.FindDocumentHistory(tb.Context(), doc.TenantID, doc.Environment, doc.ID)
	if err != nil {
		tb.Fatalf("FindDocumentHistory: %v", err)
	}
	return h
}

// newLifecycleDoc creates a document of type 31 in a fresh tenant.
func newLifecycleDoc(t *testing.T, e env) *sello.Document {
	t.Helper()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	return MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
}

func testLifecycle(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		doc := newLifecycleDoc(t, e)
		got := mustUpdate(t, e.s, doc, signChange())

		want := *doc
		want.Status = sello.StatusSigned
		want.SecurityCode = "Ab3dE6"
		at := signedAt.UTC()
		want.SignedAt = &at
		want.QRURL = signChange().QRURL
		want.UpdatedAt = got.UpdatedAt
		if !got.UpdatedAt.After(doc.UpdatedAt) {
			t.Errorf("UpdatedAt: got %v, want after %v", got.UpdatedAt, doc.UpdatedAt)
		}
		deepEqual(t, "returned", got, &want)
		deepEqual(t, "FindDocumentByID", mustDocumentByID(t, e.s, doc), &want)
		if byENCF, err := e.s.FindDocument(ctx, doc.TenantID, doc.Environment, doc.ENCF); err != nil {
			t.Errorf("FindDocument: %v", err)
		} else {
			deepEqual(t, "FindDocument", byENCF, &want)
		}
		xml, err := e.s.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF)
		if err != nil || !bytes.Equal(xml, signedXML) {
			t.Errorf("FindDocumentXML: got %q, %v; want %q byte for byte", xml, err, signedXML)
		}

		evs := mustEvents(t, e.s, doc.TenantID, doc.Environment, 2)
		if len(evs) != 2 {
			t.Fatalf("events: got %d, want ecf.queued and ecf.signed", len(evs))
		}
		ev := evs[1]
		if ev.Type != sello.EventECFSigned || ev.ID == "" || !evs[0].Pos.Less(ev.Pos) || !ev.CreatedAt.Equal(got.UpdatedAt) ||
			ev.TenantID != doc.TenantID || ev.Environment != doc.Environment {
			t.Errorf("event: got %+v, want ecf.signed at %v after the queued one", ev, got.UpdatedAt)
		}
		deepEqual(t, "event document", ev.Document, &sello.EventDocument{ID: doc.ID, Type: "E31", ENCF: doc.ENCF, Status: sello.StatusSigned})
		deepEqual(t, "event data", ev.Data, sello.EventData{Severity: "info", Message: "e-CF signed.", Payload: map[string]any{}})

		deepEqual(t, "history", mustHistory(t, e.s, doc), []sello.StatusChange{
			{Status: sello.StatusQueuedForSigning, At: doc.CreatedAt},
			{Status: sello.StatusSigned, At: got.UpdatedAt},
		})
	})
	t.Run("ErrConflict", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		signed := mustUpdate(t, e.s, doc, signChange())
		events := len(mustEvents(t, e.s, doc.TenantID, doc.Environment, 2))

		ch := sello.DocumentChange{
			From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned,
			SignedXML: []byte("<other/>"), SecurityCode: "zzzzzz", TrackID: "trk-x", Reason: "second signer",
			EventType: sello.EventECFSigned, Message: "again",
		}
		_, err := e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
		wantError(t, err, sello.CodeConflict, doc.ENCF, "is signed, not queued_for_signing")
		ch.From = []sello.Status{sello.StatusSubmitted, sello.StatusQueuedForSigning}
		_, err = e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
		wantError(t, err, sello.CodeConflict, "is signed, not submitted or queued_for_signing")

		deepEqual(t, "document after the conflicts", mustDocumentByID(t, e.s, doc), signed)
		if got := len(mustEvents(t, e.s, doc.TenantID, doc.Environment, events)); got != events {
			t.Errorf("events: got %d, want %d", got, events)
		}
		if got := len(mustHistory(t, e.s, doc)); got != 2 {
			t.Errorf("history rows: got %d, want 2", got)
		}
		if xml, err := e.s.FindDocumentXML(t.Context(), doc.TenantID, doc.Environment, doc.ENCF); err != nil || !bytes.Equal(xml, signedXML) {
			t.Errorf("FindDocumentXML: got %q, %v; want the first signature's", xml, err)
		}
	})
	t.Run("AnyStatus", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		// No From: applies in any status; no Status: keeps the current one.
		got := mustUpdate(t, e.s, doc, sello.DocumentChange{TrackID: "trk-1", Reason: "noted"})
		if got.Status != sello.StatusQueuedForSigning || got.TrackID != "trk-1" {
			t.Errorf("got status %s, track %q; want queued_for_signing, trk-1", got.Status, got.TrackID)
		}
		deepEqual(t, "history", mustHistory(t, e.s, doc), []sello.StatusChange{
			{Status: sello.StatusQueuedForSigning, At: doc.CreatedAt},
			{Status: sello.StatusQueuedForSigning, At: got.UpdatedAt, Reason: "noted"},
		})
		if got := len(mustEvents(t, e.s, doc.TenantID, doc.Environment, 1)); got != 1 {
			t.Errorf("events: got %d, want 1 (no EventType, no event)", got)
		}
	})
	t.Run("NeverCleared", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		doc := newLifecycleDoc(t, e)
		if _, err := e.s.FindDocumentRFCE(ctx, doc.TenantID, doc.Environment, doc.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Errorf("FindDocumentRFCE before: got %v, want NOT_FOUND", err)
		}
		signed := mustUpdate(t, e.s, doc, signChange())
		rfce := mustUpdate(t, e.s, doc, sello.DocumentChange{From: []sello.Status{sello.StatusSigned}, RFCEXML: rfceXML})
		submitted := mustUpdate(t, e.s, doc, sello.DocumentChange{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "trk-42"})
		yes := true
		verdict := &sello.DGIIResult{Codigo: new(2), Estado: "Rechazado", SecuenciaUtilizada: &yes,
			Mensajes: []sello.DGIIMessage{{Codigo: new(1), Valor: "Monto total no cuadra"}, {Codigo: new(0), Valor: "ñ"}}}
		rejected := mustUpdate(t, e.s, doc, sello.DocumentChange{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusRejected, DGII: verdict,
			EventType: sello.EventECFRejected, Severity: "error", Message: "Rejected by DGII."})

		want := *signed
		want.Status, want.TrackID, want.DGII, want.UpdatedAt = sello.StatusRejected, "trk-42", verdict, rejected.UpdatedAt
		deepEqual(t, "returned", rejected, &want)
		if !rfce.UpdatedAt.Before(submitted.UpdatedAt) || !submitted.UpdatedAt.Before(rejected.UpdatedAt) {
			t.Errorf("UpdatedAt: %v, %v, %v; want increasing", rfce.UpdatedAt, submitted.UpdatedAt, rejected.UpdatedAt)
		}
		deepEqual(t, "FindDocumentByID", mustDocumentByID(t, e.s, doc), &want)
		byENCF, err := e.s.FindDocument(ctx, doc.TenantID, doc.Environment, doc.ENCF)
		if err != nil {
			t.Fatalf("FindDocument: %v", err)
		}
		deepEqual(t, "FindDocument", byENCF, &want)
		batch, err := e.s.FindDocumentsByENCF(ctx, doc.TenantID, doc.Environment, []string{doc.ENCF})
		if err != nil || len(batch) != 1 {
			t.Fatalf("FindDocumentsByENCF: got %d, %v", len(batch), err)
		}
		deepEqual(t, "FindDocumentsByENCF", batch[0], summary(&want))
		list, _, err := e.s.ListDocuments(ctx, doc.TenantID, doc.Environment, sello.DocumentFilter{Status: sello.StatusRejected})
		if err != nil || len(list) != 1 {
			t.Fatalf("ListDocuments: got %d, %v", len(list), err)
		}
		deepEqual(t, "ListDocuments", list[0], summary(&want))
		if xml, err := e.s.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF); err != nil || !bytes.Equal(xml, signedXML) {
			t.Errorf("FindDocumentXML: got %q, %v; want the signed XML kept", xml, err)
		}
		if xml, err := e.s.FindDocumentRFCE(ctx, doc.TenantID, doc.Environment, doc.ID); err != nil || !bytes.Equal(xml, rfceXML) {
			t.Errorf("FindDocumentRFCE: got %q, %v; want %q", xml, err, rfceXML)
		}
		r := byENCF.Resource()
		if r.TrackID == nil || *r.TrackID != "trk-42" || r.SecurityCode == nil || r.SignedAt == nil || *r.SignedAt != sello.FormatTime(signedAt) ||
			r.QRURL == nil || r.DGII == nil || len(r.DGII.Mensajes) != 2 {
			t.Errorf("resource: got %+v", r)
		}
		evs := WaitEvents(t, e.s, doc.TenantID, doc.Environment, sello.EventFilter{}, WithType(sello.EventECFRejected))
		last := evs[len(evs)-1]
		deepEqual(t, "rejected event document", last.Document, &sello.EventDocument{ID: doc.ID, Type: "E31", ENCF: doc.ENCF, Status: sello.StatusRejected, TrackID: ptr("trk-42")})
		if last.Type != sello.EventECFRejected || last.Data.Severity != "error" || last.Data.Message != "Rejected by DGII." {
			t.Errorf("rejected event: got %s %+v", last.Type, last.Data)
		}
	})
	t.Run("EmptyMensajes", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		for _, m := range [][]sello.DGIIMessage{nil, {}} {
			mustUpdate(t, e.s, doc, sello.DocumentChange{DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado", Mensajes: m}})
			got := mustDocumentByID(t, e.s, doc)
			if got.DGII == nil || len(got.DGII.Mensajes) != 0 {
				t.Errorf("Mensajes %#v: read back %#v", m, got.DGII)
			}
			// The API writes no messages as [], never null.
			if b, err := json.Marshal(got.Resource()); err != nil || !strings.Contains(string(b), `"mensajes":[]`) {
				t.Errorf("Mensajes %#v: resource %s, %v; want mensajes []", m, b, err)
			}
		}
	})
	t.Run("Failed", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		got := mustUpdate(t, e.s, doc, sello.DocumentChange{
			From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusFailed, Reason: "No valid signing certificate.",
			EventType: sello.EventECFFailed, Severity: "error", Message: "e-CF cannot be signed.",
		})
		if got.Status != sello.StatusFailed || got.FailureReason != "No valid signing certificate." {
			t.Errorf("got %s, %q; want failed with the reason", got.Status, got.FailureReason)
		}
		deepEqual(t, "stored", mustDocumentByID(t, e.s, doc), got)
		h := mustHistory(t, e.s, doc)
		if last := h[len(h)-1]; last.Status != sello.StatusFailed || last.Reason != "No valid signing certificate." {
			t.Errorf("history: got %+v", h)
		}
		evs := WaitEvents(t, e.s, doc.TenantID, doc.Environment, sello.EventFilter{}, WithType(sello.EventECFFailed))
		if last := evs[len(evs)-1]; last.Type != sello.EventECFFailed || last.Data.Severity != "error" || last.Document.Status != sello.StatusFailed {
			t.Errorf("event: got %s %+v %+v", last.Type, last.Data, last.Document)
		}
		// A reason without failed goes to the history only.
		other := MustCreateDocument(t, e.s, newDoc(doc.TenantID, doc.Environment, doc.Type))
		if got := mustUpdate(t, e.s, other, sello.DocumentChange{Status: sello.StatusSigned, Reason: "why"}); got.FailureReason != "" {
			t.Errorf("FailureReason of a signed document: got %q", got.FailureReason)
		}
	})
	t.Run("History", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		want := []sello.StatusChange{{Status: sello.StatusQueuedForSigning, At: doc.CreatedAt}}
		for _, step := range []struct {
			from, to sello.Status
			reason   string
		}{
			{sello.StatusQueuedForSigning, sello.StatusSigned, ""},
			{sello.StatusSigned, sello.StatusSubmitted, "sent"},
			{sello.StatusSubmitted, sello.StatusAcceptedConditional, "DGII: aceptado condicional"},
		} {
			got := mustUpdate(t, e.s, doc, sello.DocumentChange{From: []sello.Status{step.from}, Status: step.to, Reason: step.reason})
			want = append(want, sello.StatusChange{Status: step.to, At: got.UpdatedAt, Reason: step.reason})
		}
		deepEqual(t, "history", mustHistory(t, e.s, doc), want)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		doc := newLifecycleDoc(t, e)
		missing := sello.NewID()
		_, err := e.s.FindDocumentByID(ctx, doc.TenantID, doc.Environment, missing)
		wantError(t, err, sello.CodeNotFound, missing)
		_, err = e.s.UpdateDocument(ctx, doc.TenantID, doc.Environment, missing, signChange())
		wantError(t, err, sello.CodeNotFound, missing)
		_, err = e.s.FindDocumentHistory(ctx, doc.TenantID, doc.Environment, missing)
		wantError(t, err, sello.CodeNotFound, missing)
		_, err = e.s.FindDocumentRFCE(ctx, doc.TenantID, doc.Environment, missing)
		wantError(t, err, sello.CodeNotFound, missing)
		_, err = e.s.FindDocumentXML(ctx, doc.TenantID, doc.Environment, encf("31", 99))
		wantError(t, err, sello.CodeNotFound, encf("31", 99))
		_, err = e.s.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF)
		wantError(t, err, sello.CodeNotFound, doc.ENCF, "not signed")
	})
	t.Run("ErrInvalidChange", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		for _, ch := range []sello.DocumentChange{
			{Status: "bogus"},
			{From: []sello.Status{"bogus"}, Status: sello.StatusSigned},
			{Status: sello.StatusSigned, EventType: sello.EventECFSigned, Severity: "fatal"},
		} {
			_, err := e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
			wantError(t, err, sello.CodeInvalidRequest)
		}
		deepEqual(t, "document", mustDocumentByID(t, e.s, doc), doc)
	})
	t.Run("ReplayAfterUpdate", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("h")
		first := MustCreateDocument(t, e.s, nd)
		mustUpdate(t, e.s, first, signChange())
		again, replayed, err := e.s.CreateDocument(t.Context(), nd)
		if err != nil || !replayed {
			t.Fatalf("replay: %v, replayed %v", err, replayed)
		}
		// The document exactly as the first request returned it (OpenAPI).
		deepEqual(t, "replayed", again, first)
	})
	t.Run("Concurrent", func(t *testing.T) {
		const goroutines = 8
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			ok        int
			conflicts int
			others    []error
		)
		start := make(chan struct{})
		for range goroutines {
			wg.Go(func() {
				<-start
				_, err := e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, signChange())
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case sello.ErrorCodeOf(err) == sello.CodeConflict:
					conflicts++
				default:
					others = append(others, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if ok != 1 || conflicts != goroutines-1 || len(others) > 0 {
			t.Errorf("got %d applied, %d conflicts, errors %v; want 1 and %d", ok, conflicts, others, goroutines-1)
		}
		if got := len(mustEvents(t, e.s, doc.TenantID, doc.Environment, 2)); got != 2 {
			t.Errorf("events: got %d, want 2", got)
		}
		if got := len(mustHistory(t, e.s, doc)); got != 2 {
			t.Errorf("history rows: got %d, want 2", got)
		}
	})
}

func ptr[T any](v T) *T { return &v }
