package pdf

import (
	"context"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// DocumentReader is what OfDocument reads of the store.
type DocumentReader interface {
	FindDocument(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error)
	FindDocumentByID(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.Document, error)
}

// OfDocument renders the printed representation of the tenant's document
// encf in env, with its timbre: what GET /{env}/documentos-ecf/{encf}/pdf
// answers and the portal's document page links to. Returns NOT_FOUND for
// no such document, and until it is signed (the timbre needs its security
// code).
func OfDocument(ctx context.Context, st DocumentReader, tenantID string, env sello.Environment, encf string) ([]byte, error) {
	doc, err := st.FindDocument(ctx, tenantID, env, encf)
	if err != nil {
		return nil, err
	} else if doc.SignedAt == nil {
		return nil, sello.Errorf(sello.CodeNotFound, "Document %s is not signed yet: its printed representation needs the security code.", encf)
	}
	full, err := st.FindDocumentByID(ctx, tenantID, env, doc.ID)
	if err != nil {
		return nil, err
	}
	d, err := ecf.Decode(full.Payload)
	if err != nil {
		return nil, err
	}
	return Render(d, Meta{
		Environment:  env,
		ENCF:         doc.ENCF,
		SecurityCode: doc.SecurityCode,
		SignedAt:     *doc.SignedAt,
		QRURL:        doc.QRURL,
		Status:       doc.Status,
		Contingency:  doc.Contingency,
	})
}
