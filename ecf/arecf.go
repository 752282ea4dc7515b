package ecf

import (
	"strconv"
	"time"
)

// ReceiptState is ARECF's Estado.
type ReceiptState int

// The two receipt states.
const (
	ReceiptReceived    ReceiptState = 0 // e-CF Recibido
	ReceiptNotReceived ReceiptState = 1 // e-CF No Recibido
)

// NotReceivedReason is ARECF's CodigoMotivoNoRecibido.
type NotReceivedReason int

// DGII's reasons for not receiving an e-CF.
const (
	ReasonSpecification NotReceivedReason = 1 // Error de especificación
	ReasonSignature     NotReceivedReason = 2 // Error de firma digital
	ReasonDuplicate     NotReceivedReason = 3 // Envío duplicado
	ReasonWrongBuyer    NotReceivedReason = 4 // RNC Comprador no corresponde
)

// ARECF is DGII's Acuse de Recibo (ARECF.xsd): what a receiver answers to
// an e-CF posted to it. It says received or not, nothing about commercial
// acceptance.
type ARECF struct {
	RNCEmisor    string // the e-CF's issuer
	RNCComprador string // the receiver
	ENCF         string // the e-CF's e-NCF
	Estado       ReceiptState
	// CodigoMotivoNoRecibido is required when Estado is ReceiptNotReceived
	// and must be zero otherwise.
	CodigoMotivoNoRecibido NotReceivedReason
	At                     time.Time // FechaHoraAcuseRecibo, written in GMT-4
}

// XML returns the unsigned <ARECF> (compact, with the XML declaration; the
// signer appends the Signature to the root). Returns VALIDATION_FAILED with
// a detail per invalid field, paths starting at "ARECF".
func (a *ARECF) XML() ([]byte, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	w := xmlWriter{b: make([]byte, 0, 384)}
	w.raw(XMLDeclaration)
	w.raw("<ARECF><DetalleAcusedeRecibo>")
	w.text("Version", "1.0")
	w.text("RNCEmisor", a.RNCEmisor)
	w.text("RNCComprador", a.RNCComprador)
	w.text("eNCF", a.ENCF)
	w.text("Estado", strconv.Itoa(int(a.Estado)))
	if a.CodigoMotivoNoRecibido != 0 {
		w.text("CodigoMotivoNoRecibido", strconv.Itoa(int(a.CodigoMotivoNoRecibido)))
	}
	w.text("FechaHoraAcuseRecibo", dgiiDateTime(a.At))
	w.raw("</DetalleAcusedeRecibo></ARECF>")
	return w.b, nil
}

func (a *ARECF) validate() error {
	var v validation
	const p = "ARECF."
	v.rnc(p+"RNCEmisor", a.RNCEmisor)
	v.rnc(p+"RNCComprador", a.RNCComprador)
	v.encf(p+"eNCF", a.ENCF)
	switch a.Estado {
	case ReceiptReceived:
		if a.CodigoMotivoNoRecibido != 0 {
			v.add(p+"CodigoMotivoNoRecibido", "Must be absent when Estado is 0 (received).")
		}
	case ReceiptNotReceived:
		if a.CodigoMotivoNoRecibido < ReasonSpecification || a.CodigoMotivoNoRecibido > ReasonWrongBuyer {
			v.add(p+"CodigoMotivoNoRecibido", "Required when Estado is 1 (not received): 1 specification error, 2 signature error, 3 duplicate, 4 wrong buyer RNC.")
		}
	default:
		v.add(p+"Estado", "Must be 0 (received) or 1 (not received).")
	}
	v.time(p+"FechaHoraAcuseRecibo", a.At)
	return v.err()
}
