package dgii_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

func TestAuthentication(t *testing.T) {
	t.Run("TokenReusedUntilAMinuteBeforeExpiry", func(t *testing.T) {
		f := newFixture(t, options{})
		id := f.send(t, doc{encf: encf(1)})
		f.result(t, id)
		f.result(t, id)
		if got := f.rec.count(pValidar); got != 1 {
			t.Fatalf("validarsemilla calls = %d, want 1", got)
		}
		// The token lasts an hour; at 58m59s it is still used.
		f.clock.Add(58*time.Minute + 59*time.Second)
		f.result(t, id)
		if got := f.rec.count(pValidar); got != 1 {
			t.Fatalf("validarsemilla calls at 58m59s = %d, want 1", got)
		}
		// At 59m it is renewed.
		f.clock.Add(time.Second)
		f.result(t, id)
		if got := f.rec.count(pValidar); got != 2 {
			t.Fatalf("validarsemilla calls at 59m = %d, want 2", got)
		}
		if got := f.rec.count(pSemilla); got != 2 {
			t.Fatalf("semilla calls = %d, want 2", got)
		}
	})

	t.Run("ClockSkew", func(t *testing.T) {
		f := newFixture(t, options{})
		f.clock.Add(3 * time.Hour) // ours runs ahead of DGII's
		f.result(t, "x")
		f.result(t, "x")
		f.clock.Add(58 * time.Minute)
		f.result(t, "x")
		if got := f.rec.count(pValidar); got != 1 {
			t.Fatalf("validarsemilla calls = %d, want 1", got)
		}
		f.clock.Add(time.Minute)
		f.result(t, "x")
		if got := f.rec.count(pValidar); got != 2 {
			t.Fatalf("validarsemilla calls = %d, want 2", got)
		}
	})

	t.Run("SeedSentCompactAsMultipart", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x")
		v := f.rec.last(pValidar)
		if v.fileName != "semilla.xml" || v.partContentType != "text/xml" || v.contentLength <= 0 {
			t.Fatalf("validarsemilla request = %+v", v)
		}
		if got := f.rec.last(pResultado).authorization; !strings.HasPrefix(got, "Bearer ") {
			t.Fatalf("Authorization = %q", got)
		}
	})

	t.Run("SessionsShareTheCache", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x")
		other := f.client.Session(sello.EnvTest, issuer, dgiisim.FakeSign)
		if _, err := other.Result(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		if got := f.rec.count(pValidar); got != 1 {
			t.Fatalf("validarsemilla calls = %d, want 1", got)
		}
		// Another environment is another token.
		cert := f.client.Session(sello.EnvCert, issuer, dgiisim.FakeSign)
		if _, err := cert.Result(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		if got := f.rec.count(pValidar); got != 2 {
			t.Fatalf("validarsemilla calls = %d, want 2", got)
		}
	})

	t.Run("ConcurrentFirstCallsFetchOneToken", func(t *testing.T) {
		f := newFixture(t, options{sim: dgiisim.Config{Latency: 20 * time.Millisecond}})
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for range 32 {
			wg.Go(func() {
				_, err := f.sess.Result(ctx, "x")
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if s, v := f.rec.count(pSemilla), f.rec.count(pValidar); s != 1 || v != 1 {
			t.Fatalf("semilla, validarsemilla calls = %d, %d, want 1, 1", s, v)
		}
	})

	t.Run("401ReauthenticatesOnceAndRetriesOnce", func(t *testing.T) {
		f := newFixture(t, options{})
		id := f.send(t, doc{encf: encf(1)})
		// DGII's clock runs past the token's expiry; the client's does not,
		// so it sends the stale token and gets a 401.
		f.simClock.Add(2 * time.Hour)
		if r := f.result(t, id); r.Codigo != dgii.CodigoAceptado {
			t.Fatalf("codigo = %d", r.Codigo)
		}
		if got := f.rec.count(pValidar); got != 2 {
			t.Fatalf("validarsemilla calls = %d, want 2", got)
		}
		if got := f.rec.count(pResultado); got != 2 {
			t.Fatalf("consultaresultado calls = %d, want 2", got)
		}
	})

	t.Run("401TwiceIsErrUnauthorized", func(t *testing.T) {
		f := newFixture(t, options{})
		f.rec.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
			if strings.Contains(strings.ToLower(r.URL.Path), "recepcion/") {
				w.WriteHeader(http.StatusUnauthorized)
				return true
			}
			return false
		})
		_, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t))
		if !errors.Is(err, dgii.ErrUnauthorized) || errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("err = %v, want ErrUnauthorized", err)
		}
		if got := f.rec.count(pRecepcion); got != 2 {
			t.Fatalf("recepcion calls = %d, want 2", got)
		}
		if got := f.rec.count(pValidar); got != 2 {
			t.Fatalf("validarsemilla calls = %d, want 2", got)
		}
	})

	t.Run("BadSignatureIsErrUnauthorized", func(t *testing.T) {
		f := newFixture(t, options{})
		bad := func(ctx context.Context, xml []byte) ([]byte, error) { return xml, nil } // unsigned
		_, err := f.client.Session(sello.EnvTest, issuer, bad).Result(ctx, "x")
		var de *dgii.Error
		if !errors.Is(err, dgii.ErrUnauthorized) || !errors.As(err, &de) || de.Status != 400 {
			t.Fatalf("err = %v, want ErrUnauthorized with HTTP 400", err)
		}
		if !strings.Contains(strings.Join(de.Mensajes, " "), "Firma del certificado invalida") {
			t.Fatalf("mensajes = %q", de.Mensajes)
		}
	})

	t.Run("SignerErrorPassesThrough", func(t *testing.T) {
		f := newFixture(t, options{})
		want := sello.Errorf(sello.CodeNotFound, "No valid certificate.")
		failing := func(context.Context, []byte) ([]byte, error) { return nil, want }
		_, err := f.client.Session(sello.EnvTest, issuer, failing).SendECF(ctx, encf(1), []byte("<ECF/>"))
		if sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("err = %v, want the signer's NOT_FOUND", err)
		}
		if errors.Is(err, dgii.ErrUncertain) || errors.Is(err, dgii.ErrUnavailable) {
			t.Fatalf("err = %v is classed", err)
		}
		if got := f.rec.count(pRecepcion); got != 0 {
			t.Fatalf("recepcion calls = %d, want 0", got)
		}
	})
}

