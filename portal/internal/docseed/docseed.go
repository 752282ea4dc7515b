// Package docseed gives a tenant issued documents for the portal's tests
// and figures: real e-CFs (ecf.Parse of the sample invoice, numbered from
// a registered range), moved through their lifecycle with the store's own
// changes, as the worker moves them (signed, sent to DGII, DGII's verdict,
// the delivery to the buyer) and with the buyer's commercial verdicts as
// the receiver records them. Each step writes its status-history row and
// its event, as in production; no job is queued, so a running worker
// leaves them alone.
package docseed

import (
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// Story is how far a document went, and what its buyer said.
type Story struct {
	// Type is the e-CF type: 31 (the default) or 32.
	Type sello.DocumentType
	// Buyer is the RNCComprador ("131880681" when empty; a 32 has none,
	// "Consumidor final").
	Buyer string
	// Units is the quantity of the one item at RD$ 500.00 plus 18%
	// ITBIS (the sample invoice's 2 when 0: RD$ 1,180.00).
	Units int
	// Status is where the document stops: queued_for_signing, signed,
	// submitted, accepted (the default), accepted_conditional, rejected or
	// failed (from queued, with FailureReason).
	Status sello.Status
	// Delivery is the delivery's outcome of an accepted 31: delivered,
	// failed; "" leaves it under way (pending).
	Delivery string
	// Verdicts are the buyer's commercial verdicts, in the order received.
	Verdicts []Verdict
	// FailureReason is a failed document's reason.
	FailureReason string
}

// Verdict is one ACECF the buyer sent.
type Verdict struct {
	// Status is sello.ApprovalApproved or sello.ApprovalRejected.
	Status string
	// Reason is the rejection's DetalleMotivoRechazo.
	Reason string
	// Holder is the signer's identity (serialNumber, IDCDO-…); two
	// verdicts of different holders that differ make a dispute.
	Holder, Name string
}

// Seeder issues documents for one tenant in one environment.
type Seeder struct {
	Store  sello.Store
	Tenant *sello.Tenant
	Env    sello.Environment
	// Sign signs each document with a self-signed certificate (RSA 2048:
	// a millisecond or two each); otherwise the stored "signed XML" is
	// the unsigned e-CF and the security code made up.
	Sign bool
	// Now is the clock of the documents' contents (FechaEmision, the
	// signature's time, the buyers' verdicts); time.Now when nil. The
	// store's own clock times its rows.
	Now func() time.Time

	signer *xmldsig.Signer
	ranges map[sello.DocumentType]bool
}

// Issue creates one document and moves it as st says; it fails the test
// on any error.
func (s *Seeder) Issue(tb testing.TB, st Story) *sello.Document {
	tb.Helper()
	d, err := s.issue(tb, st)
	if err != nil {
		var e *sello.Error
		if errors.As(err, &e) {
			tb.Fatalf("docseed: %v %+v", err, e.Details)
		}
		tb.Fatalf("docseed: %v", err)
	}
	return d
}

func (s *Seeder) issue(tb testing.TB, st Story) (*sello.Document, error) {
	ctx := tb.Context()
	if st.Type == "" {
		st.Type = sello.TypeCreditoFiscal
	}
	if st.Status == "" {
		st.Status = sello.StatusAccepted
	}
	if err := s.addRange(tb, st.Type); err != nil {
		return nil, err
	}
	doc, err := s.parse(st)
	if err != nil {
		return nil, err
	}
	d, _, err := s.Store.CreateDocument(ctx, sello.DocumentDraft{
		TenantID: s.Tenant.ID, Environment: s.Env, Type: doc.Type(),
		Prepare: func(encf sello.ENCF, seq *sello.Sequence) (*sello.PreparedDocument, error) {
			if err := doc.Number(encf, seq); err != nil {
				return nil, err
			}
			payload, err := json.Marshal(doc)
			if err != nil {
				return nil, err
			}
			return &sello.PreparedDocument{Payload: payload, Total: doc.Total(), BuyerRNC: doc.BuyerRNC(), IssueDate: doc.IssueDate()}, nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	update := func(ch sello.DocumentChange) error {
		var err error
		d, err = s.Store.UpdateDocument(ctx, s.Tenant.ID, s.Env, d.ID, ch)
		return err
	}
	if st.Status == sello.StatusQueuedForSigning {
		return d, nil
	}
	if st.Status == sello.StatusFailed {
		reason := st.FailureReason
		if reason == "" {
			reason = "No valid signing certificate for " + string(s.Env) + ": add the taxpayer's certificate (sello certificates add) and create the document again."
		}
		return d, update(sello.DocumentChange{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusFailed,
			Reason: reason, EventType: sello.EventECFFailed, Severity: "error", Message: reason})
	}
	// Signed.
	signedAt := s.now().Truncate(time.Second)
	xml, err := doc.XML(signedAt)
	if err != nil {
		return nil, err
	}
	code := "A1b2C3"
	if s.Sign {
		if s.signer == nil {
			key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: s.Tenant.Name, SerialNumber: "RNC-" + s.Tenant.RNC}, time.Now().AddDate(1, 0, 0))
			if err != nil {
				return nil, err
			}
			s.signer = &xmldsig.Signer{Key: key, Cert: cert}
		}
		if xml, code, err = s.signer.SignCode(xml); err != nil {
			return nil, err
		}
	}
	if err := update(sello.DocumentChange{
		From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned,
		SignedXML: xml, SecurityCode: code, SignedAt: &signedAt, QRURL: ecf.TimbreURL(s.Env, doc, code, signedAt),
		EventType: sello.EventECFSigned, Message: fmt.Sprintf("Document %s signed (security code %s).", d.ENCF, code),
	}); err != nil || st.Status == sello.StatusSigned {
		return d, err
	}
	// Sent to DGII.
	trackID := sello.NewID()
	if err := update(sello.DocumentChange{
		From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: trackID,
		EventType: sello.EventECFSubmitted, Message: "Sent to DGII; trackId " + trackID + ".",
	}); err != nil || st.Status == sello.StatusSubmitted {
		return d, err
	}
	// DGII's verdict.
	one, two, four := 1, 2, 4
	spent := true
	ch := sello.DocumentChange{From: []sello.Status{sello.StatusSubmitted}, Status: st.Status}
	switch st.Status {
	case sello.StatusAccepted:
		ch.DGII = &sello.DGIIResult{Codigo: &one, Estado: "Aceptado"}
		ch.EventType, ch.Severity = sello.EventECFAccepted, "info"
	case sello.StatusAcceptedConditional:
		ch.DGII = &sello.DGIIResult{Codigo: &four, Estado: "Aceptado Condicional", Mensajes: []sello.DGIIMessage{{Codigo: &four, Valor: "El campo FechaVencimientoSecuencia no corresponde con la secuencia autorizada."}}}
		ch.EventType, ch.Severity = sello.EventECFAcceptedConditional, "warning"
	case sello.StatusRejected:
		ch.DGII = &sello.DGIIResult{Codigo: &two, Estado: "Rechazado", Mensajes: []sello.DGIIMessage{{Codigo: &two, Valor: "El RNC del comprador no se encuentra registrado."}}, SecuenciaUtilizada: &spent}
		ch.EventType, ch.Severity = sello.EventECFRejected, "error"
	default:
		return nil, fmt.Errorf("no story ends in %q", st.Status)
	}
	ch.Reason = ch.DGII.Estado
	ch.Message = "DGII: " + ch.DGII.Estado + "."
	for _, m := range ch.DGII.Mensajes {
		ch.Message += " " + m.Valor
	}
	if d.Type.B2B() && st.Status != sello.StatusRejected {
		ch.Delivery = &sello.Delivery{Status: sello.DeliveryPending} // the worker queues its job too
	}
	if err := update(ch); err != nil || st.Status == sello.StatusRejected {
		return d, err
	}
	// The delivery to the buyer.
	switch st.Delivery {
	case sello.DeliveryDelivered:
		err = update(sello.DeliveryOutcome(d, sello.Delivery{Status: sello.DeliveryDelivered}, nil))
	case sello.DeliveryFailed:
		err = update(sello.DeliveryOutcome(d, sello.Delivery{Status: sello.DeliveryFailed,
			Reason: fmt.Sprintf("Could not deliver %s to the buyer %s: the buyer's receiver answered 503 Service Unavailable", d.ENCF, d.BuyerRNC)}, nil))
	}
	if err != nil {
		return nil, fmt.Errorf("delivery: %w", err)
	}
	// The buyer's verdicts.
	for i, v := range st.Verdicts {
		a := &sello.ReceivedApproval{
			TenantID: s.Tenant.ID, Environment: s.Env, IssuerRNC: s.Tenant.RNC, ENCF: d.ENCF,
			IssueDate: d.IssueDate, Total: d.Total, BuyerRNC: d.BuyerRNC,
			Status: v.Status, Reason: v.Reason, DecidedAt: s.now().Add(-time.Duration(len(st.Verdicts)-i) * time.Minute).Truncate(time.Second),
			Signer: signer(v),
		}
		if d, _, err = s.Store.ReceiveCommercialApproval(ctx, a); err != nil {
			return nil, fmt.Errorf("approval: %w", err)
		}
	}
	return d, nil
}

// signer is the certificate that signed a verdict's ACECF.
func signer(v Verdict) *sello.Signer {
	name := v.Name
	if name == "" {
		name = "María Pérez"
	}
	sum := sha256.Sum256([]byte(v.Holder))
	return &sello.Signer{
		Subject:      "CN=" + name + ",SERIALNUMBER=" + v.Holder + ",O=Cliente Ejemplo SRL,C=DO",
		SerialNumber: v.Holder,
		Issuer:       "CN=Avansi CA,O=Avansi,C=DO",
		NotBefore:    time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2028, 1, 15, 0, 0, 0, 0, time.UTC),
		Fingerprint:  hex.EncodeToString(sum[:]),
		Trusted:      true,
	}
}

// parse builds the e-CF of st: the sample invoice of the tenant, issued
// today, with st's type, buyer and units.
func (s *Seeder) parse(st Story) (*ecf.Document, error) {
	sample := ecf.SampleInvoice(s.Tenant.RNC, sello.TodayInDR(s.now()))
	e := sample["ECF"].(map[string]any)
	enc := e["Encabezado"].(map[string]any)
	enc["Emisor"].(map[string]any)["RazonSocialEmisor"] = s.Tenant.Name
	enc["IdDoc"].(map[string]any)["TipoeCF"] = string(st.Type)
	if st.Type == sello.TypeConsumo {
		enc["Comprador"] = map[string]any{"RazonSocialComprador": "Consumidor final"}
	} else if st.Buyer != "" {
		enc["Comprador"].(map[string]any)["RNCComprador"] = st.Buyer
	}
	if st.Units > 0 {
		e["DetallesItems"].(map[string]any)["Item"].([]any)[0].(map[string]any)["CantidadItem"] = st.Units
	}
	body, err := json.Marshal(sample)
	if err != nil {
		return nil, err
	}
	return ecf.Parse(body, ecf.Issuance{TenantRNC: s.Tenant.RNC, Now: s.now()})
}

func (s *Seeder) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// addRange registers, once, a range of typ large enough for any test.
func (s *Seeder) addRange(tb testing.TB, typ sello.DocumentType) error {
	if s.ranges[typ] {
		return nil
	}
	seq := &sello.Sequence{TenantID: s.Tenant.ID, Environment: s.Env, Type: typ, From: 1, To: 9_999_999}
	if typ.HasSequenceExpiry() {
		seq.ExpiresOn = &sello.Date{Year: 2099, Month: time.December, Day: 31}
	}
	// CONFLICT: another Seeder of the tenant registered it.
	if err := s.Store.AddSequence(tb.Context(), seq); err != nil && sello.ErrorCodeOf(err) != sello.CodeConflict {
		return fmt.Errorf("range of %s: %w", typ, err)
	}
	if s.ranges == nil {
		s.ranges = map[sello.DocumentType]bool{}
	}
	s.ranges[typ] = true
	return nil
}
