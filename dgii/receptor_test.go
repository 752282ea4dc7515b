package dgii_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

// TestReceptor sends an e-CF to the simulator's receiver of a buyer that
// requires authentication: refused without a token, received with one,
// and the same acuse again when sent twice.
func TestReceptor(t *testing.T) {
	ctx := t.Context()
	sim := dgiisim.New(dgiisim.Config{Verify: dgiisim.FakeVerify})
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	ecf, err := dgiisim.FakeSign(ctx, []byte(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><IdDoc><eNCF>E310000000001</eNCF></IdDoc>`+
		`<Emisor><RNCEmisor>130000001</RNCEmisor></Emisor><Comprador><RNCComprador>`+dgiisim.RNCDGIITest+`</RNCComprador></Comprador></Encabezado></ECF>`))
	if err != nil {
		t.Fatal(err)
	}
	base := ts.URL + "/testecf/emisorreceptor"
	p := dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: ts.Client()})
	from := dgii.Sender{Environment: sello.EnvTest, RNC: "130000001", Sign: dgiisim.FakeSign}
	const file = "130000001E310000000001.xml"

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		_, err := p.SendECF(ctx, from, dgii.DirectoryEntry{RNC: dgiisim.RNCDGIITest, URLRecepcion: base}, file, ecf)
		var re *dgii.ReceptorError
		if !errors.As(err, &re) || re.Status != http.StatusUnauthorized || re.Op != "recepcion" {
			t.Fatalf("got %v, want a 401 of recepcion", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		entry := dgii.DirectoryEntry{RNC: dgiisim.RNCDGIITest, URLRecepcion: base, URLOpcional: base}
		arecf, err := p.SendECF(ctx, from, entry, file, ecf)
		if err != nil || !strings.Contains(string(arecf), "<Estado>0</Estado>") {
			t.Fatalf("got %s, %v; want an ARECF with Estado 0", arecf, err)
		}
		again, err := p.SendECF(ctx, from, entry, file, ecf)
		if err != nil || !bytes.Equal(again, arecf) {
			t.Fatalf("sent again: got %s, %v; want the same acuse", again, err)
		}
		rs := sim.Receipts()
		if len(rs) != 1 || rs[0].Posts != 2 || rs[0].Estado != 0 {
			t.Fatalf("receipts %+v, want one e-CF posted twice, received", rs)
		}
	})
}

// Paths of the receiver's services, for counting.
const (
	pRecSemilla   = "/fe/autenticacion/api/semilla"
	pRecValidar   = "/fe/autenticacion/api/validacioncertificado"
	pRecRecepcion = "/fe/recepcion/api/ecf"
	pRecAprob     = "/fe/aprobacioncomercial/api/ecf"
)

// receptorFixture is the simulator's receivers behind a recorder, and a
// Receptor with its own clock.
type receptorFixture struct {
	*fixture
	p    *dgii.Receptor
	base string
	from dgii.Sender
}

func newReceptorFixture(t *testing.T, opt options) *receptorFixture {
	t.Helper()
	f := newFixture(t, opt)
	return &receptorFixture{
		fixture: f,
		p:       dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: &http.Client{Transport: f.tr, Timeout: 10 * time.Second}, Now: f.clock.Now}),
		base:    f.srv.URL + "/testecf/emisorreceptor",
		from:    dgii.Sender{Environment: sello.EnvTest, RNC: "130000001", Sign: dgiisim.FakeSign},
	}
}

// entry is the directory entry of the simulator's test counterpart, which
// requires authentication.
func (f *receptorFixture) entry() dgii.DirectoryEntry {
	return dgii.DirectoryEntry{RNC: dgiisim.RNCDGIITest, URLRecepcion: f.base, URLAceptacion: f.base, URLOpcional: f.base}
}

// deliver sends e-CF n of the fixture's sender to the test counterpart and
// fails unless it is received.
func (f *receptorFixture) deliver(t *testing.T, n int) {
	t.Helper()
	if err := f.tryDeliver(f.from, n); err != nil {
		t.Fatal(err)
	}
}

// tryDeliver sends e-CF n of from to the test counterpart: nil when its
// ARECF says received.
func (f *receptorFixture) tryDeliver(from dgii.Sender, n int) error {
	d := doc{encf: encf(n), rnc: from.RNC, buyer: dgiisim.RNCDGIITest}
	signed, err := dgiisim.FakeSign(ctx, d.xml())
	if err != nil {
		return err
	}
	arecf, err := f.p.SendECF(ctx, from, f.entry(), from.RNC+d.encf+".xml", signed)
	if err != nil {
		return err
	}
	if !bytes.Contains(arecf, []byte("<Estado>0</Estado>")) {
		return errors.New("not received: " + string(arecf))
	}
	return nil
}

// wantAuth fails unless the receiver was asked for n seeds and validated n.
func (f *receptorFixture) wantAuth(t *testing.T, n int) {
	t.Helper()
	if s, v := f.rec.count(pRecSemilla), f.rec.count(pRecValidar); s != n || v != n {
		t.Fatalf("semilla, validacioncertificado calls = %d, %d; want %d, %d", s, v, n, n)
	}
}

// TestReceptorToken is the receiver's token cache: one authentication for
// many sends until shortly before the token expires, per environment,
// sender and authentication host; a 401 drops it and sends once more;
// concurrent first sends share one authentication.
func TestReceptorToken(t *testing.T) {
	t.Run("OneAuthenticationForManySends", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		for n := range 10 {
			f.deliver(t, n+1)
		}
		f.wantAuth(t, 1)
		if got := f.rec.count(pRecRecepcion); got != 10 {
			t.Fatalf("recepcion calls = %d, want 10", got)
		}
		// An approval to the same receiver uses the same token.
		acecf, err := dgiisim.FakeSign(ctx, []byte(`<?xml version="1.0" encoding="utf-8"?><ACECF><DetalleAprobacionComercial><Version>1.0</Version>`+
			`<RNCEmisor>`+dgiisim.RNCDGIITest+`</RNCEmisor><eNCF>E310000000001</eNCF><FechaEmision>01-04-2026</FechaEmision><MontoTotal>1180.00</MontoTotal>`+
			`<RNCComprador>130000001</RNCComprador><Estado>1</Estado><FechaHoraAprobacionComercial>01-04-2026 09:00:00</FechaHoraAprobacionComercial>`+
			`</DetalleAprobacionComercial></ACECF>`))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.p.SendApproval(ctx, f.from, f.entry(), "130000001E310000000001.xml", acecf); err != nil {
			t.Fatal(err)
		}
		if got := f.rec.count(pRecAprob); got != 1 {
			t.Fatalf("aprobacioncomercial calls = %d, want 1", got)
		}
		f.wantAuth(t, 1)
		if got := f.rec.last(pRecAprob).authorization; got != f.rec.last(pRecRecepcion).authorization || !strings.HasPrefix(got, "Bearer ") {
			t.Fatalf("approval's Authorization %q, want the e-CFs' %q", got, f.rec.last(pRecRecepcion).authorization)
		}
	})

	t.Run("RenewedAMinuteBeforeExpiry", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		f.deliver(t, 1)
		// The token lasts an hour; at 58m59s it is still used.
		f.clock.Add(58*time.Minute + 59*time.Second)
		f.deliver(t, 2)
		f.wantAuth(t, 1)
		// At 59m it is renewed, once.
		f.clock.Add(time.Second)
		f.deliver(t, 3)
		f.deliver(t, 4)
		f.wantAuth(t, 2)
	})

	t.Run("PerSenderEnvironmentAndHost", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		f.deliver(t, 1)
		other := f.from
		other.RNC = "130000002"
		if err := f.tryDeliver(other, 2); err != nil {
			t.Fatal(err)
		}
		f.wantAuth(t, 2)
		cert := f.from
		cert.Environment = sello.EnvCert // same host here: another environment is another token all the same
		if err := f.tryDeliver(cert, 3); err != nil {
			t.Fatal(err)
		}
		f.wantAuth(t, 3)
		f.base = f.srv.URL + "/TesteCF/emisorreceptor/" // another spelling of the host is another key
		f.deliver(t, 4)
		f.wantAuth(t, 4)
		f.deliver(t, 5)
		f.wantAuth(t, 4)
	})

	t.Run("401ReauthenticatesOnceAndSucceeds", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		f.deliver(t, 1)
		// The receiver's clock runs past the token's expiry; ours does not,
		// so the stale token is sent and refused.
		f.simClock.Add(2 * time.Hour)
		f.deliver(t, 2)
		f.wantAuth(t, 2)
		if got := f.rec.count(pRecRecepcion); got != 3 {
			t.Fatalf("recepcion calls = %d, want 3 (one refused with 401, sent again)", got)
		}
		f.deliver(t, 3) // the new token is kept
		f.wantAuth(t, 2)
	})

	t.Run("401TwiceIsTheError", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		f.rec.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
			if strings.HasSuffix(r.URL.Path, pRecRecepcion) {
				w.WriteHeader(http.StatusUnauthorized)
				return true
			}
			return false
		})
		err := f.tryDeliver(f.from, 1)
		var re *dgii.ReceptorError
		if !errors.As(err, &re) || re.Status != http.StatusUnauthorized || re.Op != "recepcion" {
			t.Fatalf("err = %v, want a 401 of recepcion", err)
		}
		if got := f.rec.count(pRecRecepcion); got != 2 {
			t.Fatalf("recepcion calls = %d, want 2", got)
		}
		f.wantAuth(t, 2)
	})

	t.Run("NoAuthenticationHostNoToken", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		d := doc{encf: encf(1), rnc: f.from.RNC, buyer: dgiisim.RNCDirectoryNoAuth}
		entry := dgii.DirectoryEntry{RNC: dgiisim.RNCDirectoryNoAuth, URLRecepcion: f.base}
		if _, err := f.p.SendECF(ctx, dgii.Sender{Environment: sello.EnvTest, RNC: f.from.RNC}, entry, f.from.RNC+d.encf+".xml", d.signed(t)); err != nil {
			t.Fatal(err)
		}
		f.wantAuth(t, 0)
		if got := f.rec.last(pRecRecepcion).authorization; got != "" {
			t.Fatalf("Authorization = %q, want none", got)
		}
	})

	t.Run("ConcurrentFirstSendsAuthenticateOnce", func(t *testing.T) {
		f := newReceptorFixture(t, options{sim: dgiisim.Config{Latency: 20 * time.Millisecond}})
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for n := range 32 {
			wg.Go(func() { errs <- f.tryDeliver(f.from, n+1) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		f.wantAuth(t, 1)
	})

	t.Run("FailedAuthenticationIsNotKept", func(t *testing.T) {
		f := newReceptorFixture(t, options{})
		bad := f.from
		bad.Sign = func(_ context.Context, xml []byte) ([]byte, error) { return xml, nil } // unsigned
		err := f.tryDeliver(bad, 1)
		var re *dgii.ReceptorError
		if !errors.As(err, &re) || re.Op != "validacioncertificado" {
			t.Fatalf("err = %v, want validacioncertificado's refusal", err)
		}
		f.deliver(t, 2)
		f.wantAuth(t, 2)
	})
}