func TestSendECF(t *testing.T) {
	t.Run("FileNameAndContentLength", func(t *testing.T) {
		f := newFixture(t, options{})
		id := f.send(t, doc{encf: encf(7)})
		if len(id) != 36 {
			t.Fatalf("trackId = %q, want a GUID", id)
		}
		got := f.rec.last(pRecepcion)
		if got.fileName != issuer+encf(7)+".xml" {
			t.Fatalf("file name = %q", got.fileName)
		}
		if got.partContentType != "text/xml" {
			t.Fatalf("part Content-Type = %q", got.partContentType)
		}
		if got.contentLength <= 0 || len(got.transferEncoding) > 0 {
			t.Fatalf("Content-Length %d, Transfer-Encoding %v: want a real length, not chunked", got.contentLength, got.transferEncoding)
		}
		if got.path != "/testecf/recepcion/api/facturaselectronicas" {
			t.Fatalf("path = %q", got.path)
		}
	})

	t.Run("ErrBadFileName", func(t *testing.T) {
		f := newFixture(t, options{})
		_, err := f.sess.SendECF(ctx, "E31", doc{encf: encf(1)}.signed(t))
		var de *dgii.Error
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want *dgii.Error", err)
		}
		if de.Status != 400 || de.Codigo != "3243" || len(de.Mensajes) != 1 || de.Mensajes[0] != "La longitud del nombre del archivo no es válida" {
			t.Fatalf("error = %+v", de)
		}
		if errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) || !strings.Contains(de.Body, "3243") {
			t.Fatalf("error = %v, body %q", err, de.Body)
		}
	})

	t.Run("ErrConsumoUnder250k", func(t *testing.T) {
		f := newFixture(t, options{})
		d := doc{encf: "E320000000001", total: "1000.00"}
		_, err := f.sess.SendECF(ctx, d.encf, d.signed(t))
		var de *dgii.Error
		if !errors.As(err, &de) || de.Status != 400 || !strings.Contains(strings.Join(de.Mensajes, ""), "RD$250,000.00") {
			t.Fatalf("err = %v", err)
		}
		// At 250,000 it goes through recepción.
		d = doc{encf: "E320000000002", total: "250000.00", buyer: "101010101"}
		if r := f.result(t, f.send(t, d)); r.Codigo != dgii.CodigoAceptado {
			t.Fatalf("codigo = %d", r.Codigo)
		}
	})
}

