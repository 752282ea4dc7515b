package storetest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testSigner is a signer whose holder is serialNumber, trusted or not.
func testSigner(serialNumber string, trusted bool) *sello.Signer {
	return &sello.Signer{
		Subject: "CN=Juan Pérez,SERIALNUMBER=" + serialNumber, SerialNumber: serialNumber, Issuer: "CN=Prueba CA",
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		Fingerprint: "5e110" + serialNumber, Trusted: trusted,
	}
}

// newInbound is an inbound document of tenantID from issuerRNC, numbered n,
// signed by a trusted signer.
func newInbound(tenantID string, en sello.Environment, issuerRNC string, n int64) *sello.InboundDocument {
	e := encf(sello.TypeCreditoFiscal, n)
	return &sello.InboundDocument{
		TenantID: tenantID, Environment: en, Type: sello.TypeCreditoFiscal, ENCF: e,
		IssuerRNC: issuerRNC, IssuerName: "Proveedor Ejemplo SRL", BuyerRNC: "130000001",
		IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: "1180.00",
		XML:          []byte("<ECF><eNCF>" + e + "</eNCF></ECF>"),
		Acuse:        []byte("<ARECF><eNCF>" + e + "</eNCF></ARECF>"),
		Signer:       testSigner("IDCDO-00100000001", true),
		SecurityCode: "q7Xk2P",
	}
}

// MustRecordDGII records DGII's answer codigo (estado) about the tenant's
// inbound document id and returns the document after.
func MustRecordDGII(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, id string, codigo int, estado string) *sello.InboundDocument {
	tb.Helper()
	d, err := s.RecordInboundDGII(tb.Context(), tenantID, env, id, sello.InboundDGIIAnswer{Codigo: codigo, Estado: estado})
	if err != nil {
		tb.Fatalf("RecordInboundDGII %s codigo %d: %v", id, codigo, err)
	}
	return d
}

// mustCreateConfirmed stores d, which must be new, and records DGII's
// acceptance of it.
func mustCreateConfirmed(tb testing.TB, s sello.Store, d *sello.InboundDocument) *sello.InboundDocument {
	tb.Helper()
	got := MustCreateInbound(tb, s, d)
	return MustRecordDGII(tb, s, got.TenantID, got.Environment, got.ID, 1, "Aceptado")
}

// MustCreateInbound stores d, which must be new, without a quota per
// e-NCF, and returns it as stored.
func MustCreateInbound(tb testing.TB, s sello.Store, d *sello.InboundDocument) *sello.InboundDocument {
	tb.Helper()
	got, held, err := s.CreateInboundDocument(tb.Context(), d, 0)
	if err != nil || held != nil || got == nil {
		tb.Fatalf("CreateInboundDocument %s: held %+v, %v", d.ENCF, held, err)
	}
	return got
}

// differentInbound is newInbound with other bytes (and acuse and security
// code), named by what.
func differentInbound(tenantID string, en sello.Environment, issuerRNC string, n int64, what string) *sello.InboundDocument {
	d := newInbound(tenantID, en, issuerRNC, n)
	d.XML, d.Acuse, d.SecurityCode = []byte("<ECF><eNCF>"+d.ENCF+"</eNCF>"+what+"</ECF>"), []byte("<ARECF>"+what+"</ARECF>"), what
	return d
}

// mustFindENCF is FindInboundENCF of d's bytes under its issuer and e-NCF,
// counting since.
func mustFindENCF(tb testing.TB, s sello.Store, d *sello.InboundDocument, since time.Time) *sello.InboundENCF {
	tb.Helper()
	h, err := s.FindInboundENCF(tb.Context(), d.TenantID, d.Environment, d.IssuerRNC, d.ENCF, sha256.Sum256(d.XML), since)
	if err != nil {
		tb.Fatalf("FindInboundENCF %s: %v", d.ENCF, err)
	}
	return h
}

