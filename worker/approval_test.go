package worker_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/webhook"
)

// inboundSeq numbers the inbound documents of the approval tests.
var inboundSeq atomic.Int64

// inbound stores an E31 the tenant received from issuer, of total, and
// DGII's acceptance of it.
func (d *deliveryTest) inbound(t *testing.T, issuer, total string) *sello.InboundDocument {
	t.Helper()
	n := inboundSeq.Add(1)
	encf := fmt.Sprintf("E31%010d", n)
	in := storetest.MustCreateInbound(t, d.st, &sello.InboundDocument{
		TenantID: d.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: encf,
		IssuerRNC: issuer, IssuerName: "Proveedor Simulado SRL", BuyerRNC: d.tenant.RNC,
		IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: total,
		XML: []byte("<ECF/>"), Acuse: []byte("<ARECF/>"),
	})
	return storetest.MustRecordDGII(t, d.st, in.TenantID, in.Environment, in.ID, 1, "Aceptado")
}

// approved waits (20 s at most) for the approval of in to be sent or
// failed.
func (d *deliveryTest) approved(t *testing.T, in *sello.InboundDocument) *sello.InboundApproval {
	t.Helper()
	var got *sello.InboundApproval
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if got, err = d.st.FindInboundApproval(t.Context(), in.TenantID, in.Environment, in.ID); err != nil {
			t.Fatal(err)
		}
		return got.Status != sello.ApprovalSendPending
	}) {
		t.Fatalf("approval of %s still pending after 20 s: %+v", in.ENCF, got)
	}
	return got
}

// approvalReceipt is what the simulated issuers got of in's approval.
func (d *deliveryTest) approvalReceipt(in *sello.InboundDocument) *dgiisim.ApprovalReceipt {
	for _, r := range d.sim.ApprovalReceipts() {
		if r.RNCEmisor == in.IssuerRNC && r.ENCF == in.ENCF {
			return &r
		}
	}
	return nil
}

// lastInboundEvent is the last event of the inbound document in, once the
// feed lists one of type typ.
func (d *deliveryTest) lastInboundEvent(t *testing.T, in *sello.InboundDocument, typ sello.EventType) *sello.Event {
	t.Helper()
	return d.lastEvent(t, &sello.Document{ID: in.ID, TenantID: in.TenantID, Environment: in.Environment}, typ)
}

func TestApproval(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		d := mustDeliveryTest(t, st, webhook.Options{AllowLoopback: true})
		sent := sello.ApprovalLeg{Status: sello.ApprovalSendSent}
		for _, tc := range []struct {
			name, issuer string
			req          sello.ApprovalRequest
			issuerLeg    sello.ApprovalLeg
			refused      int // the 503s the issuer's receiver answered first
			event        sello.EventType
		}{
			{"Authenticated", dgiisim.RNCDGIITest, sello.ApprovalRequest{Estado: sello.EstadoAprobado}, sent, 0, sello.EventInboundApprovalSent},
			{"RejectedNoAuthentication", dgiisim.RNCDirectoryNoAuth, sello.ApprovalRequest{Estado: sello.EstadoRechazado, Motivo: "Precio distinto al acordado"}, sent, 0, sello.EventInboundApprovalSent},
			{"IssuerDownThenBack", dgiisim.RNCReceiverDown, sello.ApprovalRequest{Estado: sello.EstadoAprobado}, sent, dgiisim.ReceiverDownPosts, sello.EventInboundApprovalSent},
			{"IssuerDownForGood", dgiisim.RNCAcceptanceDown, sello.ApprovalRequest{Estado: sello.EstadoAprobado},
				sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "receiver: aprobacioncomercial: HTTP 503"}, sello.ApprovalJobMaxAttempts, sello.EventInboundApprovalFailed},
			// Every 4xx but 429 is final: a 409 fails at the first post
			// (it used to be retried for about a day).
			{"IssuerConflict", dgiisim.RNCAcceptanceConflict, sello.ApprovalRequest{Estado: sello.EstadoAprobado},
				sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "receiver: aprobacioncomercial: HTTP 409"}, 1, sello.EventInboundApprovalFailed},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in := d.inbound(t, tc.issuer, "1180")
				tc.req.InboundDocumentID = in.ID
				if _, err := st.ApproveInboundDocument(t.Context(), in.TenantID, in.Environment, tc.req); err != nil {
					t.Fatal(err)
				}
				got := d.approved(t, in)
				// DGII's answer to its leg is recorded, in the API's shape.
				if got.DGII.Status != sello.ApprovalSendSent || got.DGII.Error != "" || got.DGII.Answer == nil || got.DGII.Answer.Codigo == nil || *got.DGII.Answer.Codigo != 1 ||
					got.Issuer.Answer != nil || !strings.HasPrefix(got.Issuer.Error, tc.issuerLeg.Error) || got.Issuer.Status != tc.issuerLeg.Status {
					t.Fatalf("legs: issuer %+v, dgii %+v; want issuer %+v, dgii sent", got.Issuer, got.DGII, tc.issuerLeg)
				}
				rc := d.approvalReceipt(in)
				if rc == nil || rc.Refused != tc.refused {
					t.Fatalf("approval receipt %+v: want %d refused", rc, tc.refused)
				}
				if tc.issuerLeg.Status == sello.ApprovalSendSent {
					if rc.Posts != 1 || !bytes.Equal(rc.ACECF, got.ACECF) {
						t.Errorf("the issuer got %d posts; want one, of the stored ACECF", rc.Posts)
					}
					if (tc.req.Estado == sello.EstadoAprobado) != (rc.Estado == "1") {
						t.Errorf("ACECF Estado %s for %s", rc.Estado, tc.req.Estado)
					}
				}
				if !bytes.Contains(got.ACECF, []byte("<MontoTotal>1180.00</MontoTotal>")) ||
					!bytes.Contains(got.ACECF, []byte("<RNCComprador>"+d.tenant.RNC+"</RNCComprador>")) {
					t.Errorf("ACECF: %s", got.ACECF)
				}
				if tc.req.Motivo != "" && !bytes.Contains(got.ACECF, []byte("<DetalleMotivoRechazo>"+tc.req.Motivo+"</DetalleMotivoRechazo>")) {
					t.Errorf("ACECF without the motivo: %s", got.ACECF)
				}
				if ev := d.lastInboundEvent(t, in, tc.event); ev == nil || ev.Type != tc.event || ev.Data.Payload["approvalId"] != got.ID {
					t.Errorf("last event: got %+v, want %s", ev, tc.event)
				}
			})
		}

	})
}

