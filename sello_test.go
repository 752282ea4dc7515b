package sello_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestErrorCodeOf(t *testing.T) {
	if got := sello.ErrorCodeOf(nil); got != "" {
		t.Fatalf("nil: %q", got)
	}
	if got, want := sello.ErrorCodeOf(errors.New("boom")), sello.CodeInternal; got != want {
		t.Fatalf("plain error: %v, want %v", got, want)
	}
	wrapped := fmt.Errorf("create: %w", sello.Errorf(sello.CodeConflict, "Taken."))
	if got, want := sello.ErrorCodeOf(wrapped), sello.CodeConflict; got != want {
		t.Fatalf("wrapped: %v, want %v", got, want)
	}
	if got, want := sello.ErrorMessageOf(wrapped), "Taken."; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	if got := sello.ErrorMessageOf(errors.New("secret detail")); strings.Contains(got, "secret") {
		t.Fatalf("internal error leaked: %q", got)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	one := sello.ValidationError([]sello.ErrorDetail{{Path: "a", Message: "b"}})
	two := sello.ValidationError([]sello.ErrorDetail{{Path: "a"}, {Path: "b"}})
	if !strings.Contains(one.Message, "1 problem.") || !strings.Contains(two.Message, "2 problems.") {
		t.Fatalf("messages: %q, %q", one.Message, two.Message)
	}
}

func TestParseEnvironment(t *testing.T) {
	for _, env := range sello.Environments {
		if got, err := sello.ParseEnvironment(string(env)); err != nil || got != env {
			t.Fatalf("ParseEnvironment(%q)=%v, %v", env, got, err)
		}
	}
	for _, in := range []string{"", "testecf", "ECF", "Prod"} {
		if _, err := sello.ParseEnvironment(in); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("ParseEnvironment(%q) err=%v", in, err)
		}
	}
	if got, want := sello.EnvProd.Slug(), "ecf"; got != want {
		t.Fatalf("slug %q, want %q", got, want)
	}
}

