package api_test

import (
	"net/http"
	"testing"

	"github.com/sello-do/sello/ecf"
)

// FuzzRecepcion posts arbitrary multipart bodies and XML to a tenant's
// reception service: whatever arrives, the answer is an ARECF or a clear
// error, never a 500.
func FuzzRecepcion(f *testing.F) {
	rf := mustReceiverFixture(f, true)
	doc := rf.signedECF(f, testRNC, 1)
	body, ct := upload(f, supplierRNC+"E310000000001.xml", doc)
	f.Add(ct, body)
	f.Add(ct, body[:len(body)/2])
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"xml\"\r\n\r\n<ECF><!DOCTYPE x></ECF>\r\n--x--\r\n"))
	f.Add("application/xml", doc)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		if len(body) > ecf.MaxReplySize {
			t.Skip()
		}
		rec := rf.raw(recepcion, "", contentType, body)
		switch rec.Code {
		case http.StatusOK:
			if _, err := ecf.ParseARECF(rec.Body.Bytes()); err != nil {
				t.Fatalf("200 without an ARECF: %v\n%s", err, rec.Body)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, 422:
		default:
			t.Fatalf("got %d %s", rec.Code, rec.Body)
		}
	})
}

// FuzzAprobacionComercial posts arbitrary multipart bodies and XML to a
// tenant's commercial approval service: whatever arrives, the answer is a
// 200 on a recorded approval or a clear error, never a 500.
func FuzzAprobacionComercial(f *testing.F) {
	rf := mustReceiverFixture(f, true)
	doc := rf.issuedDocument(f, 1)
	x := rf.acecf(f, doc, "", nil)
	body, ct := upload(f, supplierRNC+doc.ENCF+".xml", x)
	f.Add(ct, body)
	f.Add(ct, body[:len(body)/2])
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"xml\"\r\n\r\n<ACECF><!DOCTYPE x></ACECF>\r\n--x--\r\n"))
	f.Add("application/xml", x)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		if len(body) > ecf.MaxReplySize {
			t.Skip()
		}
		rec := rf.raw(aprobacion, "", contentType, body)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("got %d %s", rec.Code, rec.Body)
		}
	})
}
