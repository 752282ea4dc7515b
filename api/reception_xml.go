package api

import (
	"crypto/rsa"
	"crypto/x509"
	"errors"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// receptionXML is sello.ReceptionXML over the ecf and xmldsig packages:
// DGII's formats for the receiver services.
type receptionXML struct{}

// ReadECFHeader implements sello.ReceptionXML with ecf.ReadReceivedECF:
// the header and the XSD structure (ReadXML's answer, in Invalid) in one
// pass.
func (receptionXML) ReadECFHeader(data []byte) (*sello.InboundHeader, error) {
	rx, err := ecf.ReadReceivedECF(data)
	if err != nil {
		return nil, err
	}
	h := &rx.ECFHeader
	return &sello.InboundHeader{
		Type: h.TipoeCF, ENCF: h.ENCF, IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor,
		BuyerRNC: h.RNCComprador, IssueDate: h.FechaEmision, Total: h.MontoTotal, ITBIS: h.TotalITBIS, SignedAt: h.FechaHoraFirma,
		SecurityCode: h.SecurityCode, Invalid: rx.Invalid,
	}, nil
}

// ECFIdentity implements sello.ReceptionXML.
func (receptionXML) ECFIdentity(data []byte) (string, string) { return ecf.ECFIdentity(data) }

// ReadSeed implements sello.ReceptionXML with ecf.ParseSemilla.
func (receptionXML) ReadSeed(data []byte) (*sello.ReceiverSeed, error) {
	valor, fecha, err := ecf.ParseSemilla(data)
	if err != nil {
		return nil, err
	}
	return &sello.ReceiverSeed{Value: valor, IssuedAt: fecha}, nil
}

// ReadApproval implements sello.ReceptionXML with ecf.ParseACECF, whose
// VALIDATION_FAILED becomes INVALID_REQUEST with the same details, since
// DGII's contract answers 400.
func (receptionXML) ReadApproval(data []byte) (*sello.ReceivedApproval, error) {
	x, err := ecf.ParseACECF(data)
	if err != nil {
		var e *sello.Error
		if errors.As(err, &e) && e.Code == sello.CodeValidationFailed {
			return nil, sello.Errorf(sello.CodeInvalidRequest, "The ACECF is not valid: see details.").WithDetailsOf(e).WithErr(err)
		}
		return nil, err
	}
	a := &sello.ReceivedApproval{
		IssuerRNC: x.RNCEmisor, ENCF: x.ENCF, IssueDate: x.FechaEmision, Total: x.MontoTotal,
		BuyerRNC: x.RNCComprador, Status: sello.ApprovalApproved, DecidedAt: x.At,
	}
	if x.Estado == ecf.ApprovalRejected {
		a.Status, a.Reason = sello.ApprovalRejected, x.DetalleMotivoRechazo
	}
	return a, nil
}

// Verify implements sello.ReceptionXML with xmldsig.Verify, which refuses
// wrapped signatures.
func (receptionXML) Verify(data []byte) (*x509.Certificate, error) { return xmldsig.Verify(data) }

// SignAcuse implements sello.ReceptionXML.
func (receptionXML) SignAcuse(a sello.Acuse, key *rsa.PrivateKey, cert *x509.Certificate) ([]byte, error) {
	x := &ecf.ARECF{RNCEmisor: a.RNCEmisor, RNCComprador: a.RNCComprador, ENCF: a.ENCF, Estado: ecf.ReceiptReceived, At: a.At}
	if a.Code != 0 {
		x.Estado, x.CodigoMotivoNoRecibido = ecf.ReceiptNotReceived, ecf.NotReceivedReason(a.Code)
	}
	unsigned, err := x.XML()
	if err != nil {
		return nil, err
	}
	return (&xmldsig.Signer{Key: key, Cert: cert}).Sign(unsigned)
}
