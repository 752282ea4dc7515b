package portal

import (
	"errors"
	"io"
	"net/http"

	"github.com/sello-do/sello"
)

// The Certificados page: the company's signing certificates in every
// environment (subject, issuer, validity, which one signs in each
// environment now), and the forms that add one: a .p12 uploaded with its
// password (sello.OpenCertificateFile, as sello certificates add: modern
// or legacy 3DES/RC2 files), or, in TesteCF and CerteCF, a self-signed
// one (sello.NewSelfSignedCertificate, as sello certificates generate).
// Owners and administrators add; the others read. The password is used
// once to open the file: it is never stored, logged, audited or shown
// again.

func certificatesPath(env sello.Environment) string { return envPagePath(env, "certificados") }
func certificateGeneratePath(env sello.Environment) string {
	return envPagePath(env, "certificados", "generar")
}

// certificateStateKeys are the catalogue keys of a certificate's states.
var certificateStateKeys = map[sello.CertificateState]string{
	sello.CertificateValid:       "a certificate's state: valid",
	sello.CertificateExpiring:    "a certificate's state: expiring",
	sello.CertificateExpired:     "a certificate's state: expired",
	sello.CertificateNotYetValid: "a certificate's state: not yet valid",
}

// certificateRow is a certificate as the page lists it.
type certificateRow struct {
	*sello.Certificate
	State sello.CertificateState
	// Signs: the one that signs the environment's documents now.
	Signs bool
}

// certificateEnv is an environment's certificates.
type certificateEnv struct {
	Env          sello.Environment
	Certificates []certificateRow
	// Signing is false when no certificate can sign there now.
	Signing bool
}

// certificateForm is the upload form: its environment, and what it says
// after a refusal. Force is offered after a refusal of the certificate's
// holder (sello.IsHolderRefusal).
type certificateForm struct {
	Env        sello.Environment
	Error      *formError
	OfferForce bool
}

// certificatesView is the Certificados page.
type certificatesView struct {
	Env       sello.Environment
	Envs      []certificateEnv
	CanManage bool
	Form      certificateForm
}

// handleCertificates lists the company's certificates in every
// environment; the forms add one to the page's environment.
func (s *Server) handleCertificates(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	return s.renderCertificates(w, r, v, http.StatusOK, certificateForm{Env: env})
}

func (s *Server) renderCertificates(w http.ResponseWriter, r *http.Request, v *visit, status int, f certificateForm) error {
	ctx := r.Context()
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	view := certificatesView{Env: env, CanManage: canManage(v, certificateManagers), Form: f}
	now := s.now()
	for _, e := range sello.Environments {
		certs, err := s.Store.FindCertificates(ctx, v.Tenant.ID, e)
		if err != nil {
			return err
		}
		signing := ""
		if c, err := s.Store.FindSigningCertificate(ctx, v.Tenant.ID, e, now); err == nil {
			signing = c.ID
		} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
			return err
		}
		ce := certificateEnv{Env: e, Signing: signing != ""}
		for _, c := range certs {
			ce.Certificates = append(ce.Certificates, certificateRow{Certificate: c, State: c.State(now), Signs: c.ID == signing})
		}
		view.Envs = append(view.Envs, ce)
	}
	s.render(w, r, status, certificatesPage(s.fiscalLayout(r, v, v.T("Certificates")), view))
	return nil
}

// handleCertificateUpload adds the uploaded .p12 to the form's
// environment: the file (at most sello.MaxPKCS12Size) and its password
// through sello.OpenCertificateFile. A refusal shows the page again with
// the domain's message (the file is chosen again: a browser does not keep
// it); a refusal of the certificate's holder offers to add it anyway. The
// certificate added is audited (certificate.added), without the password.
func (s *Server) handleCertificateUpload(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, certificateManagers...); err != nil {
		return err
	}
	pageEnv, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	f := certificateForm{Env: pageEnv}
	if env, err := sello.ParseEnvironment(r.PostFormValue("environment")); err == nil {
		f.Env = env
	}
	fail := func(err error) error {
		if f.Error = formErrorOf(v, err); f.Error == nil {
			return err
		}
		f.OfferForce = sello.IsHolderRefusal(err)
		return s.renderCertificates(w, r, v, http.StatusBadRequest, f)
	}
	p12, _, err := uploadedFile(r, v, "p12", sello.MaxPKCS12Size)
	if err != nil {
		return fail(err)
	}
	force := r.PostFormValue("force") == "1"
	c, overridden, err := sello.OpenCertificateFile(sello.CertificateFile{
		Tenant: v.Tenant, Environment: f.Env, PKCS12: p12, Password: r.PostFormValue("password"), Force: force,
	}, s.MasterKey, s.now())
	if err != nil {
		return fail(err)
	}
	if err := s.Store.AddCertificate(r.Context(), c); err != nil {
		return fail(err)
	}
	a := auditOfCertificate(c)
	if overridden != nil {
		a.Forced = sello.ErrorMessageOf(overridden)
	}
	if err := s.auditFiscal(r.Context(), v, "certificate.added", c.ID, a); err != nil {
		return err
	}
	s.redirect(w, r, certificatesPath(f.Env)+"?done=certificate")
	return nil
}