func TestVerdicts(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name   string
		d      doc
		codigo int
		spent  *bool
		msg    string
	}{
		{"OK", doc{buyer: "101010101"}, dgii.CodigoAceptado, &yes, ""},
		{"NoBuyer", doc{}, dgii.CodigoAceptado, &yes, ""},
		{"RejectedSpent", doc{buyer: dgiisim.RNCRejectSpent}, dgii.CodigoRechazado, &yes, "MontoTotal"},
		{"RejectedReusable", doc{buyer: dgiisim.RNCRejectReusable}, dgii.CodigoRechazado, &no, "no está autorizado"},
		{"Conditional", doc{buyer: dgiisim.RNCConditional}, dgii.CodigoAceptadoCondicional, &yes, "corríjala"},
		{"InvalidStructure", doc{root: "Factura"}, dgii.CodigoRechazado, &no, "estructura"},
		{"IssuerMismatch", doc{rnc: "101010101"}, dgii.CodigoRechazado, &no, "nombre del archivo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, options{})
			tc.d.encf = encf(10)
			r := f.result(t, f.send(t, tc.d))
			if r.Codigo != tc.codigo || *r.SecuenciaUtilizada != *tc.spent {
				t.Fatalf("codigo %d secuenciaUtilizada %v, want %d %v (%+v)", r.Codigo, *r.SecuenciaUtilizada, tc.codigo, *tc.spent, r)
			}
			if r.ENCF != tc.d.encf || r.RNC != issuer || r.FechaRecepcion.IsZero() {
				t.Fatalf("result = %+v", r)
			}
			if tc.msg == "" && len(r.Mensajes) != 0 {
				t.Fatalf("mensajes = %+v, want none", r.Mensajes)
			}
			if tc.msg != "" && (len(r.Mensajes) != 1 || !strings.Contains(r.Mensajes[0].Valor, tc.msg)) {
				t.Fatalf("mensajes = %+v, want one with %q", r.Mensajes, tc.msg)
			}
			dr := r.DGIIResult()
			if dr.Codigo == nil || *dr.Codigo != r.Codigo || dr.Estado != r.Estado || dr.Mensajes == nil || dr.SecuenciaUtilizada != r.SecuenciaUtilizada {
				t.Fatalf("DGIIResult = %+v", dr)
			}
		})
	}

	t.Run("BadSignature", func(t *testing.T) {
		f := newFixture(t, options{})
		b := doc{encf: encf(11)}.signed(t)
		b = []byte(strings.Replace(string(b), "1180.00", "1.00", 1))
		id, err := f.sess.SendECF(ctx, encf(11), b)
		if err != nil {
			t.Fatal(err)
		}
		r := f.result(t, id)
		if r.Codigo != dgii.CodigoRechazado || *r.SecuenciaUtilizada || !strings.Contains(r.Mensajes[0].Valor, "firma") {
			t.Fatalf("result = %+v", r)
		}
	})

	t.Run("UnknownTrackID", func(t *testing.T) {
		f := newFixture(t, options{})
		r := f.result(t, "00000000-0000-0000-0000-000000000000")
		if r.Codigo != dgii.CodigoNoEncontrado || r.Final() {
			t.Fatalf("result = %+v", r)
		}
	})

	t.Run("EnProcesoThenVerdict", func(t *testing.T) {
		f := newFixture(t, options{sim: dgiisim.Config{ProcessingDelay: time.Minute}})
		id := f.send(t, doc{encf: encf(1)})
		slow := f.send(t, doc{encf: encf(2), buyer: dgiisim.RNCSlow})
		if r := f.result(t, id); r.Codigo != dgii.CodigoEnProceso || r.Final() || r.Status() != "" {
			t.Fatalf("result = %+v, want En Proceso", r)
		}
		f.simClock.Add(time.Minute)
		if r := f.result(t, id); r.Codigo != dgii.CodigoAceptado || r.Status() != sello.StatusAccepted {
			t.Fatalf("result = %+v, want Aceptado", r)
		}
		if r := f.result(t, slow); r.Codigo != dgii.CodigoEnProceso {
			t.Fatalf("slow result after 1 delay = %+v, want En Proceso", r)
		}
		f.simClock.Add(9 * time.Minute)
		if r := f.result(t, slow); r.Codigo != dgii.CodigoAceptado {
			t.Fatalf("slow result after 10 delays = %+v, want Aceptado", r)
		}
	})
}