func testInbound(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		want := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		got := MustCreateInbound(t, e.s, want)
		if got.ID == "" || got.Approval != sello.ApprovalPending || got.ReceivedAt.IsZero() || !got.UpdatedAt.Equal(got.ReceivedAt) ||
			got.DGII == nil || *got.DGII != (sello.InboundDGII{Status: sello.DGIIPending}) {
			t.Fatalf("stored: got id %q, approval %q, received %v, updated %v, dgii %+v", got.ID, got.Approval, got.ReceivedAt, got.UpdatedAt, got.DGII)
		}
		want.ID, want.Approval, want.ReceivedAt, want.UpdatedAt, want.DGII = got.ID, got.Approval, got.ReceivedAt, got.UpdatedAt, got.DGII
		byID, err := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "by id", byID, want)
		byENCF, err := e.s.FindInboundDocumentByENCF(t.Context(), tn.ID, sello.EnvTest, want.IssuerRNC, want.ENCF)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "by e-NCF", byENCF, want)

		events := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundReceived, Limit: 10}, AtLeast(1))
		if len(events) != 1 || events[0].Data.Payload["inboundDocumentId"] != got.ID || events[0].Document.ENCF != got.ENCF ||
			events[0].Document.Status != sello.InboundStatusReceived {
			t.Fatalf("events: got %+v, want one %s with inboundDocumentId %s", events, sello.EventInboundReceived, got.ID)
		}
	})
	t.Run("SameBytes", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		first := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		again := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		again.Acuse = []byte("<ARECF>another acuse</ARECF>")
		got, held, err := e.s.CreateInboundDocument(t.Context(), again, 1)
		if err != nil || got != nil || held == nil || held.Same == nil {
			t.Fatalf("second create: stored %v, held %+v, %v; want the first held", got, held, err)
		}
		deepEqual(t, "the same bytes again", held.Same, first)
		if events := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundReceived, Limit: 10}, AtLeast(1)); len(events) != 1 {
			t.Fatalf("events: got %d, want 1 (none for the same bytes again)", len(events))
		}
		// Another issuer may use the same number.
		MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000002", 1))
	})
	// A document whose maker hashed its bytes (reception) is keyed by that
	// hash, which is the bytes' SHA-256: the same bytes sent again without
	// it are held as the same. The hash is not returned.
	t.Run("KnownSum", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		in := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		in.XMLSum = sha256.Sum256(in.XML)
		first := MustCreateInbound(t, e.s, in)
		if first.XMLSum != ([32]byte{}) {
			t.Errorf("the stored document carries its hash %x", first.XMLSum)
		}
		got, held, err := e.s.CreateInboundDocument(t.Context(), newInbound(tn.ID, sello.EnvTest, "131000001", 1), 0)
		if err != nil || got != nil || held == nil || held.Same == nil {
			t.Fatalf("the same bytes again: stored %v, held %+v, %v; want the first held", got, held, err)
		}
		deepEqual(t, "the same bytes again", held.Same, first)
	})
	// Nothing unproven blocks the genuine: a different document under an
	// e-NCF the tenant holds is kept beside it until DGII accepts one;
	// then a third is not kept.
	t.Run("DifferentBytes", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		forged := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		in := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		in.XML, in.Acuse, in.SecurityCode, in.Total = []byte("<ECF>the genuine</ECF>"), []byte("<ARECF>genuine</ARECF>"), "G3nu1n", "117997.64"
		genuine := MustCreateInbound(t, e.s, in)
		if genuine.ID == forged.ID {
			t.Fatal("the second document got the first's id")
		}
		all := mustListInbound(t, e.s, tn.ID, sello.EnvTest, sello.InboundFilter{IssuerRNC: "131000001", ENCF: forged.ENCF})
		if got := inboundIDs(all); !slices.Equal(got, []string{genuine.ID, forged.ID}) {
			t.Fatalf("list by e-NCF: got %v, want both, newest first [%s %s]", got, genuine.ID, forged.ID)
		}
		WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundReceived}, AtLeast(2))

		MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, genuine.ID, 1, "Aceptado")
		third := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		third.XML = []byte("<ECF>a third</ECF>")
		got, held, err := e.s.CreateInboundDocument(t.Context(), third, 0)
		if err != nil || got != nil || held == nil || held.Same != nil || held.Accepted == nil ||
			*held.Accepted != (sello.AcceptedInbound{ID: genuine.ID, SecurityCode: genuine.SecurityCode, ReceivedAt: genuine.ReceivedAt}) {
			t.Fatalf("a third document after DGII confirmed one: stored %v, held %+v, %v; want the confirmed %s held", got, held, err, genuine.ID)
		}
		byENCF, err := e.s.FindInboundDocumentByENCF(t.Context(), tn.ID, sello.EnvTest, "131000001", forged.ENCF)
		if err != nil || byENCF.ID != genuine.ID {
			t.Fatalf("FindInboundDocumentByENCF: got %v, %v; want the confirmed %s", byENCF, err, genuine.ID)
		}
		// The same bytes as the refuted one still get its acuse.
		_, held, err = e.s.CreateInboundDocument(t.Context(), newInbound(tn.ID, sello.EnvTest, "131000001", 1), 0)
		if err != nil || held == nil || held.Same == nil || held.Same.ID != forged.ID || string(held.Same.Acuse) != string(forged.Acuse) {
			t.Fatalf("the forged bytes again: held %+v, %v; want %s", held, err, forged.ID)
		}
	})
	// What a receipt reads of an e-NCF (FindInboundENCF): the document with
	// its bytes, whole; the one DGII accepted; how many DGII has not
	// confirmed received since a time, and the earliest of them. Nothing
	// of another issuer, e-NCF, tenant or environment.
	t.Run("FindENCF", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		const issuer = "131000001"
		start := e.clock.Peek()
		probe := differentInbound(a.ID, sello.EnvTest, issuer, 1, "probe")
		if h := mustFindENCF(t, e.s, probe, start); h.Same != nil || h.Accepted != nil || h.Unconfirmed != 0 || !h.Earliest.IsZero() {
			t.Fatalf("an empty e-NCF: got %+v", h)
		}
		first := MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 1, "first"))
		e.clock.Add(time.Hour)
		later := e.clock.Peek()
		second := MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 1, "second"))
		notFound := MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 1, "notfound"))
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, notFound.ID, 0, "No encontrado")
		rejected := MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 1, "rejected"))
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, rejected.ID, 2, "Rechazado")
		// Not counted: another e-NCF, issuer, tenant or environment.
		MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 2, "first"))
		MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvTest, "131000002", 1, "first"))
		MustCreateInbound(t, e.s, differentInbound(b.ID, sello.EnvTest, issuer, 1, "first"))
		MustCreateInbound(t, e.s, differentInbound(a.ID, sello.EnvCert, issuer, 1, "first"))

		h := mustFindENCF(t, e.s, differentInbound(a.ID, sello.EnvTest, issuer, 1, "second"), start)
		deepEqual(t, "the same bytes", h.Same, second)
		if h.Accepted != nil || h.Unconfirmed != 3 || !h.Earliest.Equal(first.ReceivedAt) {
			t.Fatalf("since the start: accepted %+v, %d unconfirmed from %s; want none, 3 (pending and not_found, not rejected) from %s",
				h.Accepted, h.Unconfirmed, h.Earliest, first.ReceivedAt)
		}
		if h := mustFindENCF(t, e.s, probe, later); h.Same != nil || h.Unconfirmed != 2 || !h.Earliest.Equal(second.ReceivedAt) {
			t.Fatalf("since an hour later: same %v, %d unconfirmed from %s; want none, 2 from %s", h.Same, h.Unconfirmed, h.Earliest, second.ReceivedAt)
		}
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, second.ID, 1, "Aceptado")
		h = mustFindENCF(t, e.s, probe, start)
		if h.Accepted == nil || *h.Accepted != (sello.AcceptedInbound{ID: second.ID, SecurityCode: second.SecurityCode, ReceivedAt: second.ReceivedAt}) ||
			h.Unconfirmed != 0 {
			t.Fatalf("after DGII accepted %s: accepted %+v, %d unconfirmed; want it, and none (the others refuted)", second.ID, h.Accepted, h.Unconfirmed)
		}
		if h := mustFindENCF(t, e.s, differentInbound(b.ID, sello.EnvTest, issuer, 1, "second"), start); h.Same != nil || h.Accepted != nil || h.Unconfirmed != 1 {
			t.Fatalf("tenant b: got %+v, want its one unconfirmed document", h)
		}
	})
	// The quota per e-NCF (CreateInboundDocument's quota): at the quota of
	// unconfirmed documents received in its window, another different one
	// is RATE_LIMITED and nothing is stored; the same bytes are still
	// found; a document DGII rejects, or one past the window, leaves room;
	// once DGII accepts one, a different one is held to it, not limited.
	t.Run("ENCFQuota", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		const issuer, quota = "131000001", 3
		create := func(d *sello.InboundDocument) (*sello.InboundDocument, *sello.InboundENCF, error) {
			return e.s.CreateInboundDocument(t.Context(), d, quota)
		}
		var kept []*sello.InboundDocument
		for i := range quota {
			d, held, err := create(differentInbound(tn.ID, sello.EnvTest, issuer, 1, fmt.Sprint("doc", i)))
			if err != nil || held != nil {
				t.Fatalf("document %d of %d: held %+v, %v", i+1, quota, held, err)
			}
			kept = append(kept, d)
			e.clock.Add(time.Minute)
		}
		over := differentInbound(tn.ID, sello.EnvTest, issuer, 1, "over")
		_, _, err := create(over)
		wantError(t, err, sello.CodeRateLimited, "3 documents", "E310000000001", "RNC "+issuer)
		var limited *sello.Error
		errors.As(err, &limited)
		retry := limited.RetryAfterSeconds
		if want := kept[0].ReceivedAt.Add(sello.ENCFQuotaWindow).Sub(e.clock.Peek()); retry < int(want.Seconds())-1 || retry > int(want.Seconds())+2 {
			t.Errorf("Retry-After %d s, want about %s (until the earliest leaves the window)", retry, want)
		}
		if n := len(mustListInbound(t, e.s, tn.ID, sello.EnvTest, sello.InboundFilter{ENCF: over.ENCF})); n != quota {
			t.Fatalf("stored %d documents under the e-NCF, want %d", n, quota)
		}
		// The same bytes at the quota: the one kept.
		if _, held, err := create(differentInbound(tn.ID, sello.EnvTest, issuer, 1, "doc1")); err != nil || held == nil || held.Same == nil || held.Same.ID != kept[1].ID {
			t.Fatalf("the same bytes at the quota: held %+v, %v; want %s", held, err, kept[1].ID)
		}
		// Another e-NCF is not limited.
		MustCreateInbound(t, e.s, differentInbound(tn.ID, sello.EnvTest, issuer, 2, "other"))
		// A document DGII rejected no longer counts.
		MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, kept[2].ID, 2, "Rechazado")
		if d, held, err := create(over); err != nil || held != nil || d == nil {
			t.Fatalf("after DGII rejected one: held %+v, %v; want it stored", held, err)
		}
		_, _, err = create(differentInbound(tn.ID, sello.EnvTest, issuer, 1, "over2"))
		wantError(t, err, sello.CodeRateLimited)
		// Past the window, the earliest no longer counts.
		e.clock.Add(sello.ENCFQuotaWindow - 2*time.Minute)
		if d, held, err := create(differentInbound(tn.ID, sello.EnvTest, issuer, 1, "over2")); err != nil || held != nil || d == nil {
			t.Fatalf("once the earliest left the window: held %+v, %v; want it stored", held, err)
		}
		// Once DGII accepts one, a different document is held to it.
		MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, kept[1].ID, 1, "Aceptado")
		if _, held, err := create(differentInbound(tn.ID, sello.EnvTest, issuer, 1, "after")); err != nil || held == nil || held.Accepted == nil || held.Accepted.ID != kept[1].ID {
			t.Fatalf("after DGII accepted one: held %+v, %v; want %s", held, err, kept[1].ID)
		}
	})
	// Receipts racing for the last places of an e-NCF take turns: the
	// quota holds exactly.
	t.Run("ENCFQuotaConcurrent", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		const quota, senders = 3, 12
		var wg sync.WaitGroup
		errs := make([]error, senders)
		for i := range senders {
			wg.Go(func() {
				_, _, errs[i] = e.s.CreateInboundDocument(t.Context(), differentInbound(tn.ID, sello.EnvTest, "131000001", 1, fmt.Sprint("doc", i)), quota)
			})
		}
		wg.Wait()
		limited := 0
		for _, err := range errs {
			if sello.ErrorCodeOf(err) == sello.CodeRateLimited {
				limited++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		stored := len(mustListInbound(t, e.s, tn.ID, sello.EnvTest, sello.InboundFilter{ENCF: encf(sello.TypeCreditoFiscal, 1)}))
		if stored != quota || limited != senders-quota {
			t.Fatalf("%d senders at once: %d stored, %d limited; want %d and %d", senders, stored, limited, quota, senders-quota)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		_, err := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, sello.NewID())
		wantError(t, err, sello.CodeNotFound, "not found")
		_, err = e.s.FindInboundDocumentByENCF(t.Context(), tn.ID, sello.EnvTest, "131000001", encf(sello.TypeCreditoFiscal, 1))
		wantError(t, err, sello.CodeNotFound, "E310000000001", "131000001")
		_, _, err = e.s.CreateInboundDocument(t.Context(), newInbound(sello.NewID(), sello.EnvTest, "131000001", 1), 0)
		wantError(t, err, sello.CodeNotFound, "not found")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		d.Acuse = nil
		_, _, err := e.s.CreateInboundDocument(t.Context(), d, 0)
		wantError(t, err, sello.CodeInvalidRequest, "acuse")
	})
	t.Run("TenantIsolation", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		doc := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, "131000001", 1))
		_, err := e.s.FindInboundDocument(t.Context(), b.ID, sello.EnvTest, doc.ID)
		wantError(t, err, sello.CodeNotFound)
		_, err = e.s.FindInboundDocumentByENCF(t.Context(), b.ID, sello.EnvTest, doc.IssuerRNC, doc.ENCF)
		wantError(t, err, sello.CodeNotFound)
		_, err = e.s.FindInboundDocument(t.Context(), a.ID, sello.EnvCert, doc.ID)
		wantError(t, err, sello.CodeNotFound)
		// The same supplier's document to another tenant, or in another
		// environment, is another document.
		if other := MustCreateInbound(t, e.s, newInbound(b.ID, sello.EnvTest, "131000001", 1)); other.ID == doc.ID {
			t.Fatal("tenant b got tenant a's document")
		}
		MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvCert, "131000001", 1))
		if events := WaitEvents(t, e.s, b.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundReceived, Limit: 10}, AtLeast(1)); len(events) != 1 || events[0].Data.Payload["inboundDocumentId"] == doc.ID {
			t.Fatalf("tenant b's events: got %d (%+v), want its own one", len(events), events)
		}
	})
}

