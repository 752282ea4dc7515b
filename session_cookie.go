package sello

// The names of the portal's session cookie (DESIGN §7). The portal sets
// HostSessionCookie when it is served over HTTPS (the __Host- prefix binds
// the cookie to the host, Secure and Path=/) and SessionCookie otherwise.
// The API refuses a request that carries either one instead of a key (spec
// §4.5: portal cookies must not be used from a customer system).
const (
	SessionCookie     = "sello_session"
	HostSessionCookie = "__Host-sello_session"
)