func TestReuse(t *testing.T) {
	t.Run("AcceptedIsSpent", func(t *testing.T) {
		f := newFixture(t, options{})
		f.send(t, doc{encf: encf(1)})
		r := f.result(t, f.send(t, doc{encf: encf(1)}))
		if r.Codigo != dgii.CodigoRechazado || !*r.SecuenciaUtilizada || !strings.Contains(r.Mensajes[0].Valor, "Secuencia utilizada") {
			t.Fatalf("result = %+v", r)
		}
		// Also through the RFCE route, and for a conditional acceptance.
		f.send(t, doc{encf: "E320000000001", total: "300000.00", buyer: dgiisim.RNCConditional})
		d := doc{root: "RFCE", encf: "E320000000001"}
		r, err := f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if err != nil || r.Codigo != dgii.CodigoRechazado || !*r.SecuenciaUtilizada {
			t.Fatalf("RFCE = %+v, %v", r, err)
		}
	})

	t.Run("RejectedReusableMayBeSentAgain", func(t *testing.T) {
		f := newFixture(t, options{})
		f.send(t, doc{encf: encf(1), buyer: dgiisim.RNCRejectReusable})
		if r := f.result(t, f.send(t, doc{encf: encf(1)})); r.Codigo != dgii.CodigoAceptado {
			t.Fatalf("result = %+v", r)
		}
	})

	t.Run("RejectedSpentMayNot", func(t *testing.T) {
		f := newFixture(t, options{})
		f.send(t, doc{encf: encf(1), buyer: dgiisim.RNCRejectSpent})
		r := f.result(t, f.send(t, doc{encf: encf(1)}))
		if r.Codigo != dgii.CodigoRechazado || !*r.SecuenciaUtilizada {
			t.Fatalf("result = %+v", r)
		}
	})
}

func TestSendRFCE(t *testing.T) {
	f := newFixture(t, options{})
	t.Run("OK", func(t *testing.T) {
		d := doc{root: "RFCE", encf: "E320000000001"}
		r, err := f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if err != nil || r.Codigo != dgii.CodigoAceptado || r.Estado != "Aceptado" || r.ENCF != d.encf || r.TrackID != "" {
			t.Fatalf("RFCE = %+v, %v", r, err)
		}
		got := f.rec.last(pRFCE)
		if got.path != "/testecf/recepcionfc/api/recepcion/ecf" || got.fileName != issuer+d.encf+".xml" || got.contentLength <= 0 {
			t.Fatalf("request = %+v", got)
		}
	})
	t.Run("RejectedAnsweredAsHTTP400", func(t *testing.T) {
		d := doc{root: "RFCE", encf: "E320000000002", buyer: dgiisim.RNCRejectSpent}
		r, err := f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if err != nil || r.Codigo != dgii.CodigoRechazado || !*r.SecuenciaUtilizada || r.Mensajes[0].Codigo == nil || *r.Mensajes[0].Codigo != 30 {
			t.Fatalf("RFCE = %+v, %v", r, err)
		}
	})
	t.Run("Conditional", func(t *testing.T) {
		d := doc{root: "RFCE", encf: "E320000000003", buyer: dgiisim.RNCConditional}
		r, err := f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if err != nil || r.Codigo != dgii.CodigoAceptadoCondicional || r.Status() != sello.StatusAcceptedConditional {
			t.Fatalf("RFCE = %+v, %v", r, err)
		}
	})
	t.Run("250kOrMoreRejectedReusable", func(t *testing.T) {
		d := doc{root: "RFCE", encf: "E320000000004", total: "250000.00"}
		r, err := f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if err != nil || r.Codigo != dgii.CodigoRechazado || *r.SecuenciaUtilizada {
			t.Fatalf("RFCE = %+v, %v", r, err)
		}
	})
	t.Run("EstadoFindsIt", func(t *testing.T) {
		e, err := f.sess.Estado(ctx, issuer, "E320000000003", "", "Ab12Cd")
		if err != nil || e.Codigo != dgii.CodigoAceptadoCondicional || e.CodigoSeguridad != "Ab12Cd" {
			t.Fatalf("Estado = %+v, %v", e, err)
		}
	})
}

