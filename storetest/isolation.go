package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testTenantIsolation gives tenant A one of everything and checks that
// every tenant-scoped method called with tenant B's id neither sees nor
// changes it.
func testTenantIsolation(t *testing.T, open Open) {
	e := newEnv(t, open)
	ctx := t.Context()
	a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	const en = sello.EnvTest
	MustAddSequence(t, e.s, a.ID, en, sello.TypeCreditoFiscal, 1, 100)
	nd := newDoc(a.ID, en, sello.TypeCreditoFiscal)
	nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("hash-a")
	docA := MustCreateDocument(t, e.s, nd)
	keyA, plainA := sello.NewAPIKey(a.ID, en, "a", sello.Scopes, nil)
	if err := e.s.CreateAPIKey(ctx, keyA); err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	sign := signChange()
	sign.EventType, sign.RFCEXML = "", rfceXML // A keeps a single event
	docA = mustUpdate(t, e.s, docA, sign)
	now := e.clock.Peek()
	certA := MustAddCertificate(t, e.s, newCertificate(a.ID, en, "a", now.Add(-time.Hour), now.Add(24*time.Hour)))

	t.Run("Documents", func(t *testing.T) {
		_, err := e.s.FindDocument(ctx, b.ID, en, docA.ENCF)
		wantError(t, err, sello.CodeNotFound, docA.ENCF)
		if got, err := e.s.FindDocumentsByENCF(ctx, b.ID, en, []string{docA.ENCF}); err != nil || len(got) != 0 {
			t.Errorf("FindDocumentsByENCF: got %d, %v; want none", len(got), err)
		}
		if got, _, err := e.s.ListDocuments(ctx, b.ID, en, sello.DocumentFilter{}); err != nil || len(got) != 0 {
			t.Errorf("ListDocuments: got %d, %v; want none", len(got), err)
		}
	})
	t.Run("Lifecycle", func(t *testing.T) {
		testLifecycleIsolation(t, e, docA, b.ID, en)
	})
	t.Run("Certificates", func(t *testing.T) {
		testCertificateIsolation(t, e, certA, b.ID, en)
	})
	t.Run("Sequences", func(t *testing.T) {
		if got, err := e.s.FindSequences(ctx, b.ID, en); err != nil || len(got) != 0 {
			t.Errorf("FindSequences: got %d, %v; want none", len(got), err)
		}
		// B has no range, so A's cannot number B's documents.
		_, _, err := e.s.CreateDocument(ctx, newDoc(b.ID, en, sello.TypeCreditoFiscal))
		wantError(t, err, sello.CodeSequenceExhausted)
		explicit := newDoc(b.ID, en, sello.TypeCreditoFiscal)
		explicit.ENCF = encf("31", 2)
		_, _, err = e.s.CreateDocument(ctx, explicit)
		wantError(t, err, sello.CodeValidationFailed)
	})
	t.Run("NumbersPerTenant", func(t *testing.T) {
		MustAddSequence(t, e.s, b.ID, en, sello.TypeCreditoFiscal, 1, 100)
		explicit := newDoc(b.ID, en, sello.TypeCreditoFiscal)
		explicit.ENCF = docA.ENCF // A's number is free for B
		docB := MustCreateDocument(t, e.s, explicit)
		if docB.TenantID != b.ID || docB.ID == docA.ID {
			t.Errorf("got %+v, want B's own document", docB)
		}
		if got := MustCreateDocument(t, e.s, newDoc(b.ID, en, sello.TypeCreditoFiscal)).ENCF; got != encf("31", 2) {
			t.Errorf("B's next number: got %s, want %s", got, encf("31", 2))
		}
		if got, want := mustSequence(t, e.s, a.ID, en, sello.TypeCreditoFiscal, 1).Next, int64(2); got != want {
			t.Errorf("A's Next: got %d, want %d", got, want)
		}
		got, err := e.s.FindDocument(ctx, a.ID, en, docA.ENCF)
		if err != nil {
			t.Fatalf("FindDocument: %v", err)
		}
		deepEqual(t, "A's document", got, docA)
	})
	t.Run("IdempotencyKeys", func(t *testing.T) {
		nd := newDoc(b.ID, en, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("hash-a")
		doc, replayed, err := e.s.CreateDocument(ctx, nd)
		if err != nil || replayed || doc.ID == docA.ID || doc.TenantID != b.ID {
			t.Errorf("B with A's key: got %v, replayed %v, %v; want a new document of B", doc, replayed, err)
		}
	})
	t.Run("Events", func(t *testing.T) {
		for _, ev := range mustEvents(t, e.s, b.ID, en, 0) {
			if ev.TenantID != b.ID || ev.Document.ID == docA.ID {
				t.Errorf("B sees event %s of %s", ev.ID, ev.TenantID)
			}
		}
		if evsA := mustEvents(t, e.s, a.ID, en, 1); len(evsA) != 1 {
			t.Errorf("A's events: got %d, want 1", len(evsA))
		}
	})
	t.Run("APIKeys", func(t *testing.T) {
		if got := mustKeys(t, e.s, b.ID); len(got) != 0 {
			t.Errorf("FindAPIKeys(B): got %d keys, want none", len(got))
		}
		wantError(t, e.s.RevokeAPIKey(ctx, b.ID, keyA.ID, e.clock.Now()), sello.CodeNotFound)
		_, err := e.s.FindAPIKey(ctx, b.ID, keyA.ID)
		wantError(t, err, sello.CodeNotFound)
		if wrote, err := e.s.RecordAPIKeyUse(ctx, b.ID, keyA.ID, e.clock.Now(), "192.0.2.66", time.Minute); err != nil || wrote {
			t.Errorf("RecordAPIKeyUse(B, A's key): wrote %v, %v; want nothing", wrote, err)
		}
		k, tn, err := e.s.FindAPIKeyByHash(ctx, sello.HashAPIKey(plainA))
		if err != nil || k.RevokedAt != nil || tn.ID != a.ID {
			t.Errorf("A's key: got %+v of %v, %v; want it active and A's", k, tn, err)
		} else if k.FirstUsedAt != nil || k.LastUsedAt != nil || k.LastUsedAddress != "" {
			t.Errorf("A's key: used %v, %v from %q; want never (B's use must not count)", k.FirstUsedAt, k.LastUsedAt, k.LastUsedAddress)
		}
	})
	t.Run("TenantPlan", func(t *testing.T) {
		if err := e.s.UpdateTenantPlan(ctx, b.ID, sello.RatePlan{Name: "tiny", Rate: 1, Burst: 1}); err != nil {
			t.Fatalf("UpdateTenantPlan: %v", err)
		}
		got, err := e.s.FindTenantByID(ctx, a.ID)
		if err != nil || got.Plan != a.Plan {
			t.Errorf("A's plan: got %v, %v; want %v", got.Plan, err, a.Plan)
		}
	})
	t.Run("SequenceWarnings", func(t *testing.T) {
		s := MustAddSequence(t, e.s, a.ID, en, sello.TypeNotaDebito, 1, 10)
		testSequenceWarningIsolation(t, e, s, b.ID, en)
	})
}

// testEnvironmentIsolation does the same across environments of one tenant.
func testEnvironmentIsolation(t *testing.T, open Open) {
	e := newEnv(t, open)
	ctx := t.Context()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
	nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("hash-a")
	docTest := MustCreateDocument(t, e.s, nd)
	sign := signChange()
	sign.RFCEXML = rfceXML
	docTest = mustUpdate(t, e.s, docTest, sign)
	now := e.clock.Peek()
	certTest := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "test", now.Add(-time.Hour), now.Add(24*time.Hour)))

	t.Run("Lifecycle", func(t *testing.T) {
		testLifecycleIsolation(t, e, docTest, tn.ID, sello.EnvProd)
	})
	t.Run("Certificates", func(t *testing.T) {
		testCertificateIsolation(t, e, certTest, tn.ID, sello.EnvProd)
	})
	t.Run("Documents", func(t *testing.T) {
		_, err := e.s.FindDocument(ctx, tn.ID, sello.EnvProd, docTest.ENCF)
		wantError(t, err, sello.CodeNotFound, docTest.ENCF)
		if got, err := e.s.FindDocumentsByENCF(ctx, tn.ID, sello.EnvProd, []string{docTest.ENCF}); err != nil || len(got) != 0 {
			t.Errorf("FindDocumentsByENCF: got %d, %v; want none", len(got), err)
		}
		if got, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvProd, sello.DocumentFilter{}); err != nil || len(got) != 0 {
			t.Errorf("ListDocuments: got %d, %v; want none", len(got), err)
		}
		if got, err := e.s.ListEvents(ctx, tn.ID, sello.EnvProd, sello.EventFilter{}); err != nil || len(got) != 0 {
			t.Errorf("ListEvents: got %d, %v; want none", len(got), err)
		}
	})
	t.Run("Sequences", func(t *testing.T) {
		if got, err := e.s.FindSequences(ctx, tn.ID, sello.EnvProd); err != nil || len(got) != 0 {
			t.Errorf("FindSequences: got %d, %v; want none", len(got), err)
		}
		_, _, err := e.s.CreateDocument(ctx, newDoc(tn.ID, sello.EnvProd, sello.TypeCreditoFiscal))
		wantError(t, err, sello.CodeSequenceExhausted, "eCF")
	})
	t.Run("NumbersPerEnvironment", func(t *testing.T) {
		MustAddSequence(t, e.s, tn.ID, sello.EnvProd, sello.TypeCreditoFiscal, 1, 100)
		nd := newDoc(tn.ID, sello.EnvProd, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("hash-a")
		doc, replayed, err := e.s.CreateDocument(ctx, nd)
		if err != nil || replayed || doc.ENCF != docTest.ENCF || doc.ID == docTest.ID || doc.Environment != sello.EnvProd {
			t.Errorf("eCF with TesteCF's key: got %v, replayed %v, %v; want a new eCF document numbered %s", doc, replayed, err, docTest.ENCF)
		}
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1).Next; got != 2 {
			t.Errorf("TesteCF Next: got %d, want 2", got)
		}
	})
	t.Run("SequenceWarnings", func(t *testing.T) {
		s := MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeNotaDebito, 1, 10)
		testSequenceWarningIsolation(t, e, s, tn.ID, sello.EnvProd)
	})
}

