package portal

import (
	"net/http"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// The Receptor page: what the company registers at DGII for its receiver
// services in one environment (docs/receptor.md, "What a tenant
// registers at DGII"), whether they require authentication, and the trust
// roots the receivers check signers against. Everyone in the company
// reads it; it changes nothing (authentication is turned off and on with
// sello tenants set-receiver-auth, the roots with sello serve
// --receiver-trust-roots).

func receptorPath(env sello.Environment) string { return "/portal/" + string(env) + "/receptor" }

// receptorField is one of DGII's fields for the company's services, with
// the URL to type in it.
type receptorField struct {
	// ID names the field's elements (receptor-url-ID, copy-ID).
	ID string
	// Key is the catalogue key of DGII's name of the field, Hint of what
	// DGII and the suppliers call there.
	Key, Hint string
	URL       string
}

// trustRoot is one certificate of the trust roots, as the page shows it.
type trustRoot struct {
	Subject, Issuer string
	NotAfter        time.Time
	Expired         bool
	Fingerprint     string
}

// receptorView is the page.
type receptorView struct {
	Env    sello.Environment
	Fields []receptorField
	// Services are the full paths DGII and the suppliers call below the
	// registered URL.
	Services []string
	// AuthRequired: the services require a token (Tenant.ReceiverAuthOff
	// is its opposite).
	AuthRequired bool
	Roots        []trustRoot
}

// receptorFields are DGII's fields for the receiver's URLs: the same URL
// goes in each (DGII and the suppliers append each service's path).
var receptorFields = []receptorField{
	{ID: "recepcion", Key: "Reception URL (URL de recepción)", Hint: "Where suppliers send you their e-CFs."},
	{ID: "aprobacion", Key: "Commercial approval URL (URL de aceptación)", Hint: "Where your buyers send their approvals and rejections of your e-CFs."},
	{ID: "autenticacion", Key: "Authentication URL (URL de autenticación, optional)", Hint: "Where callers get a token before they send."},
}

// receiverServices are the paths DGII's contract appends to the
// registered URLs (docs/receptor.md, "What each service answers").
var receiverServices = []string{
	"/fe/autenticacion/api/semilla",
	"/fe/autenticacion/api/validacioncertificado",
	"/fe/recepcion/api/ecf",
	"/fe/aprobacioncomercial/api/ecf",
}

// receiverBaseURL is the URL of the tenant's receiver services in env,
// under the portal's public address (the API answers there too).
func (s *Server) receiverBaseURL(env sello.Environment, rnc string) string {
	return strings.TrimRight(s.URL.String(), "/") + "/" + string(env) + "/receptor/" + rnc
}

// handleReceptor shows the company's receiver URLs in the environment,
// whether they require authentication, and the trust roots.
func (s *Server) handleReceptor(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	// The tenant as stored now: the session's copy may predate a change
	// of set-receiver-auth.
	t, err := s.Store.FindTenantByID(r.Context(), v.Tenant.ID)
	if err != nil {
		return err
	}
	base := s.receiverBaseURL(env, t.RNC)
	view := receptorView{Env: env, AuthRequired: !t.ReceiverAuthOff}
	for _, f := range receptorFields {
		f.URL = base
		view.Fields = append(view.Fields, f)
	}
	for _, svc := range receiverServices {
		view.Services = append(view.Services, base+svc)
	}
	now := s.now()
	for _, c := range s.ReceiverTrust.Certificates() {
		sg := sello.NewSigner(c)
		view.Roots = append(view.Roots, trustRoot{
			Subject: sg.Subject, Issuer: sg.Issuer, NotAfter: sg.NotAfter, Expired: now.After(sg.NotAfter), Fingerprint: sg.Fingerprint,
		})
	}
	s.render(w, r, http.StatusOK, receptorPage(s.layout(r, v, v.T("Receiver")), view))
	return nil
}

// fingerprintGroups is a SHA-256 fingerprint in groups of four, as
// people compare them.
func fingerprintGroups(hex string) string {
	var b strings.Builder
	for i := 0; i < len(hex); i += 4 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToUpper(hex[i:min(i+4, len(hex))]))
	}
	return b.String()
}