func testReceiverAuth(t *testing.T, open Open) {
	redeemAt := func(t *testing.T, e env, tn *sello.Tenant, en sello.Environment, seed string, issued time.Time) (string, error) {
		t.Helper()
		tok, plain := sello.NewReceiverToken(tn.ID, en, testSigner("IDCDO-00100000001", false), issued)
		return plain, e.s.RedeemReceiverSeed(t.Context(), tn.ID, en, seed, issued.Add(sello.ReceiverSeedTTL), tok)
	}
	redeem := func(t *testing.T, e env, tn *sello.Tenant, en sello.Environment, seed string) (string, error) {
		t.Helper()
		return redeemAt(t, e, tn, en, seed, e.clock.Peek())
	}
	newSeed := func(e env, tn *sello.Tenant) string {
		return sello.IssueReceiverSeed([]byte("key"), sello.EnvTest, tn.RNC, e.clock.Peek()).Value
	}
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		seed := newSeed(e, tn)
		plain, err := redeem(t, e, tn, sello.EnvTest, seed)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := e.s.CheckReceiverToken(t.Context(), tn.ID, sello.EnvTest, sello.HashReceiverToken(plain), e.clock.Peek())
		if err != nil {
			t.Fatalf("fresh token: %v", err)
		}
		// The token keeps who signed its seed.
		deepEqual(t, "the token's signer", tok.Signer, testSigner("IDCDO-00100000001", false))
		if tok.TenantID != tn.ID || tok.Environment != sello.EnvTest || !tok.ExpiresAt.Equal(tok.IssuedAt.Add(sello.ReceiverTokenTTL)) {
			t.Errorf("token: got %+v", tok)
		}
		// A seed is redeemed once.
		_, err = redeem(t, e, tn, sello.EnvTest, seed)
		wantError(t, err, sello.CodeUnauthenticated, "seed", "used or expired")

		e.clock.Add(sello.ReceiverTokenTTL)
		_, err = e.s.CheckReceiverToken(t.Context(), tn.ID, sello.EnvTest, sello.HashReceiverToken(plain), e.clock.Peek())
		wantError(t, err, sello.CodeUnauthenticated, "token")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		_, err := redeem(t, e, &sello.Tenant{ID: sello.NewID()}, sello.EnvTest, "SEED")
		wantError(t, err, sello.CodeNotFound)
		wantError(t, e.s.SetReceiverAuth(t.Context(), sello.NewID(), false), sello.CodeNotFound)
	})
	t.Run("TenantIsolation", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		seed := newSeed(e, a)
		plain, err := redeem(t, e, a, sello.EnvTest, seed)
		if err != nil {
			t.Fatal(err)
		}
		// The use of a's seed is a's: whether the value was issued to b is
		// the domain's to check (ReceiverSeed.Check), not the store's.
		if _, err := redeem(t, e, b, sello.EnvTest, seed); err != nil {
			t.Errorf("the same value at tenant b: %v", err)
		}
		if _, err := redeem(t, e, a, sello.EnvCert, seed); err != nil {
			t.Errorf("the same value in CerteCF: %v", err)
		}
		_, err = e.s.CheckReceiverToken(t.Context(), b.ID, sello.EnvTest, sello.HashReceiverToken(plain), e.clock.Peek())
		wantError(t, err, sello.CodeUnauthenticated)
		_, err = e.s.CheckReceiverToken(t.Context(), a.ID, sello.EnvProd, sello.HashReceiverToken(plain), e.clock.Peek())
		wantError(t, err, sello.CodeUnauthenticated)
	})
	t.Run("DeleteExpired", func(t *testing.T) {
		// Across tenants, the seeds and tokens expired at now go, the
		// others stay: a live seed is still used, a live token still
		// good.
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		type redeemed struct {
			tenant       *sello.Tenant
			seed, plain  string
			issued       time.Time
			seedExpired  bool
			tokenExpired bool
		}
		var all []redeemed
		for _, tn := range []*sello.Tenant{a, b} {
			for _, age := range []time.Duration{2 * sello.ReceiverTokenTTL, sello.ReceiverSeedTTL, sello.ReceiverSeedTTL - time.Second, 0} {
				r := redeemed{tenant: tn, seed: sello.NewID(), issued: now.Add(-age)}
				r.seedExpired, r.tokenExpired = age >= sello.ReceiverSeedTTL, age >= sello.ReceiverTokenTTL
				var err error
				if r.plain, err = redeemAt(t, e, tn, sello.EnvTest, r.seed, r.issued); err != nil {
					t.Fatal(err)
				}
				all = append(all, r)
			}
		}
		seeds, tokens, err := e.s.DeleteExpiredReceiverAuth(t.Context(), now)
		if err != nil {
			t.Fatal(err)
		} else if seeds != 4 || tokens != 2 {
			t.Errorf("deleted %d seeds and %d tokens, want 4 and 2", seeds, tokens)
		}
		for _, r := range all {
			_, err := e.s.CheckReceiverToken(t.Context(), r.tenant.ID, sello.EnvTest, sello.HashReceiverToken(r.plain), now)
			if got := err == nil; got == r.tokenExpired {
				t.Errorf("token issued %s ago: checks %v after the prune", now.Sub(r.issued), got)
			}
			// A seed still recorded is refused again; a forgotten one
			// (expired: the domain refuses it first) is not.
			_, err = redeemAt(t, e, r.tenant, sello.EnvTest, r.seed, now)
			if refused := sello.ErrorCodeOf(err) == sello.CodeUnauthenticated; refused == r.seedExpired {
				t.Errorf("seed issued %s ago: refused %v after the prune (%v)", now.Sub(r.issued), refused, err)
			}
		}
		if seeds, tokens, err := e.s.DeleteExpiredReceiverAuth(t.Context(), now.Add(-time.Hour)); err != nil || seeds != 0 || tokens != 0 {
			t.Errorf("prune of the past: %d seeds, %d tokens, %v; want none", seeds, tokens, err)
		}
	})
	t.Run("Setting", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		if a.ReceiverAuthOff {
			t.Fatal("a new tenant's receiver requires no token; want it to require one")
		}
		if err := e.s.SetReceiverAuth(t.Context(), a.ID, false); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			t    *sello.Tenant
			want bool
		}{{a, true}, {b, false}} {
			got, err := e.s.FindTenantByRNC(t.Context(), c.t.RNC)
			if err != nil {
				t.Fatal(err)
			} else if got.ReceiverAuthOff != c.want {
				t.Errorf("tenant %s: ReceiverAuthOff %v, want %v", c.t.RNC, got.ReceiverAuthOff, c.want)
			}
		}
	})
}