func TestParseEnvironmentAnyCase(t *testing.T) {
	for in, want := range map[string]sello.Environment{
		"TesteCF": sello.EnvTest, "testecf": sello.EnvTest, "TESTECF": sello.EnvTest,
		"CerteCF": sello.EnvCert, "certecf": sello.EnvCert,
		"eCF": sello.EnvProd, "ecf": sello.EnvProd, "ECF": sello.EnvProd,
	} {
		if got, err := sello.ParseEnvironmentAnyCase(in); err != nil || got != want {
			t.Errorf("ParseEnvironmentAnyCase(%q)=%q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "test", "ecf ", "Prod"} {
		_, err := sello.ParseEnvironmentAnyCase(in)
		if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(err.Error(), "TesteCF, CerteCF or eCF") {
			t.Errorf("ParseEnvironmentAnyCase(%q) err=%v", in, err)
		}
	}
}

func TestParseScopes(t *testing.T) {
	got, err := sello.ParseScopes("ecf:create, status:read,ecf:create")
	if err != nil {
		t.Fatal(err)
	}
	if want := "ecf:create,status:read"; sello.JoinScopes(got) != want {
		t.Fatalf("got %q, want %q", sello.JoinScopes(got), want)
	}
	for _, in := range []string{"", "ecf:create,", "admin", "ecf:*"} {
		if _, err := sello.ParseScopes(in); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("ParseScopes(%q) err=%v", in, err)
		}
	}
}

func TestAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for _, env := range sello.Environments {
		for range 100 {
			k, plain := sello.NewAPIKey("t1", env, "n", sello.Scopes, nil)
			if !strings.HasPrefix(plain, sello.APIKeyPrefix(env)) || len(plain) != len(sello.APIKeyPrefix(env))+32 {
				t.Fatalf("key %q has the wrong shape", plain)
			}
			for _, c := range plain[len(sello.APIKeyPrefix(env)):] {
				if !strings.ContainsRune("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", c) {
					t.Fatalf("key %q has a non-base62 character", plain)
				}
			}
			if seen[plain] {
				t.Fatalf("duplicate key %q", plain)
			}
			seen[plain] = true
			if string(k.Hash) != string(sello.HashAPIKey(plain)) || k.Last4 != plain[len(plain)-4:] {
				t.Fatalf("record does not match key")
			}
			if got := sello.APIKeyEnvironment(plain); got != env {
				t.Fatalf("APIKeyEnvironment=%v, want %v", got, env)
			}
		}
	}
	now := time.Now()
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	for _, tt := range []struct {
		name string
		k    sello.APIKey
		want bool
	}{
		{"Active", sello.APIKey{}, true},
		{"NotYetExpired", sello.APIKey{ExpiresAt: &future}, true},
		{"Expired", sello.APIKey{ExpiresAt: &past}, false},
		{"Revoked", sello.APIKey{RevokedAt: &past}, false},
	} {
		if got := tt.k.Active(now); got != tt.want {
			t.Errorf("%s: Active=%v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDate(t *testing.T) {
	d, err := sello.ParseDate("31-12-2027")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.String(), "2027-12-31"; got != want {
		t.Fatalf("String %q, want %q", got, want)
	}
	if got, want := d.DGII(), "31-12-2027"; got != want {
		t.Fatalf("DGII %q, want %q", got, want)
	}
	if d2, _ := sello.ParseDate("2027-12-31"); d2 != d {
		t.Fatalf("ISO form parsed to %v", d2)
	}
	for _, in := range []string{"31-02-2027", "2027/12/31", "", "1-1-2027"} {
		if _, err := sello.ParseDate(in); err == nil {
			t.Fatalf("ParseDate(%q) accepted", in)
		}
	}
}

func TestSequenceExpired(t *testing.T) {
	exp := sello.Date{Year: 2026, Month: time.November, Day: 22}
	s := &sello.Sequence{ExpiresOn: &exp}
	// 23:59 on the expiry day in the DR is 03:59 UTC the next day: still valid.
	if s.Expired(time.Date(2026, 11, 23, 3, 59, 0, 0, time.UTC)) {
		t.Fatal("expired during its last day in the DR")
	}
	if !s.Expired(time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)) {
		t.Fatal("not expired the day after, in the DR")
	}
	if (&sello.Sequence{}).Expired(time.Now()) {
		t.Fatal("a range without expiry expired")
	}
}

func TestNextSequence(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	old := sello.Date{Year: 2025, Month: 12, Day: 31}
	seqs := []*sello.Sequence{
		{ID: "expired", Environment: sello.EnvTest, Type: "31", From: 1, To: 10, Next: 1, ExpiresOn: &old},
		{ID: "full", Environment: sello.EnvTest, Type: "31", From: 11, To: 20, Next: 21},
		{ID: "ok", Environment: sello.EnvTest, Type: "31", From: 21, To: 30, Next: 25},
		{ID: "other-env", Environment: sello.EnvCert, Type: "32", From: 1, To: 10, Next: 1},
	}
	if s, err := sello.NextSequence(seqs, sello.EnvTest, "31", now); err != nil || s.ID != "ok" {
		t.Fatalf("got %v, %v", s, err)
	}
	for _, tt := range []struct {
		name string
		env  sello.Environment
		typ  sello.DocumentType
		seqs []*sello.Sequence
		msg  string
	}{
		{"ErrNone", sello.EnvTest, "32", seqs, "No e-NCF range of type E32 is registered in TesteCF. Request a new range of type E32 from DGII"},
		{"ErrUsedUp", sello.EnvTest, "31", seqs[1:2], "Every e-NCF range of type E31 in TesteCF is used up (1 range). Request a new range of type E31 from DGII"},
		{"ErrExpired", sello.EnvTest, "31", seqs[:1], "Every e-NCF range of type E31 in TesteCF is expired (the last one, 1–10, on 2025-12-31). Request"},
		{"ErrBoth", sello.EnvTest, "31", seqs[:2], "is used up (1) or expired (1; the last one, 1–10, on 2025-12-31)."},
		{"ErrOtherEnv", sello.EnvCert, "31", seqs, "No e-NCF range of type E31 is registered in CerteCF."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sello.NextSequence(tt.seqs, tt.env, tt.typ, now)
			msg := sello.ErrorMessageOf(err)
			if sello.ErrorCodeOf(err) != sello.CodeSequenceExhausted || !strings.Contains(msg, tt.msg) ||
				!strings.HasSuffix(msg, "register it with POST /"+string(tt.env)+"/secuencias or `sello sequences add`; the document used no number.") {
				t.Fatalf("err %v, want SEQUENCE_EXHAUSTED %q", err, tt.msg)
			}
		})
	}
	if s, err := sello.SequenceOf(seqs, sello.EnvTest, sello.ENCF{Type: "31", Number: 22}, now); err != nil || s.ID != "ok" {
		t.Fatalf("SequenceOf: %v, %v", s, err)
	}
	_, err := sello.SequenceOf(seqs, sello.EnvTest, sello.ENCF{Type: "31", Number: 5}, now)
	var e *sello.Error
	if !errors.As(err, &e) || e.Code != sello.CodeValidationFailed || e.Details[0].Path != sello.ENCFPath || !strings.Contains(e.Details[0].Message, "expired on 31-12-2025") {
		t.Fatalf("expired range: %v", err)
	}
	_, err = sello.SequenceOf(seqs, sello.EnvTest, sello.ENCF{Type: "31", Number: 99}, now)
	if !errors.As(err, &e) || e.Code != sello.CodeValidationFailed || !strings.Contains(e.Details[0].Message, "lies in no registered range") {
		t.Fatalf("no range: %v", err)
	}
}

func TestGCRA(t *testing.T) {
	plan := sello.RatePlan{Name: "p", Rate: 10, Burst: 5}
	l := sello.NewMemoryRateLimiter()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.Now = func() time.Time { return now }
	for i := range 5 {
		d, _ := l.Allow(t.Context(), "k", plan)
		if !d.Allowed || d.Remaining != 4-i {
			t.Fatalf("request %d: %+v, want allowed with %d remaining", i, d, 4-i)
		}
	}
	d, _ := l.Allow(t.Context(), "k", plan)
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 100*time.Millisecond {
		t.Fatalf("6th request: %+v, want refused with a retry ≤ 100ms", d)
	}
	if d2, _ := l.Allow(t.Context(), "other", plan); !d2.Allowed {
		t.Fatal("keys are not independent")
	}
	now = now.Add(d.RetryAfter)
	if d, _ := l.Allow(t.Context(), "k", plan); !d.Allowed {
		t.Fatalf("after RetryAfter: %+v", d)
	}
	now = now.Add(time.Second)
	if d, _ := l.Allow(t.Context(), "k", plan); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("after refill: %+v, want 4 remaining", d)
	}
}