func TestTrackIDs(t *testing.T) {
	f := newFixture(t, options{})
	first := f.send(t, doc{encf: encf(1), buyer: dgiisim.RNCRejectReusable})
	second := f.send(t, doc{encf: encf(1)})
	got, err := f.sess.TrackIDs(ctx, encf(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].TrackID != first || got[1].TrackID != second {
		t.Fatalf("TrackIDs = %+v", got)
	}
	if got[0].Codigo != dgii.CodigoRechazado || got[1].Codigo != dgii.CodigoAceptado || got[1].Estado != "Aceptado" || got[0].FechaRecepcion.IsZero() {
		t.Fatalf("TrackIDs = %+v", got)
	}
	t.Run("NoneIsEmpty", func(t *testing.T) {
		got, err := f.sess.TrackIDs(ctx, encf(99))
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("TrackIDs = %#v, %v", got, err)
		}
	})
}

func TestEstado(t *testing.T) {
	f := newFixture(t, options{})
	f.send(t, doc{encf: encf(1), buyer: "101010101"})
	f.send(t, doc{encf: encf(1), buyer: "101010101"}) // rejected: spent; the e-CF stays accepted
	trackIDs, _ := f.sess.TrackIDs(ctx, encf(1))
	e, err := f.sess.Estado(ctx, issuer, encf(1), "101010101", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Codigo != dgii.CodigoAceptado || e.MontoTotal != "1180.00" || e.TotalITBIS != "180.00" || e.RNCComprador != "101010101" ||
		e.FechaEmision != "01-04-2026" || len(e.CodigoSeguridad) != 6 || e.ENCF != encf(1) || len(trackIDs) != 2 {
		t.Fatalf("Estado = %+v", e)
	}
	for _, tc := range []struct{ name, buyer, code string }{
		{"WrongBuyer", "202020202", ""},
		{"WrongSecurityCode", "", "zzzzzz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := f.sess.Estado(ctx, issuer, encf(1), tc.buyer, tc.code)
			if err != nil || e.Codigo != dgii.CodigoNoEncontrado {
				t.Fatalf("Estado = %+v, %v", e, err)
			}
		})
	}
	t.Run("SecurityCodeMatches", func(t *testing.T) {
		got, err := f.sess.Estado(ctx, issuer, encf(1), "", e.CodigoSeguridad)
		if err != nil || got.Codigo != dgii.CodigoAceptado {
			t.Fatalf("Estado = %+v, %v", got, err)
		}
	})
}

