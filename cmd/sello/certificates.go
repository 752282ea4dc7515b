package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
)

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
				mk, err := st.flags.masterKey(getenv, false)
				if err != nil {
					return err
				}
				c, overridden, err := sello.OpenCertificateFile(sello.CertificateFile{Tenant: t, Environment: env, PKCS12: data, Password: password, Force: force}, mk, time.Now())
				switch {
				case sello.IsHolderRefusal(err):
					return sello.Errorf(sello.CodeInvalidRequest, "%s If it is the right certificate for %s, add --force.", sello.ErrorText(err), t.RNC)
				case err != nil:
					return err
				case overridden != nil:
					fmt.Fprintf(stderr, "added with --force: %s\n", sello.ErrorMessageOf(overridden))
				}
				return addCertificate(ctx, st, c, stdout)
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
				mk, err := st.flags.masterKey(getenv, false)
				if err != nil {
					return err
				}
				c, err := sello.NewSelfSignedCertificate(t, env, mk)
				if err != nil {
					return err
				}
				return addCertificate(ctx, st, c, stdout)
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
					state := strings.ReplaceAll(string(c.State(now)), "_", " ")
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

// addCertificate stores the certificate and prints its id.
func addCertificate(ctx context.Context, st *storage, c *sello.Certificate, stdout io.Writer) error {
	if err := st.AddCertificate(ctx, c); err != nil {
		return err
	}
	fmt.Fprintln(stdout, c.ID)
	return nil
}
