package sello_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestApprovalRequestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    sello.ApprovalRequest
		path string // the detail expected, "" for none
	}{
		{"OK", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "aprobado"}, ""},
		{"OKRejected", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "rechazado", Motivo: strings.Repeat("ñ", 250)}, ""},
		{"ErrNoID", sello.ApprovalRequest{Estado: "aprobado"}, "inboundDocumentId"},
		{"ErrEstado", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "approved"}, "estado"},
		{"ErrMotivoMissing", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "rechazado", Motivo: " "}, "motivo"},
		{"ErrMotivoTooLong", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "rechazado", Motivo: strings.Repeat("a", 251)}, "motivo"},
		{"ErrMotivoOnApproval", sello.ApprovalRequest{InboundDocumentID: "x", Estado: "aprobado", Motivo: "no"}, "motivo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Check()
			if tc.path == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e, ok := err.(*sello.Error)
			if !ok || e.Code != sello.CodeInvalidRequest || len(e.Details) != 1 || e.Details[0].Path != tc.path {
				t.Fatalf("got %#v, want INVALID_REQUEST at %s", err, tc.path)
			}
		})
	}
}

func TestNewInboundApproval(t *testing.T) {
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	d := &sello.InboundDocument{ID: "in1", TenantID: "t", Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: "E310000000001", IssuerRNC: "131880681", Approval: sello.ApprovalPending}
	t.Run("OK", func(t *testing.T) {
		a, err := sello.NewInboundApproval(d, sello.ApprovalRequest{InboundDocumentID: "in1", Estado: "rechazado", Motivo: "Precio incorrecto"}, now)
		if err != nil {
			t.Fatal(err)
		}
		if a.State != sello.ApprovalRejected || a.Reason != "Precio incorrecto" || a.Status != sello.ApprovalSendPending || a.Job().InboundDocumentID != "in1" {
			t.Fatalf("got %+v", a)
		}
	})
	for _, tc := range []struct {
		name string
		typ  sello.DocumentType
		was  string
		code sello.ErrorCode
	}{
		{"ErrType32", sello.TypeConsumo, sello.ApprovalPending, sello.CodeValidationFailed},
		{"ErrType47", sello.TypePagosExterior, sello.ApprovalPending, sello.CodeValidationFailed},
		{"ErrTwice", sello.TypeCreditoFiscal, sello.ApprovalApproved, sello.CodeConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dd := *d
			dd.Type, dd.Approval = tc.typ, tc.was
			_, err := sello.NewInboundApproval(&dd, sello.ApprovalRequest{InboundDocumentID: "in1", Estado: "aprobado"}, now)
			if got := sello.ErrorCodeOf(err); got != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
}

func TestInboundApprovalApply(t *testing.T) {
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	d := &sello.InboundDocument{ID: "in1", TenantID: "t", Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: "E310000000001", IssuerRNC: "131880681", Approval: sello.ApprovalPending}
	newApproval := func(t *testing.T) *sello.InboundApproval {
		a, err := sello.NewInboundApproval(d, sello.ApprovalRequest{InboundDocumentID: "in1", Estado: "aprobado"}, now)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	sent, failed := &sello.ApprovalLeg{Status: sello.ApprovalSendSent}, &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "HTTP 400"}
	t.Run("Sent", func(t *testing.T) {
		a := newApproval(t)
		if ev, err := a.Apply(sello.ApprovalOutcome{ACECF: []byte("<ACECF/>"), DGII: sent}, now); err != nil || ev != nil {
			t.Fatalf("one leg: event %v, err %v; want none", ev, err)
		}
		ev, err := a.Apply(sello.ApprovalOutcome{Issuer: sent}, now)
		if err != nil || ev == nil || ev.Type != sello.EventInboundApprovalSent || a.Status != sello.ApprovalSendSent || string(a.ACECF) != "<ACECF/>" {
			t.Fatalf("got %+v, %v, %+v", ev, err, a)
		}
		if _, err := a.Apply(sello.ApprovalOutcome{Issuer: sent}, now); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("again: got %v, want CONFLICT", err)
		}
	})
	t.Run("Failed", func(t *testing.T) {
		a := newApproval(t)
		ev, err := a.Apply(sello.ApprovalOutcome{Issuer: failed, DGII: sent}, now)
		if err != nil || ev == nil || ev.Type != sello.EventInboundApprovalFailed || a.Status != sello.ApprovalSendFailed {
			t.Fatalf("got %+v, %v, %+v", ev, err, a)
		}
		if want := "The commercial approval of E310000000001 could not be sent (the issuer: HTTP 400)."; ev.Data.Message != want {
			t.Errorf("message: got %q, want %q", ev.Data.Message, want)
		}
	})
	t.Run("ErrLegDone", func(t *testing.T) {
		a := newApproval(t)
		if _, err := a.Apply(sello.ApprovalOutcome{DGII: sent}, now); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Apply(sello.ApprovalOutcome{DGII: failed}, now); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("got %v, want CONFLICT", err)
		}
	})
}
