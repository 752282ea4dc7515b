package pdf

import (
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// RenderReceived renders the printed representation of an e-CF a supplier
// sent to a tenant's receiver, as the tenant's own are rendered, from the
// XML the supplier signed (ecf.ReadXML): with the supplier's security
// code, signature time and timbre QR. The API's GET
// /{env}/documentos-recibidos/{id}/pdf and the portal's Recibidos both
// serve it. Returns VALIDATION_FAILED for a document stored before the
// receiver read e-CFs whole and that does not read.
func RenderReceived(env sello.Environment, xml []byte) ([]byte, error) {
	doc, err := ecf.ReadXML(xml)
	if err != nil {
		return nil, err
	}
	h, err := ecf.ParseECFHeader(xml)
	if err != nil {
		return nil, err
	}
	return Render(doc, Meta{
		Environment:  env,
		ENCF:         h.ENCF,
		SecurityCode: h.SecurityCode,
		SignedAt:     h.FechaHoraFirma,
		QRURL:        ecf.TimbreURL(env, doc, h.SecurityCode, h.FechaHoraFirma),
	})
}