func TestDocumentResourceDGIIMessagesNeverNull(t *testing.T) {
	d := &sello.Document{Type: "31", DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado"}}
	b, err := json.Marshal(d.Resource())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"mensajes":[]`) {
		t.Fatalf("mensajes is not [] in %s", b)
	}
	if d.DGII.Mensajes != nil {
		t.Fatal("Resource changed the document")
	}
}

// TestDocumentResourceBuyerRNC: the resource's buyerRnc is the document's
// RNCComprador, and null (never "", never left out) when it has none.
func TestDocumentResourceBuyerRNC(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    *sello.Document
		want string
	}{
		{"Buyer", &sello.Document{Type: sello.TypeCreditoFiscal, BuyerRNC: "131880681"}, `"buyerRnc":"131880681"`},
		{"Cedula", &sello.Document{Type: sello.TypeConsumo, BuyerRNC: "40200000009"}, `"buyerRnc":"40200000009"`},
		{"ConsumerWithoutOne", &sello.Document{Type: sello.TypeConsumo}, `"buyerRnc":null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.d.Resource())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Errorf("%s, want %s", b, tt.want)
			}
		})
	}
}

// TestResourceBuyerSide checks that a document's resource promises no
// delivery or commercial approval that Sello will not make: not_applicable
// for the types never exchanged with a buyer and for documents that will not
// be accepted, not_sent for the rest, and no approval before a verdict, even
// for documents stored with the pending values of earlier versions.
func TestResourceBuyerSide(t *testing.T) {
	pending := func(d *sello.Document) {
		d.Delivery = sello.Delivery{Status: sello.DeliveryPending}
		d.CommercialApproval = &sello.CommercialApproval{Status: sello.ApprovalPending}
	}
	type testCase struct {
		name         string
		typ          sello.DocumentType
		status       sello.Status
		mod          func(d *sello.Document)
		wantDelivery string
		wantApproval string // "" for null
	}
	tests := []testCase{
		{"QueuedB2B", sello.TypeCreditoFiscal, sello.StatusQueuedForSigning, nil, sello.DeliveryNotSent, ""},
		{"AcceptedB2B", sello.TypeCreditoFiscal, sello.StatusAccepted, pending, sello.DeliveryPending, ""},
		{"AcceptedConditionalDebitNote", sello.TypeNotaDebito, sello.StatusAcceptedConditional, pending, sello.DeliveryPending, ""},
		{"NotElectronic", sello.TypeCreditoFiscal, sello.StatusAccepted, func(d *sello.Document) { d.Delivery = sello.Delivery{Status: sello.DeliveryNotElectronic} }, sello.DeliveryNotElectronic, ""},
		{"SubmittedCreditNote", sello.TypeNotaCredito, sello.StatusSubmitted, pending, sello.DeliveryNotSent, ""},
		{"SignedSpecialRegime", sello.TypeRegimenesEspeciales, sello.StatusSigned, pending, sello.DeliveryNotSent, ""},
		{"RejectedB2B", sello.TypeCreditoFiscal, sello.StatusRejected, pending, sello.DeliveryNotApplicable, ""},
		{"FailedB2B", sello.TypeCreditoFiscal, sello.StatusFailed, pending, sello.DeliveryNotApplicable, ""},
		{"Delivered", sello.TypeCreditoFiscal, sello.StatusAccepted, func(d *sello.Document) {
			d.Delivery = sello.Delivery{Status: sello.DeliveryDelivered}
			d.CommercialApproval = &sello.CommercialApproval{Status: sello.ApprovalApproved}
		}, sello.DeliveryDelivered, sello.ApprovalApproved},
	}
	for _, typ := range []sello.DocumentType{sello.TypeConsumo, sello.TypeCompras, sello.TypeGastosMenores, sello.TypeGubernamental, sello.TypeExportaciones, sello.TypePagosExterior} {
		tests = append(tests, testCase{"AcceptedType" + string(typ), typ, sello.StatusAccepted, pending, sello.DeliveryNotApplicable, ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &sello.Document{Type: tt.typ, Status: tt.status, Delivery: sello.Delivery{Status: sello.DeliveryNotSent}}
			if tt.mod != nil {
				tt.mod(d)
			}
			r := d.Resource()
			if got := r.Delivery.Status; got != tt.wantDelivery {
				t.Errorf("delivery.status = %q, want %q", got, tt.wantDelivery)
			}
			got := ""
			if r.CommercialApproval != nil {
				got = r.CommercialApproval.Status
			}
			if got != tt.wantApproval {
				t.Errorf("commercialApproval.status = %q, want %q (\"\" for null)", got, tt.wantApproval)
			}
		})
	}
}

