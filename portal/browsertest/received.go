package browsertest

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/ecf/ecftest"
	"github.com/sello-do/sello/storetest"
)

// The DGII answers Received records about a document: none yet (DGII
// pending), codigo 0 (not_found) or 1 (accepted).
const (
	DGIINone     = -1
	DGIINotFound = 0
	DGIIAccepted = 1
)

// Received stores, for tenant in env, the e-CF numbered n that a supplier
// sent to its receiver (ecftest.Received, signed by
// ecftest.SupplierSigner, its signer recorded), as the receiver stores
// it, and records DGII's answer codigo about it (DGIINone for none yet),
// as the confirmation job does.
func (s *Server) Received(tb testing.TB, tenant *sello.Tenant, env sello.Environment, n int64, codigo int) *sello.InboundDocument {
	tb.Helper()
	x := ecftest.Received(tb, tenant.RNC, n, s.Clock.Now())
	h, err := ecf.ParseECFHeader(x)
	if err != nil {
		tb.Fatal(err)
	}
	d := storetest.MustCreateInbound(tb, s.Store, &sello.InboundDocument{
		TenantID: tenant.ID, Environment: env, Type: h.TipoeCF, ENCF: h.ENCF,
		IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor, BuyerRNC: h.RNCComprador,
		IssueDate: h.FechaEmision, Total: h.MontoTotal, XML: x, Acuse: []byte("<ARECF/>"),
		SecurityCode: h.SecurityCode, Signer: sello.NewSigner(ecftest.SupplierSigner(tb).Cert),
	})
	switch codigo {
	case DGIINone:
		return d
	case DGIIAccepted:
		return storetest.MustRecordDGII(tb, s.Store, tenant.ID, env, d.ID, 1, "Aceptado")
	}
	return storetest.MustRecordDGII(tb, s.Store, tenant.ID, env, d.ID, codigo, "No encontrado")
}
