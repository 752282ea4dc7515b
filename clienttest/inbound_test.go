package clienttest_test

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/xmldsig"
)

const supplierRNC = "131880681"

// mustSignedECF is a type-31 e-CF numbered n from the supplier to the
// tenant, signed by a certificate of the supplier's signer.
func mustSignedECF(t *testing.T, n int64) (xml []byte, signer *sello.Signer) {
	t.Helper()
	now := time.Now()
	m := ecf.SampleInvoice(supplierRNC, sello.TodayInDR(now))
	m["ECF"].(map[string]any)["Encabezado"].(map[string]any)["Comprador"].(map[string]any)["RNCComprador"] = rnc
	body, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ecf.Parse(body, ecf.Issuance{TenantRNC: supplierRNC, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := d.Number(sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}, &sello.Sequence{ExpiresOn: &expires}); err != nil {
		t.Fatal(err)
	}
	unsigned, err := d.XML(now.Truncate(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "JUAN PEREZ", SerialNumber: "IDCDO-00100000001"}, now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	xml, err = (&xmldsig.Signer{Key: key, Cert: cert}).Sign(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	return xml, sello.NewSigner(cert)
}

// mustInbound stores the signed e-CF numbered n as received by the tenant
// in TesteCF, confirmed by DGII when confirmed.
func (a *realAPI) mustInbound(t *testing.T, n int64, confirmed bool) (*sello.InboundDocument, []byte) {
	t.Helper()
	xml, signer := mustSignedECF(t, n)
	h, err := ecf.ParseECFHeader(xml)
	if err != nil {
		t.Fatal(err)
	}
	d := storetest.MustCreateInbound(t, a.db, &sello.InboundDocument{
		TenantID: a.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: h.ENCF,
		IssuerRNC: supplierRNC, IssuerName: "Proveedor Ejemplo SRL", BuyerRNC: rnc,
		IssueDate: sello.TodayInDR(time.Now()), Total: "1180.00",
		XML: xml, Acuse: []byte("<ARECF/>"), Signer: signer, SecurityCode: h.SecurityCode,
	})
	if confirmed {
		d = storetest.MustRecordDGII(t, a.db, a.tenant.ID, sello.EnvTest, d.ID, 1, "Aceptado")
	}
	return d, xml
}

// TestInboundDocuments reads the documents suppliers sent through the SDK,
// and approves them commercially, against Sello's real API.
func TestInboundDocuments(t *testing.T) {
	a := mustRealAPI(t)
	c := a.client(t, a.key)
	ctx := t.Context()
	first, firstXML := a.mustInbound(t, 1, true)
	second, _ := a.mustInbound(t, 2, false)

	var listed []client.InboundDocument
	t.Run("List", func(t *testing.T) {
		page, err := c.ListInboundDocuments(ctx, client.ListInboundDocumentsParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 2 || page.HasMore || page.NextCursor != "" || page.CorrelationID == "" {
			t.Fatalf("page %+v, want both documents and no more", page)
		}
		listed = page.Data
		got := listed[1] // newest received first
		if got.ID != first.ID || got.Type != "E31" || got.ENCF != first.ENCF || got.Issuer != (client.InboundIssuer{RNC: supplierRNC, Name: "Proveedor Ejemplo SRL"}) ||
			got.BuyerRNC != rnc || got.IssueDate != first.IssueDate.String() || got.Total != "1180.00" || got.Approval != client.ApprovalPending ||
			got.SecurityCode == nil || *got.SecurityCode != first.SecurityCode || got.ReceivedAt.IsZero() || got.UpdatedAt.IsZero() {
			t.Fatalf("first document %+v", got)
		}
		if s := got.Signer; s == nil || s.SerialNumber != "IDCDO-00100000001" || s.Fingerprint != first.Signer.Fingerprint || !strings.Contains(s.Subject, "JUAN PEREZ") || s.NotAfter.IsZero() {
			t.Errorf("signer %+v", got.Signer)
		}
		if d := got.DGII; d == nil || d.Status != client.DGIIConfirmationAccepted || d.Codigo == nil || *d.Codigo != 1 || d.CheckedAt == nil || d.Mensaje == nil || *d.Mensaje != "Aceptado" {
			t.Errorf("DGII's confirmation %+v", got.DGII)
		}
		if d := listed[0].DGII; listed[0].ID != second.ID || d == nil || d.Status != client.DGIIConfirmationPending || d.Codigo != nil || d.CheckedAt != nil || d.Mensaje != nil {
			t.Errorf("second document %+v, DGII %+v: want pending with nulls", listed[0], d)
		}
	})

	t.Run("ListFiltered", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			p    client.ListInboundDocumentsParams
			want []string
		}{
			{"ENCF", client.ListInboundDocumentsParams{Issuer: supplierRNC, ENCF: first.ENCF}, []string{first.ID}},
			{"DGII", client.ListInboundDocumentsParams{DGII: client.DGIIConfirmationPending}, []string{second.ID}},
			{"Type", client.ListInboundDocumentsParams{Type: "32"}, nil},
			{"From", client.ListInboundDocumentsParams{From: time.Now().Add(time.Hour)}, nil},
			{"To", client.ListInboundDocumentsParams{To: time.Now().Add(time.Hour), Issuer: supplierRNC}, []string{second.ID, first.ID}},
		} {
			page, err := c.ListInboundDocuments(ctx, tt.p)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			var got []string
			for _, d := range page.Data {
				got = append(got, d.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			}
		}
	})

	t.Run("EveryPage", func(t *testing.T) {
		page, err := c.ListInboundDocuments(ctx, client.ListInboundDocumentsParams{Limit: 1})
		if err != nil || len(page.Data) != 1 || !page.HasMore || page.NextCursor == "" {
			t.Fatalf("limit 1: %+v, %v", page, err)
		}
		var got []string
		for d, err := range c.InboundDocuments(ctx, client.ListInboundDocumentsParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, d.ID)
		}
		if want := []string{second.ID, first.ID}; !reflect.DeepEqual(got, want) {
			t.Fatalf("every page: %v, want %v", got, want)
		}
	})

	t.Run("GetXMLAndPDF", func(t *testing.T) {
		res, err := c.GetInboundDocument(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Document, listed[1]) || res.CorrelationID == "" {
			t.Fatalf("got %+v, want the listed %+v", res.Document, listed[1])
		}
		xml, err := c.GetInboundDocumentXML(ctx, first.ID)
		if err != nil || !bytes.Equal(xml, firstXML) {
			t.Fatalf("XML: %.40q, %v; want the e-CF as posted", xml, err)
		}
		pdf, err := c.GetInboundDocumentPDF(ctx, first.ID)
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("PDF: %.20q, %v", pdf, err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := c.GetInboundDocument(ctx, "01976a20-0000-7000-8000-000000000000"); !client.IsNotFound(err) {
			t.Errorf("get: %v, want NOT_FOUND", err)
		}
		if _, err := c.GetInboundDocumentXML(ctx, "nope"); !client.IsNotFound(err) {
			t.Errorf("XML: %v, want NOT_FOUND", err)
		}
		if _, err := c.GetInboundDocumentPDF(ctx, "nope"); !client.IsNotFound(err) {
			t.Errorf("PDF: %v, want NOT_FOUND", err)
		}
		if _, err := c.GetInboundDocument(ctx, ""); err == nil || client.IsNotFound(err) {
			t.Errorf("empty id: %v, want an error before any request", err)
		}
	})

	t.Run("ErrInvalidRequest", func(t *testing.T) {
		_, err := c.ListInboundDocuments(ctx, client.ListInboundDocumentsParams{Issuer: "12", DGII: "maybe"})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeInvalidRequest || e.HTTPStatus != 400 || len(e.Details) != 2 {
			t.Fatalf("error %v, want INVALID_REQUEST with a detail for issuer and one for dgii", err)
		}
	})

	var approval client.Approval
	t.Run("CreateApproval", func(t *testing.T) {
		res, err := c.CreateApproval(ctx, client.CreateApprovalRequest{InboundDocumentID: first.ID, Estado: client.EstadoRechazado, Motivo: "Precio distinto al acordado"})
		if err != nil {
			t.Fatal(err)
		}
		approval = res.Approval
		if approval.ID == "" || approval.InboundDocumentID != first.ID || approval.Type != "E31" || approval.ENCF != first.ENCF || approval.IssuerRNC != supplierRNC ||
			approval.Estado != client.EstadoRechazado || approval.Motivo == nil || *approval.Motivo != "Precio distinto al acordado" ||
			approval.Status != client.ApprovalStatusPending || approval.Issuer != (client.ApprovalLeg{Status: client.ApprovalStatusPending}) ||
			approval.DGII != (client.ApprovalLeg{Status: client.ApprovalStatusPending}) || approval.CreatedAt.IsZero() || res.CorrelationID == "" {
			t.Fatalf("approval %+v", approval)
		}
		doc, err := c.GetInboundDocument(ctx, first.ID)
		if err != nil || doc.Document.Approval != client.ApprovalRejected {
			t.Fatalf("the document after: %+v, %v; want approval rejected", doc, err)
		}
	})

	t.Run("ErrApprovalConflict", func(t *testing.T) {
		_, err := c.CreateApproval(ctx, client.CreateApprovalRequest{InboundDocumentID: first.ID, Estado: client.EstadoAprobado})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeConflict || e.HTTPStatus != 409 {
			t.Fatalf("a second verdict: %v, want CONFLICT", err)
		}
	})

	t.Run("ErrApprovalUnconfirmed", func(t *testing.T) {
		_, err := c.CreateApproval(ctx, client.CreateApprovalRequest{InboundDocumentID: second.ID, Estado: client.EstadoAprobado})
		if !client.IsCode(err, client.CodeValidationFailed) {
			t.Fatalf("approving a document DGII has not confirmed: %v, want VALIDATION_FAILED", err)
		}
	})

	t.Run("ReadApprovals", func(t *testing.T) {
		// DGII takes the ACECF; the issuer's receiver is not reached.
		if _, err := a.db.RecordApprovalOutcome(ctx, a.tenant.ID, sello.EnvTest, first.ID, sello.ApprovalOutcome{
			ACECF:  []byte("<ACECF/>"),
			DGII:   &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado", Mensajes: []sello.DGIIMessage{}}},
			Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "the issuer's receiver answered 503"},
		}); err != nil {
			t.Fatal(err)
		}
		res, err := c.GetApproval(ctx, approval.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Approval
		if got.ID != approval.ID || got.Status != client.ApprovalStatusFailed || got.Issuer.Status != client.ApprovalStatusFailed ||
			got.Issuer.Error == nil || *got.Issuer.Error != "the issuer's receiver answered 503" || got.Issuer.Answer != nil ||
			got.DGII.Status != client.ApprovalStatusSent || got.DGII.Error != nil || got.DGII.Answer == nil || got.DGII.Answer.Codigo != 1 || got.DGII.Answer.Estado != "Aceptado" {
			t.Fatalf("approval after its legs %+v (issuer %+v, dgii %+v)", got, got.Issuer, got.DGII)
		}
		page, err := c.ListApprovals(ctx, client.ListApprovalsParams{InboundDocumentID: first.ID})
		if err != nil || len(page.Data) != 1 || !reflect.DeepEqual(page.Data[0], got) {
			t.Fatalf("list by inbound document: %+v, %v", page, err)
		}
		if page, err := c.ListApprovals(ctx, client.ListApprovalsParams{Status: client.ApprovalStatusPending}); err != nil || len(page.Data) != 0 {
			t.Fatalf("pending approvals: %+v, %v; want none", page, err)
		}
		var ids []string
		for a, err := range c.Approvals(ctx, client.ListApprovalsParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		if len(ids) != 1 || ids[0] != approval.ID {
			t.Fatalf("every approval: %v", ids)
		}
	})

	t.Run("ErrApprovalNotFound", func(t *testing.T) {
		// An inbound document's id is not its approval's.
		if _, err := c.GetApproval(ctx, first.ID); !client.IsNotFound(err) {
			t.Fatalf("error %v, want NOT_FOUND", err)
		}
		if _, err := c.ListApprovals(ctx, client.ListApprovalsParams{Status: "maybe"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("unknown status: %v, want INVALID_REQUEST", err)
		}
	})
}
