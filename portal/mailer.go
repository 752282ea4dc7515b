package portal

import (
	"context"
	"log/slog"

	"github.com/sello-do/sello"
)

// Mailer sends the portal's mail: the one-time links of password resets
// and of the invitations an owner sends from the users' page (the first
// owner's link, which the CLI makes, is printed instead). Plug in a real
// one (SMTP, a provider's API) by implementing it; the only built-in is
// LogMailer.
type Mailer interface {
	// Send sends m. An error fails the request that sent it.
	Send(ctx context.Context, m Mail) error
}

// Mail is one message, in its reader's language.
type Mail struct {
	To, Subject, Body string
	// Link is the one-time link the body carries, and Purpose what it is
	// for.
	Link    string
	Purpose sello.LinkPurpose
}

// LogMailer is the built-in Mailer: it sends nothing and logs the message,
// link included, at level WARN, for the demo and for operators without
// mail. The link is a live credential for an hour (a reset) or a day (an
// invitation): a log that others read should have a real Mailer instead.
type LogMailer struct {
	Logger *slog.Logger
}

// Send implements Mailer.
func (m LogMailer) Send(ctx context.Context, mail Mail) error {
	m.Logger.LogAttrs(ctx, slog.LevelWarn, "portal mail not sent (no mailer configured): the link is here",
		slog.String("to", mail.To), slog.String("subject", mail.Subject), slog.String("purpose", string(mail.Purpose)), slog.String("link", mail.Link))
	return nil
}