func TestFaults(t *testing.T) {
	t.Run("DownIdempotentRetried", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x") // authenticate while up
		f.sim.SetDown(true)
		before := f.rec.count(pResultado)
		_, err := f.sess.Result(ctx, "x")
		if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("err = %v", err)
		}
		var de *dgii.Error
		if !errors.As(err, &de) || de.Status != 503 {
			t.Fatalf("err = %v, want *Error 503", err)
		}
		if got := f.rec.count(pResultado) - before; got != 1+dgii.DefaultRetries {
			t.Fatalf("consultaresultado calls = %d, want %d", got, 1+dgii.DefaultRetries)
		}
		for name, call := range map[string]func() error{
			"TrackIDs":  func() error { _, err := f.sess.TrackIDs(ctx, encf(1)); return err },
			"Estado":    func() error { _, err := f.sess.Estado(ctx, issuer, encf(1), "", ""); return err },
			"Directory": func() error { _, err := f.sess.Directory(ctx, issuer); return err },
		} {
			if err := call(); !errors.Is(err, dgii.ErrUnavailable) {
				t.Errorf("%s: err = %v, want ErrUnavailable", name, err)
			}
		}
	})

	t.Run("DownSendsNotRetried", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x")
		f.sim.SetDown(true)
		for name, send := range map[string]func() error{
			"ECF":      func() error { _, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t)); return err },
			"RFCE":     func() error { _, err := f.sess.SendRFCE(ctx, "E320000000001", nil); return err },
			"Approval": func() error { _, err := f.sess.SendApproval(ctx, "a.xml", nil); return err },
			"Void":     func() error { _, err := f.sess.VoidRanges(ctx, nil); return err },
		} {
			before := len(f.rec.requests)
			err := send()
			if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
				t.Errorf("%s: err = %v, want ErrUnavailable only", name, err)
			}
			if got := len(f.rec.requests) - before; got != 1 {
				t.Errorf("%s: %d requests, want 1", name, got)
			}
		}
	})

	t.Run("DownAuthentication", func(t *testing.T) {
		f := newFixture(t, options{sim: dgiisim.Config{Down: true}})
		_, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t))
		if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("err = %v", err)
		}
		if s, r := f.rec.count(pSemilla), f.rec.count(pRecepcion); s != 1+dgii.DefaultRetries || r != 0 {
			t.Fatalf("semilla, recepcion calls = %d, %d", s, r)
		}
		f.sim.SetDown(false)
		f.send(t, doc{encf: encf(1)})
	})

	t.Run("OutageForOneDocument", func(t *testing.T) {
		f := newFixture(t, options{})
		d := doc{encf: encf(1), buyer: dgiisim.RNCOutage}
		_, err := f.sess.SendECF(ctx, d.encf, d.signed(t))
		if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("err = %v", err)
		}
		if got := f.rec.count(pRecepcion); got != 1 {
			t.Fatalf("recepcion calls = %d, want 1", got)
		}
		if got, _ := f.sess.TrackIDs(ctx, d.encf); len(got) != 0 {
			t.Fatalf("TrackIDs = %+v, want none", got)
		}
	})

	t.Run("TimeoutAfterAcceptIsUncertain", func(t *testing.T) {
		f := newFixture(t, options{timeout: 300 * time.Millisecond})
		f.result(t, "x")
		d := doc{encf: encf(1), buyer: dgiisim.RNCTimeoutAfterAccept}
		_, err := f.sess.SendECF(ctx, d.encf, d.signed(t))
		if !errors.Is(err, dgii.ErrUncertain) || errors.Is(err, dgii.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUncertain", err)
		}
		got, err := f.sess.TrackIDs(ctx, d.encf)
		if err != nil || len(got) != 1 {
			t.Fatalf("TrackIDs = %+v, %v", got, err)
		}
		if r := f.result(t, got[0].TrackID); r.Codigo != dgii.CodigoAceptado {
			t.Fatalf("result = %+v", r)
		}
		// An RFCE likewise, reconciled through Estado.
		d = doc{root: "RFCE", encf: "E320000000001", buyer: dgiisim.RNCTimeoutAfterAccept}
		_, err = f.sess.SendRFCE(ctx, d.encf, d.signed(t))
		if !errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("RFCE err = %v, want ErrUncertain", err)
		}
		e, err := f.sess.Estado(ctx, issuer, d.encf, "", "Ab12Cd")
		if err != nil || e.Codigo != dgii.CodigoAceptado {
			t.Fatalf("Estado = %+v, %v", e, err)
		}
	})

	t.Run("RefusedConnection", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x")
		f.srv.Close()
		f.tr.CloseIdleConnections() // a new connection, refused
		_, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t))
		if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
			t.Fatalf("err = %v, want ErrUnavailable only", err)
		}
	})

	t.Run("500OnSendIsUncertain", func(t *testing.T) {
		f := newFixture(t, options{})
		f.result(t, "x")
		f.rec.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "recepcion") {
				http.Error(w, `{"codigo":"500","mensaje":"Error interno"}`, http.StatusInternalServerError)
				return true
			}
			return false
		})
		_, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t))
		var de *dgii.Error
		if !errors.Is(err, dgii.ErrUncertain) || !errors.Is(err, dgii.ErrUnavailable) || !errors.As(err, &de) || de.Codigo != "500" || de.Mensajes[0] != "Error interno" {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("ErrorRate", func(t *testing.T) {
		f := newFixture(t, options{client: dgii.Config{Retries: 20}})
		f.result(t, "x")
		f.sim.SetErrorRate(0.5)
		for range 10 {
			if _, err := f.sess.Result(ctx, "x"); err != nil {
				t.Fatal(err) // 21 attempts at 50%: fails once in 2 million
			}
		}
		f.sim.SetErrorRate(0)
		if got := f.rec.count(pResultado); got <= 11 {
			t.Fatalf("consultaresultado calls = %d, want retries", got)
		}
	})

	t.Run("NoRetriesWhenNegative", func(t *testing.T) {
		f := newFixture(t, options{client: dgii.Config{Retries: -1}})
		f.result(t, "x")
		f.sim.SetDown(true)
		before := f.rec.count(pResultado)
		f.sess.Result(ctx, "x")
		if got := f.rec.count(pResultado) - before; got != 1 {
			t.Fatalf("calls = %d, want 1", got)
		}
	})

	t.Run("CallerCancel", func(t *testing.T) {
		f := newFixture(t, options{sim: dgiisim.Config{Latency: time.Second}})
		c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := f.sess.Result(c, "x")
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, dgii.ErrUnavailable) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDirectory(t *testing.T) {
	f := newFixture(t, options{})
	for _, tc := range []struct {
		name, rnc string
		n         int
	}{
		{"Array", dgiisim.RNCDGIITest, 1},
		{"Object", dgiisim.RNCDirectoryObject, 1},
		{"Unknown", "101010101", 0},
		{"Listado", "", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.sess.Directory(ctx, tc.rnc)
			if err != nil || got == nil || len(got) != tc.n {
				t.Fatalf("Directory = %+v, %v", got, err)
			}
			if tc.n == 1 && (got[0].RNC != tc.rnc || got[0].URLRecepcion != f.srv.URL+"/testecf/emisorreceptor" || got[0].Nombre == "") {
				t.Fatalf("entry = %+v", got[0])
			}
		})
	}
}

// acecf is a commercial approval of an e-CF of issuer by buyer.
func acecf(t *testing.T, rncEmisor, e, buyer, estado string) []byte {
	t.Helper()
	motivo := ""
	if estado == "2" {
		motivo = "<DetalleMotivoRechazo>Mercancía dañada</DetalleMotivoRechazo>"
	}
	b, _ := dgiisim.FakeSign(ctx, []byte(`<?xml version="1.0" encoding="utf-8"?><ACECF><DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>`+rncEmisor+
		`</RNCEmisor><eNCF>`+e+`</eNCF><FechaEmision>01-04-2026</FechaEmision><MontoTotal>1180.00</MontoTotal><RNCComprador>`+buyer+
		`</RNCComprador><Estado>`+estado+`</Estado>`+motivo+`<FechaHoraAprobacionComercial>02-04-2026 10:00:00</FechaHoraAprobacionComercial></DetalleAprobacionComercial></ACECF>`))
	return b
}

func TestSendApproval(t *testing.T) {
	f := newFixture(t, options{})
	const buyer = "101010101"
	f.send(t, doc{encf: encf(1), buyer: buyer})
	bs := f.client.Session(sello.EnvTest, buyer, dgiisim.FakeSign)
	for _, tc := range []struct {
		name, issuer, encf, estado string
		codigo                     int
		msg                        string
	}{
		{"Approved", issuer, encf(1), "1", dgii.ApprovalAprobada, ""},
		{"RejectedCommercially", issuer, encf(1), "2", dgii.ApprovalAprobada, ""},
		{"DGIITestIssuer", dgiisim.RNCDGIITest, encf(50), "1", dgii.ApprovalAprobada, ""},
		{"NotFound", "202020202", encf(1), "1", dgii.ApprovalRechazada, "Factura no encontrada"},
		{"NotApplicable", issuer, "E320000000001", "1", dgii.ApprovalRechazada, "no es requerida"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := bs.SendApproval(ctx, buyer+tc.encf+".xml", acecf(t, tc.issuer, tc.encf, buyer, tc.estado))
			if err != nil || r.Codigo != tc.codigo || (tc.msg != "" && !strings.Contains(strings.Join(r.Mensajes, ""), tc.msg)) {
				t.Fatalf("approval = %+v, %v", r, err)
			}
		})
	}
	t.Run("ErrBadSignature", func(t *testing.T) {
		b := []byte(strings.Replace(string(acecf(t, issuer, encf(1), buyer, "1")), "1180.00", "1181.00", 1))
		_, err := bs.SendApproval(ctx, buyer+encf(1)+".xml", b)
		var de *dgii.Error
		if !errors.As(err, &de) || de.Status != 400 || de.Codigo != "2" || de.Mensajes[0] != "La firma del XML no es válida" {
			t.Fatalf("err = %v", err)
		}
	})
}

