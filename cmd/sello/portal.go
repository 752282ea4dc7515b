package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal"
)

// newPortal makes the portal served beside the API (docs/portal.md). Its
// URL is --portal-url, else http://ADDR. Its session cookie drops Secure
// only for the demo on this machine over plain HTTP.
func newPortal(rawURL, listenAddr string, demo bool, st *storage, mk *sello.MasterKey, trustedProxies []netip.Prefix, logger *slog.Logger) (*portal.Server, error) {
	if rawURL == "" {
		rawURL = "http://" + listenAddr
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, usageError{fmt.Sprintf("--portal-url %q must be the portal's address, http(s)://host[:port], with no path", rawURL)}
	}
	u.Path = ""
	loopback := isLoopback(u.Hostname())
	if u.Scheme == "http" && !loopback {
		logger.Warn("the portal's URL is plain http on another machine: browsers will not keep its Secure session cookie; serve it over HTTPS and give --portal-url https://…", "portal_url", u.String())
	}
	return &portal.Server{
		Store:           st,
		RateLimiter:     st.limiter,
		MasterKey:       mk,
		URL:             u,
		InsecureCookies: demo && u.Scheme == "http" && loopback,
		TrustedProxies:  trustedProxies,
		Logger:          logger.With("component", "portal"),
	}, nil
}

// isLoopback reports whether host names this machine's loopback.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// siteHandler serves the portal's requests (portal.Owns: GET /, /portal/…,
// the one-time links) with the portal and every other with the API, which
// answers its 404s and 405s as it always has.
func siteHandler(apiHandler, portalHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if portal.Owns(r) {
			portalHandler.ServeHTTP(w, r)
			return
		}
		apiHandler.ServeHTTP(w, r)
	})
}

// demoOwners are the demo tenants' owners, who log in to the portal.
var demoOwners = []struct{ rnc, email string }{
	{demoRNC, "demo@sello-demo.do"},
	{demoBuyerRNC, "comprador@sello-demo.do"},
}

// demoPassword is the demo owner's password of a tenant: derived from the
// master key, so that every start prints the same one without storing it.
func demoPassword(mk *sello.MasterKey, rnc string) string {
	return base64.RawURLEncoding.EncodeToString(mk.DeriveKey("sello demo portal password " + rnc)[:18])
}

// demoLogin is a demo tenant's owner's login, printed as "demo login RNC
// EMAIL PASSWORD".
type demoLogin struct{ rnc, email, password string }

// demoLogins gives each demo tenant its owner (created on the first start
// of a data folder that has none) and returns their logins. An owner whose
// password was changed in the portal is returned without it.
func demoLogins(ctx context.Context, st *storage, mk *sello.MasterKey) ([]demoLogin, error) {
	var out []demoLogin
	for _, d := range demoOwners {
		t, err := st.FindTenantByRNC(ctx, d.rnc)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			continue
		} else if err != nil {
			return nil, err
		}
		password := demoPassword(mk, d.rnc)
		u, err := st.FindUserByEmail(ctx, d.email)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			hash, err := sello.HashPassword(password)
			if err != nil {
				return nil, err
			}
			u = &sello.User{Email: d.email, PasswordHash: hash, Language: "es"}
			if err := st.CreateUser(ctx, u); sello.ErrorCodeOf(err) == sello.CodeConflict {
				// Another node starting beside this one made it first.
				if u, err = st.FindUserByEmail(ctx, d.email); err != nil {
					return nil, err
				}
			} else if err != nil {
				return nil, err
			}
			if err := st.PutMembership(ctx, &sello.Membership{TenantID: t.ID, UserID: u.ID, Role: sello.RoleOwner}); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		} else if ok, err := sello.CheckPassword(password, u.PasswordHash); err != nil || !ok {
			password = "(changed in the portal)"
		}
		out = append(out, demoLogin{d.rnc, d.email, password})
	}
	return out, nil
}