func TestApprovalBlocked(t *testing.T) {
	// Without the loopback allowance the issuer's receiver, on 127.0.0.1,
	// is refused by the SSRF guard: that leg fails at once; DGII (not a
	// webhook client) still gets its copy.
	d := mustDeliveryTest(t, sqlitetest.MustOpen(t), webhook.Options{})
	in := d.inbound(t, dgiisim.RNCDirectoryNoAuth, "1180.00")
	if _, err := d.st.ApproveInboundDocument(t.Context(), in.TenantID, in.Environment, sello.ApprovalRequest{InboundDocumentID: in.ID, Estado: sello.EstadoAprobado}); err != nil {
		t.Fatal(err)
	}
	got := d.approved(t, in)
	if got.Status != sello.ApprovalSendFailed || got.DGII.Status != sello.ApprovalSendSent || !strings.Contains(got.Issuer.Error, "loopback") {
		t.Fatalf("approval: got %+v, want failed, the issuer blocked", got)
	}
	if rc := d.approvalReceipt(in); rc != nil {
		t.Errorf("the issuer got the approval: %+v", rc)
	}
}

// TestApprovalACECFOracles checks the ACECFs Sello signs, approved and
// rejected, against DGII's XSD with xmllint and their signature with
// xmlsec1.
func TestApprovalACECFOracles(t *testing.T) {
	oracle.Require(t, "xmllint")
	oracle.Require(t, "xmlsec1")
	d := mustDeliveryTest(t, sqlitetest.MustOpen(t), webhook.Options{AllowLoopback: true})
	for _, req := range []sello.ApprovalRequest{
		{Estado: sello.EstadoAprobado},
		{Estado: sello.EstadoRechazado, Motivo: "Mercancía dañada & incompleta"},
	} {
		in := d.inbound(t, dgiisim.RNCDirectoryNoAuth, "25")
		req.InboundDocumentID = in.ID
		if _, err := d.st.ApproveInboundDocument(t.Context(), in.TenantID, in.Environment, req); err != nil {
			t.Fatal(err)
		}
		got := d.approved(t, in)
		if out, ok := oracle.Xmllint(t, "ACECF.xsd", got.ACECF); !ok {
			t.Fatalf("xmllint (%s): %s\n%s", req.Estado, out, got.ACECF)
		}
		if out, ok := oracle.Xmlsec1Verify(t, d.signer.Cert, got.ACECF); !ok {
			t.Fatalf("xmlsec1 (%s): %s\n%s", req.Estado, out, got.ACECF)
		}
	}
}