// anecf voids ranges of type 31: pairs of sequentials.
func anecf(t *testing.T, rnc string, ranges ...[2]int) []byte {
	t.Helper()
	var seqs strings.Builder
	n := 0
	for _, r := range ranges {
		seqs.WriteString("<Secuencias><SecuenciaeNCFDesde>" + encf(r[0]) + "</SecuenciaeNCFDesde><SecuenciaeNCFHasta>" + encf(r[1]) + "</SecuenciaeNCFHasta></Secuencias>")
		n += r[1] - r[0] + 1
	}
	count := strings.TrimLeft(encf(n)[3:], "0")
	b, _ := dgiisim.FakeSign(ctx, []byte(`<ANECF><Encabezado><Version>1.0</Version><RncEmisor>`+rnc+`</RncEmisor><CantidadeNCFAnulados>`+count+
		`</CantidadeNCFAnulados><FechaHoraAnulacioneNCF>02-04-2026 10:00:00</FechaHoraAnulacioneNCF></Encabezado><DetalleAnulacion><Anulacion><NoLinea>1</NoLinea><TipoeCF>31</TipoeCF><TablaRangoSecuenciasAnuladaseNCF>`+
		seqs.String()+`</TablaRangoSecuenciasAnuladaseNCF><CantidadeNCFAnulados>`+count+`</CantidadeNCFAnulados></Anulacion></DetalleAnulacion></ANECF>`))
	return b
}