func TestMasterKey(t *testing.T) {
	k, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	sealed := k.Seal([]byte("private key"), []byte("aad-1"))
	if strings.Contains(string(sealed), "private key") {
		t.Fatal("plaintext visible in sealed value")
	}
	if got, err := k.Open(sealed, []byte("aad-1")); err != nil || string(got) != "private key" {
		t.Fatalf("Open: %q, %v", got, err)
	}
	if _, err := k.Open(sealed, []byte("aad-2")); err == nil {
		t.Fatal("opened with the wrong additional data")
	}
	other, _ := sello.ParseMasterKey(sello.GenerateMasterKey())
	if _, err := other.Open(sealed, []byte("aad-1")); err == nil {
		t.Fatal("opened with another master key")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := k.Open(sealed, []byte("aad-1")); err == nil {
		t.Fatal("opened a tampered value")
	}
	for _, bad := range []string{"", "not base64!", "c2hvcnQ="} {
		if _, err := sello.ParseMasterKey(bad); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("ParseMasterKey(%q): %v", bad, err)
		}
	}
}

func TestNewCertificate(t *testing.T) {
	mk, _ := sello.ParseMasterKey(sello.GenerateMasterKey())
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Prueba", SerialNumber: "IDCDO-00100000001"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	cert, _ := x509.ParseCertificate(der)

	c, err := sello.NewCertificate("t1", sello.EnvTest, cert, key, mk)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SelfSigned || c.SerialNumber != "7" || len(c.Fingerprint) != 64 || !c.Valid(time.Now()) || c.Valid(time.Now().Add(2*time.Hour)) {
		t.Fatalf("record: selfSigned=%v serial=%s fingerprint=%q", c.SelfSigned, c.SerialNumber, c.Fingerprint)
	}
	plain, err := mk.Open(c.SealedKey, sello.CertificateKeyAAD(c))
	if err != nil {
		t.Fatal(err)
	}
	back, err := x509.ParsePKCS8PrivateKey(plain)
	if err != nil || !key.Equal(back) {
		t.Fatalf("sealed key does not open to the key: %v", err)
	}
	moved := *c
	moved.TenantID = "t2"
	if _, err := mk.Open(c.SealedKey, sello.CertificateKeyAAD(&moved)); err == nil {
		t.Fatal("a sealed key opened for another tenant")
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	if _, err := sello.NewCertificate("t1", sello.EnvTest, cert, other, mk); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
		t.Fatalf("mismatched key: %v", err)
	}
}

