package portal

// The users' page (users.go, users.templ).
func init() {
	registerSpanish(map[string]string{
		"Users":                          "Usuarios",
		"This company has no such user.": "Esta empresa no tiene ese usuario.",
		"%s is a member of the company already: change their role in the list instead.": "%s ya es miembro de la empresa: cambie su rol en la lista.",
		"Sello: an invitation to %s": "Sello: una invitación a %s",
		"%s invites you to work on Sello for %s, as %s. Open this link within 24 hours to join: %s\nIf you did not expect it, ignore this message.": "%s le invita a trabajar en Sello para %s, como %s. Abra este enlace antes de 24 horas para unirse: %s\nSi no lo esperaba, ignore este mensaje.",
		"Remove a user": "Quitar un usuario",
		"Choose whether the company requires a second factor.": "Elija si la empresa exige un segundo factor.",
		"Members of the company":                               "Miembros de la empresa",
		"(you)":                                                "(usted)",
		"on":                                                   "activado",
		"off":                                                  "desactivado",
		"Member since":                                         "Miembro desde",
		"New role":                                             "Rol nuevo",
		"Change the role":                                      "Cambiar el rol",
		"Remove":                                               "Quitar",
		"A company always keeps an owner: make another member owner before the last owner changes role or leaves.": "Una empresa siempre conserva un propietario: haga propietario a otro miembro antes de que el último propietario cambie de rol o salga.",
		"Invite someone": "Invitar a alguien",
		"We mail them a link that works once, for 24 hours. Through it they choose a password (or, if they have a Sello user already, sign in with theirs) and join the company with the role you choose.": "Le enviamos por correo un enlace que funciona una vez, durante 24 horas. Con él elige una contraseña (o, si ya tiene usuario de Sello, inicia sesión con la suya) y se une a la empresa con el rol que usted elija.",
		"Send the invitation":        "Enviar la invitación",
		"Second factor for everyone": "Segundo factor para todos",
		"The company requires a second factor: every member signs in with a code of their authenticator app.": "La empresa exige un segundo factor: cada miembro inicia sesión con un código de su aplicación de autenticación.",
		"The company does not require a second factor: each member chooses.":                                  "La empresa no exige un segundo factor: cada miembro decide.",
		"Stop requiring a second factor": "Dejar de exigir un segundo factor",
		"Members without a second factor will set one up at their next page, before anything else; you too, if you have none.": "Los miembros sin segundo factor lo configurarán en su próxima página, antes que nada; usted también, si no lo tiene.",
		"Require a second factor": "Exigir un segundo factor",
		"They will no longer work in this company: their session here ends at their next page. Their user stays (it may belong to other companies), and you may invite them again.": "Ya no trabajará en esta empresa: su sesión aquí termina en su próxima página. Su usuario se conserva (puede pertenecer a otras empresas), y usted puede invitarle de nuevo.",
		"This is you: you leave the company at once.": "Es usted: sale de la empresa de inmediato.",
		"Remove from the company":                     "Quitar de la empresa",

		// flashKeys.
		"The invitation is sent. Its link works for 24 hours and only once.": "La invitación se envió. Su enlace funciona durante 24 horas y una sola vez.",
		"The role is changed. The user signs in again to work with it.":      "El rol cambió. El usuario inicia sesión de nuevo para trabajar con él.",
		"Your role is changed.":                      "Su rol cambió.",
		"The user no longer belongs to the company.": "El usuario ya no pertenece a la empresa.",
		"The company now requires a second factor: members without one set it up at their next page.": "La empresa ahora exige un segundo factor: los miembros sin él lo configuran en su próxima página.",
		"The company no longer requires a second factor.":                                             "La empresa ya no exige un segundo factor.",

		// roleDescriptionKeys.
		"everything, users and the audit log included":             "todo, incluidos los usuarios y la auditoría",
		"everything but users and the audit log":                   "todo menos los usuarios y la auditoría",
		"API keys and webhooks; reads the rest":                    "claves API y webhooks; consulta lo demás",
		"documents, received documents, sequences; reads the rest": "comprobantes, comprobantes recibidos, secuencias; consulta lo demás",
	})
}
