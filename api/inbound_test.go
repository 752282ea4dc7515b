package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
)

// inboundFixture is a receiver fixture with documents received from the
// supplier and an API key of the tenant with every scope.
func inboundFixture(tb testing.TB, n int) (*fixture, *receiverFixture, [][]byte) {
	tb.Helper()
	rf := mustReceiverFixture(tb, true)
	var xmls [][]byte
	for i := range n {
		doc := rf.signedECF(tb, testRNC, int64(i+1))
		rf.wantAcuse(tb, rf.post(tb, recepcion, "", doc), 0, 0)
		xmls = append(xmls, doc)
	}
	k, plaintext := sello.NewAPIKey(rf.tenant.ID, sello.EnvTest, "test", sello.Scopes, nil)
	if err := rf.store.CreateAPIKey(tb.Context(), k); err != nil {
		tb.Fatal(err)
	}
	return &fixture{handler: rf.handler, key: plaintext, tenant: rf.tenant}, rf, xmls
}

func TestInboundDocuments(t *testing.T) {
	f, _, xmls := inboundFixture(t, 3)
	type list struct {
		Documents  []sello.InboundDocumentResource `json:"data"`
		HasMore    bool                            `json:"hasMore"`
		NextCursor *string                         `json:"nextCursor"`
	}
	t.Run("List", func(t *testing.T) {
		var got []sello.InboundDocumentResource
		path := "/TesteCF/documentos-recibidos?limit=2&issuer=" + supplierRNC + "&type=E31&approval=pending"
		for range 3 {
			resp, body := call(t, f, f.key, "GET", path, nil)
			var l list
			if err := json.Unmarshal(body, &l); resp.StatusCode != 200 || err != nil {
				t.Fatalf("got %d %s", resp.StatusCode, body)
			}
			got = append(got, l.Documents...)
			if l.NextCursor == nil {
				break
			}
			path = "/TesteCF/documentos-recibidos?limit=2&cursor=" + *l.NextCursor
		}
		if len(got) != 3 || got[0].ENCF != "E310000000003" || got[2].ENCF != "E310000000001" ||
			got[0].Issuer.RNC != supplierRNC || got[0].Approval != "pending" || got[0].BuyerRNC != testRNC {
			t.Fatalf("listed %+v", got)
		}
	})
	t.Run("ListFiltered", func(t *testing.T) {
		_, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos?approval=approved", nil)
		var l list
		if err := json.Unmarshal(body, &l); err != nil || len(l.Documents) != 0 {
			t.Fatalf("approved: got %s", body)
		}
	})
	t.Run("GetAndXML", func(t *testing.T) {
		_, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos", nil)
		var l list
		if err := json.Unmarshal(body, &l); err != nil || len(l.Documents) != 3 {
			t.Fatalf("list: %s", body)
		}
		want := l.Documents[2]
		resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos/"+want.ID, nil)
		var one struct{ Document sello.InboundDocumentResource }
		if err := json.Unmarshal(body, &one); resp.StatusCode != 200 || err != nil || !reflect.DeepEqual(one.Document, want) || want.Signer == nil {
			t.Fatalf("get: got %d %s, want %+v", resp.StatusCode, body, want)
		}
		resp, body = call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos/"+want.ID+"/xml", nil)
		if resp.StatusCode != 200 || !bytes.Equal(body, xmls[0]) || resp.Header.Get("Content-Type") != "application/xml" {
			t.Fatalf("xml: got %d %s, want the e-CF as posted", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})
	t.Run("PDF", func(t *testing.T) {
		_, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos", nil)
		var l list
		if err := json.Unmarshal(body, &l); err != nil || len(l.Documents) != 3 {
			t.Fatalf("list: %s", body)
		}
		d := l.Documents[2]
		resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos/"+d.ID+"/pdf", nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("pdf: got %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="`+supplierRNC+d.ENCF+`.pdf"`; got != want {
			t.Errorf("Content-Disposition = %s, want %s", got, want)
		}
		h, err := ecf.ParseECFHeader(xmls[0])
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "doc.pdf")
		if err := os.WriteFile(file, body, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(oracle.Require(t, "pdftotext"), "-layout", "-enc", "UTF-8", file, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		text := string(out)
		for _, want := range []string{"Factura de Crédito Fiscal Electrónica", d.ENCF, supplierRNC, h.RazonSocialEmisor, "Código de seguridad: " + h.SecurityCode} {
			if !strings.Contains(text, want) {
				t.Errorf("the PDF lacks %q:\n%s", want, text)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, p := range []string{"/TesteCF/documentos-recibidos/nope", "/TesteCF/documentos-recibidos/nope/xml", "/TesteCF/documentos-recibidos/nope/pdf"} {
			if resp, body := call(t, f, f.key, "GET", p, nil); resp.StatusCode != 404 {
				t.Errorf("%s: got %d %s, want 404", p, resp.StatusCode, body)
			}
		}
	})
	t.Run("ErrQuery", func(t *testing.T) {
		resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos?issuer=12&approval=maybe&type=E99&from=ayer&limit=0&x=1", nil)
		if resp.StatusCode != 400 {
			t.Fatalf("got %d %s, want 400", resp.StatusCode, body)
		}
		for _, p := range []string{`"issuer"`, `"approval"`, `"type"`, `"from"`, `"limit"`, `"x"`} {
			if !bytes.Contains(body, []byte(p)) {
				t.Errorf("%s: want a detail at %s", body, p)
			}
		}
	})
}

// TestInboundByENCF finds received documents by e-NCF: with the issuer,
// the one document; a malformed e-NCF is refused.
func TestInboundByENCF(t *testing.T) {
	f, _, _ := inboundFixture(t, 3)
	list := func(query string) []sello.InboundDocumentResource {
		t.Helper()
		resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos?"+query, nil)
		var l struct {
			Data []sello.InboundDocumentResource `json:"data"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &l) != nil {
			t.Fatalf("GET ?%s: %d %s", query, resp.StatusCode, body)
		}
		return l.Data
	}
	if got := list("issuer=" + supplierRNC + "&encf=E310000000002"); len(got) != 1 || got[0].ENCF != "E310000000002" || got[0].Issuer.RNC != supplierRNC {
		t.Fatalf("issuer and encf: %+v, want E310000000002", got)
	}
	if got := list("encf=E310000000002"); len(got) != 1 {
		t.Fatalf("encf: %+v, want one", got)
	}
	if got := list("issuer=131000001&encf=E310000000002"); len(got) != 0 {
		t.Fatalf("another issuer's encf: %+v, want none", got)
	}
	resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-recibidos?encf=E99", nil)
	wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest)
	if !strings.Contains(string(body), `"path":"encf"`) {
		t.Fatalf("no detail at encf: %s", body)
	}
}