func TestViaRFCE(t *testing.T) {
	for _, tt := range []struct {
		typ   sello.DocumentType
		total string
		want  bool
	}{
		{"32", "249999.99", true}, {"32", "250000.00", false}, {"32", "1180.00", true},
		{"31", "1180.00", false}, {"32", "", false},
	} {
		if got := (&sello.Document{Type: tt.typ, Total: tt.total}).ViaRFCE(); got != tt.want {
			t.Errorf("type %s total %q: %v, want %v", tt.typ, tt.total, got, tt.want)
		}
	}
}

// TestCheckCertificateHolder: DGII's certificates name a person's cédula,
// which passes; one naming another RNC, or no identifier, is refused.
func TestCheckCertificateHolder(t *testing.T) {
	serial, orgID := []int{2, 5, 4, 5}, []int{2, 5, 4, 97}
	subject := func(attrs ...any) *x509.Certificate {
		var names []pkix.AttributeTypeAndValue
		for i := 0; i < len(attrs); i += 2 {
			names = append(names, pkix.AttributeTypeAndValue{Type: attrs[i].([]int), Value: attrs[i+1]})
		}
		return &x509.Certificate{Subject: pkix.Name{CommonName: "Juan Pérez", Names: names}}
	}
	for _, tc := range []struct {
		name string
		cert *x509.Certificate
		rnc  string
		msg  string // "" for a pass
	}{
		{"Cedula", subject(serial, "IDCDO-00100000001"), "131793916", ""},
		{"CedulaDashes", subject(serial, "001-0000000-1"), "131793916", ""},
		{"Passport", subject(serial, "PASDO-AB123456"), "131793916", ""},
		{"SameRNC", subject(serial, "RNC-131793916"), "131793916", ""},
		{"SameRNCBare", subject(serial, "131793916"), "131793916", ""},
		{"SameRNCOrganizationIdentifier", subject(serial, "IDCDO-00100000001", orgID, "VATDO-131793916"), "131793916", ""},
		{"PersonTenant", subject(serial, "IDCDO-00100000001"), "00100000001", ""},
		{"ErrOtherRNC", subject(serial, "RNC-130000002"), "131793916", "names RNC 130000002, not the tenant's 131793916"},
		{"ErrOtherRNCBare", subject(serial, "130000002"), "131793916", "names RNC 130000002"},
		{"ErrOtherRNCBesideCedula", subject(serial, "IDCDO-00100000001", orgID, "VATDO-130000002"), "131793916", "names RNC 130000002"},
		{"ErrNoIdentifier", subject(), "131793916", "names no RNC, cédula or passport"},
		{"ErrNoDigits", subject(serial, "ABC"), "131793916", "names no RNC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sello.CheckCertificateHolder(tc.cert, tc.rnc)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(sello.ErrorMessageOf(err), tc.msg) {
				t.Fatalf("got %v, want INVALID_REQUEST with %q", err, tc.msg)
			}
		})
	}
}

// TestDGIIResultVerdict: DGII's codigos 1, 4 and 2 are the three verdicts;
// 0 (No encontrado) and 3 (En Proceso) are none.
func TestDGIIResultVerdict(t *testing.T) {
	for codigo, want := range map[int]sello.Status{1: sello.StatusAccepted, 4: sello.StatusAcceptedConditional, 2: sello.StatusRejected} {
		if got, err := (&sello.DGIIResult{Codigo: new(codigo)}).Verdict(); err != nil || got != want {
			t.Errorf("codigo %d: %q, %v; want %q", codigo, got, err, want)
		}
	}
	for _, codigo := range []int{0, 3, 5} {
		if got, err := (&sello.DGIIResult{Codigo: new(codigo), Estado: "En Proceso"}).Verdict(); err == nil || got != "" {
			t.Errorf("codigo %d: %q, %v; want no verdict", codigo, got, err)
		}
	}
	if got, err := (&sello.DGIIResult{Estado: "Rechazado"}).Verdict(); err == nil || got != "" {
		t.Errorf("no codigo: %q, %v; want no verdict", got, err)
	}
}