// testLifecycleIsolation checks that tenant tenantID in env (another tenant
// or environment than doc's) can neither read nor change doc.
func testLifecycleIsolation(t *testing.T, e env, doc *sello.Document, tenantID string, en sello.Environment) {
	ctx := t.Context()
	_, err := e.s.FindDocumentByID(ctx, tenantID, en, doc.ID)
	wantError(t, err, sello.CodeNotFound, doc.ID)
	ch := sello.DocumentChange{Status: sello.StatusFailed, Reason: "hijacked", TrackID: "trk-evil", SignedXML: []byte("<evil/>"),
		EventType: sello.EventECFFailed}
	_, err = e.s.UpdateDocument(ctx, tenantID, en, doc.ID, ch)
	wantError(t, err, sello.CodeNotFound, doc.ID)
	_, err = e.s.FindDocumentXML(ctx, tenantID, en, doc.ENCF)
	wantError(t, err, sello.CodeNotFound, doc.ENCF)
	_, err = e.s.FindDocumentRFCE(ctx, tenantID, en, doc.ID)
	wantError(t, err, sello.CodeNotFound, doc.ID)
	_, err = e.s.FindDocumentHistory(ctx, tenantID, en, doc.ID)
	wantError(t, err, sello.CodeNotFound, doc.ID)

	deepEqual(t, "the owner's document", mustDocumentByID(t, e.s, doc), doc)
	if xml, err := e.s.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF); err != nil || !bytes.Equal(xml, signedXML) {
		t.Errorf("the owner's XML: got %q, %v", xml, err)
	}
	if h := mustHistory(t, e.s, doc); len(h) != 2 {
		t.Errorf("the owner's history: got %+v, want 2 rows", h)
	}
	for _, ev := range mustEvents(t, e.s, tenantID, en, 0) {
		if ev.Type == sello.EventECFFailed {
			t.Errorf("event written for another tenant or environment: %+v", ev)
		}
	}
}

