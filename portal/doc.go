// Package portal is Sello's customer portal (spec §4.5, DESIGN §7): the
// pages people use in a browser to manage their company's integration.
// It is HTTP only: server-rendered templ components, htmx for the few
// partial updates, one stylesheet, all embedded in the binary. The domain
// (users, sessions, roles, the audit log) is in the root package; the
// portal asks the stores for it.
//
// The security model (docs/portal.md): sessions are server-side
// (sello.PeopleStore), the cookie holds a random token whose SHA-256 is
// stored; idle and absolute expiry; a new session on login and on every
// change of privilege; cross-origin state changes refused
// (http.CrossOriginProtection) and every state change carrying the
// session's CSRF token; a strict Content-Security-Policy with nothing
// inline. API keys are refused here, as portal cookies are by the API.
//
// Page handlers live in one file each (login.go, account.go, …); all
// routes are registered in routes.go; every string people read comes from
// internal/i18n (strings.go registers the portal's).
package portal