func TestVoidRanges(t *testing.T) {
	f := newFixture(t, options{})
	f.send(t, doc{encf: encf(5)})
	r, err := f.sess.VoidRanges(ctx, anecf(t, issuer, [2]int{1, 10}, [2]int{20, 29}))
	if err != nil || r.Codigo != "2" || r.RNC != issuer || len(r.Mensajes) != 2 || !strings.Contains(r.Mensajes[1], "han sido utilizadas") {
		t.Fatalf("void = %+v, %v", r, err)
	}
	if got := f.rec.last("/anularrango"); got.fileName != issuer+"ANECF.xml" || got.contentLength <= 0 {
		t.Fatalf("request = %+v", got)
	}
	// A voided e-NCF is refused.
	res := f.result(t, f.send(t, doc{encf: encf(25)}))
	if res.Codigo != dgii.CodigoRechazado || !*res.SecuenciaUtilizada {
		t.Fatalf("result = %+v", res)
	}
	t.Run("ErrAllUsed", func(t *testing.T) {
		_, err := f.sess.VoidRanges(ctx, anecf(t, issuer, [2]int{5, 5}))
		var de *dgii.Error
		if !errors.As(err, &de) || de.Status != 400 || de.Codigo != "3" || len(de.Mensajes) != 2 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrDesdeAfterHasta", func(t *testing.T) {
		_, err := f.sess.VoidRanges(ctx, anecf(t, issuer, [2]int{9, 8}))
		var de *dgii.Error
		if !errors.As(err, &de) || !strings.Contains(de.Mensajes[0], "mayor al del campo SecuenciaeNCFHasta") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestValidarSemillaTimeoutIsNotUncertain(t *testing.T) {
	f := newFixture(t, options{timeout: 200 * time.Millisecond})
	f.rec.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(strings.ToLower(r.URL.Path), pValidar) {
			<-r.Context().Done() // hold until the client gives up
			return true
		}
		return false
	})
	_, err := f.sess.SendECF(ctx, encf(1), doc{encf: encf(1)}.signed(t))
	if !errors.Is(err, dgii.ErrUnavailable) || errors.Is(err, dgii.ErrUncertain) {
		t.Fatalf("err = %v, want ErrUnavailable only", err)
	}
	if got := f.rec.count(pRecepcion); got != 0 {
		t.Fatalf("recepcion calls = %d, want 0", got)
	}
}