// testCertificateIsolation checks that tenant tenantID in env (another
// tenant or environment than c's) neither sees c nor can warn about it.
func testCertificateIsolation(t *testing.T, e env, c *sello.Certificate, tenantID string, en sello.Environment) {
	ctx := t.Context()
	now := e.clock.Peek()
	if got := mustCertificates(t, e.s, tenantID, en); len(got) != 0 {
		t.Errorf("FindCertificates: got %d, want none", len(got))
	}
	_, err := e.s.FindSigningCertificate(ctx, tenantID, en, now)
	wantError(t, err, sello.CodeNotFound)
	other := *c
	other.TenantID, other.Environment = tenantID, en
	_, err = e.s.WarnCertificateExpiring(ctx, &other, now)
	wantError(t, err, sello.CodeNotFound, c.ID)
	if got, err := e.s.FindSigningCertificate(ctx, c.TenantID, c.Environment, now); err != nil || got.ID != c.ID {
		t.Errorf("the owner's signing certificate: got %v, %v", got, err)
	}
	// The warning was not spent by the other call.
	for _, ev := range mustEvents(t, e.s, c.TenantID, c.Environment, 0) {
		if ev.Type == sello.EventCertificateExpiring {
			t.Errorf("certificate.expiring written: %+v", ev)
		}
	}
	// The same certificate is another record for the other tenant or
	// environment, not a conflict.
	dup := *c
	dup.ID, dup.TenantID, dup.Environment = "", tenantID, en
	MustAddCertificate(t, e.s, &dup)
}
