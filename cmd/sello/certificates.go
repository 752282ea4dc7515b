package main

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// selfSignedValidity is how long a generated test certificate lasts.
const selfSignedValidity = 365 * 24 * time.Hour

func runCertificates(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, envName, p12Path, passwordEnv string
	var force bool
	return runGroup(ctx, "certificates", []command{
		{
			name: "add",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
				fs.StringVar(&p12Path, "p12", "", "the PKCS#12 (.p12/.pfx) file of the signing certificate")
				fs.StringVar(&passwordEnv, "password-env", "", "name of the environment variable holding the file's password")
				fs.BoolVar(&force, "force", false, "add a certificate whose subject names another RNC, or no RNC or cédula (never a self-signed one in eCF)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName, "p12": p12Path, "password-env": passwordEnv}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				data, err := os.ReadFile(p12Path)
				if err != nil {
					return err
				}
				password, ok := os.LookupEnv(passwordEnv)
				if getenv(passwordEnv) != "" {
					password, ok = getenv(passwordEnv), true
				}
				if !ok {
					return usageError{fmt.Sprintf("the environment variable %s is not set", passwordEnv)}
				}
				key, cert, _, err := xmldsig.ParsePKCS12(data, password)
				if err != nil {
					return sello.Errorf(sello.CodeInvalidRequest, "Cannot open %s: %v.", p12Path, err)
				}
				if time.Now().After(cert.NotAfter) {
					return sello.Errorf(sello.CodeInvalidRequest, "The certificate expired on %s.", sello.FormatTime(cert.NotAfter))
				}
				if env == sello.EnvProd && sello.SelfSigned(cert) {
					return errSelfSignedInECF("--force does not change this")
				}
				if err := sello.CheckCertificateHolder(cert, t.RNC); err != nil {
					if !force {
						return sello.Errorf(sello.CodeInvalidRequest, "%s If it is the right certificate for %s, add --force.", sello.ErrorText(err), t.RNC)
					}
					fmt.Fprintf(stderr, "added with --force: %s\n", sello.ErrorMessageOf(err))
				}
				return addCertificate(ctx, st, getenv, t, env, cert, key, stdout)
			},
		},
		{
			name: "generate",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF or CerteCF (never eCF)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				if env == sello.EnvProd {
					return errSelfSignedInECF("add it with sello certificates add")
				}
				key, cert, err := generateCertificate(t)
				if err != nil {
					return err
				}
				return addCertificate(ctx, st, getenv, t, env, cert, key, stdout)
			},
		},
		{
			name: "list",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				certs, err := st.FindCertificates(ctx, t.ID, env)
				if err != nil {
					return err
				}
				now := time.Now()
				signing := ""
				if c, err := st.FindSigningCertificate(ctx, t.ID, env, now); err == nil {
					signing = c.ID
				} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "id\tsigns\tsubject\tnotAfter\tstate\tselfSigned\tfingerprint")
				for _, c := range certs {
					state := "valid"
					switch {
					case now.After(c.NotAfter):
						state = "expired"
					case now.Before(c.NotBefore):
						state = "not yet valid"
					case c.NotAfter.Sub(now) < sello.CertificateExpiryWarning:
						state = "expiring"
					}
					signs := "-"
					if c.ID == signing {
						signs = "yes"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\n", c.ID, signs, c.Subject, sello.FormatTime(c.NotAfter), state, c.SelfSigned, c.Fingerprint[:16])
				}
				if signing == "" {
					fmt.Fprintf(stderr, "no certificate can sign in %s now: documents created there fail until one is added (sello certificates add)\n", env)
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}

// errSelfSignedInECF refuses a self-signed certificate in eCF; hint says
// what to do instead.
func errSelfSignedInECF(hint string) error {
	return sello.Errorf(sello.CodeInvalidRequest, "A self-signed certificate cannot sign in eCF: DGII requires a certificate issued by an authorized CA (%s).", hint)
}

// generateCertificate makes a self-signed test certificate for a tenant.
func generateCertificate(t *sello.Tenant) (*rsa.PrivateKey, *x509.Certificate, error) {
	return xmldsig.GenerateSelfSigned(pkix.Name{
		CommonName:   t.Name + " (prueba Sello)",
		SerialNumber: "RNC-" + t.RNC,
		Organization: []string{t.Name},
		Country:      []string{"DO"},
	}, time.Now().Add(selfSignedValidity))
}

// addCertificate seals the key with the master key and stores the
// certificate; prints its id.
func addCertificate(ctx context.Context, st *storage, getenv func(string) string, t *sello.Tenant, env sello.Environment, cert *x509.Certificate, key *rsa.PrivateKey, stdout io.Writer) error {
	mk, err := st.flags.masterKey(getenv, false)
	if err != nil {
		return err
	}
	c, err := sello.NewCertificate(t.ID, env, cert, key, mk)
	if err != nil {
		return err
	}
	if err := st.AddCertificate(ctx, c); err != nil {
		return err
	}
	fmt.Fprintln(stdout, c.ID)
	return nil
}
