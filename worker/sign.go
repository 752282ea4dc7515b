package worker

import (
	"fmt"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// signDocument returns the change that signs doc at now.
func signDocument(doc *sello.Document, signer *xmldsig.Signer, now time.Time) (*sello.DocumentChange, error) {
	d, err := ecf.Decode(doc.Payload)
	if err != nil {
		return nil, fmt.Errorf("decode stored document: %w", err)
	}
	signedAt := now.Truncate(time.Second)
	unsigned, err := d.XML(signedAt)
	if err != nil {
		return nil, fmt.Errorf("build xml: %w", err)
	}
	signed, code, err := signer.SignCode(unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign xml: %w", err)
	}
	ch := &sello.DocumentChange{
		From:         []sello.Status{sello.StatusQueuedForSigning},
		Status:       sello.StatusSigned,
		SignedXML:    signed,
		SecurityCode: code,
		SignedAt:     &signedAt,
		QRURL:        ecf.TimbreURL(doc.Environment, d, code, signedAt),
		EventType:    sello.EventECFSigned,
		Message:      fmt.Sprintf("Document %s signed (security code %s).", doc.ENCF, code),
	}
	if d.NeedsRFCE() {
		rfce, err := d.RFCE(code)
		if err != nil {
			return nil, fmt.Errorf("build rfce: %w", err)
		}
		if ch.RFCEXML, err = signer.Sign(rfce); err != nil {
			return nil, fmt.Errorf("sign rfce: %w", err)
		}
	}
	return ch, nil
}