// handleCertificateGenerate adds a self-signed test certificate to the
// form's environment, TesteCF or CerteCF (never eCF).
func (s *Server) handleCertificateGenerate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, certificateManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	c, err := sello.NewSelfSignedCertificate(v.Tenant, env, s.MasterKey)
	if err == nil {
		err = s.Store.AddCertificate(r.Context(), c)
	}
	if err != nil {
		f := certificateForm{Env: env, Error: formErrorOf(v, err)}
		if f.Error == nil {
			return err
		}
		return s.renderCertificates(w, r, v, http.StatusBadRequest, f)
	}
	a := auditOfCertificate(c)
	a.Generated = true
	if err := s.auditFiscal(r.Context(), v, "certificate.added", c.ID, a); err != nil {
		return err
	}
	s.redirect(w, r, certificatesPath(env)+"?done=generated")
	return nil
}

// certificateAudit is what the audit log keeps of a certificate added:
// the public certificate's facts, never the password or the key.
type certificateAudit struct {
	Environment  sello.Environment `json:"environment"`
	Subject      string            `json:"subject"`
	Issuer       string            `json:"issuer"`
	SerialNumber string            `json:"serialNumber"`
	Fingerprint  string            `json:"fingerprint"`
	NotAfter     string            `json:"notAfter"`
	SelfSigned   bool              `json:"selfSigned"`
	// Generated: a self-signed test certificate the portal made.
	Generated bool `json:"generated,omitempty"`
	// Forced is the holder refusal the person overrode.
	Forced string `json:"forced,omitempty"`
}

func auditOfCertificate(c *sello.Certificate) certificateAudit {
	return certificateAudit{Environment: c.Environment, Subject: c.Subject, Issuer: c.Issuer, SerialNumber: c.SerialNumber,
		Fingerprint: c.Fingerprint, NotAfter: sello.FormatTime(c.NotAfter), SelfSigned: c.SelfSigned}
}

// uploadedFile reads the multipart form's file field name, at most max
// bytes, and returns it with its file name. Returns INVALID_REQUEST when
// there is none, PAYLOAD_TOO_LARGE above max.
func uploadedFile(r *http.Request, v *visit, name string, max int64) ([]byte, string, error) {
	file, hdr, err := r.FormFile(name)
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return nil, "", pageError(sello.CodeInvalidRequest, v.T("Choose the file to upload."))
	} else if err != nil {
		return nil, "", pageError(sello.CodeInvalidRequest, v.T("The upload did not arrive whole: try again."))
	}
	defer file.Close()
	if hdr.Size > max {
		return nil, "", pageError(sello.CodePayloadTooLarge, v.T("The file has %s bytes; at most %s are taken here.", fiscalNumber(hdr.Size), fiscalNumber(max)))
	}
	b, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, "", pageError(sello.CodeInvalidRequest, v.T("The upload did not arrive whole: try again."))
	}
	if int64(len(b)) > max {
		return nil, "", pageError(sello.CodePayloadTooLarge, v.T("The file has %s bytes; at most %s are taken here.", fiscalNumber(int64(len(b))), fiscalNumber(max)))
	}
	return b, hdr.Filename, nil
}

// certificateValidity is a certificate's validity as the page shows it:
// from and until, in DR time.
func certificateValidity(l *layoutData, c *sello.Certificate) string {
	return l.T("%s to %s", formatTime(l, c.NotBefore), formatTime(l, c.NotAfter))
}
