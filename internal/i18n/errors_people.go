package i18n

// The messages of the portal's people (users, memberships, sessions,
// one-time links, second factors, the audit log) that reach a person
// through an error, from the domain, the stores and the CLI.

func init() {
	registerErrors(map[string]string{
		// Users, roles and links (user.go, password.go, totp.go).
		"%q is not an email address.":                                       "%q no es una dirección de correo electrónico.",
		"Unknown role %q: use owner, admin, developer or accountant.":       "Rol desconocido %q: use owner, admin, developer o accountant.",
		"Link token hash required.":                                         "El hash del token del enlace es obligatorio.",
		"Link expiry required.":                                             "El vencimiento del enlace es obligatorio.",
		"An invitation needs a tenant.":                                     "Una invitación necesita una empresa.",
		"A password reset link has no tenant or role.":                      "Un enlace para restablecer la contraseña no lleva empresa ni rol.",
		"Unknown link purpose %q.":                                          "Propósito de enlace desconocido %q.",
		"The password is not valid text.":                                   "La contraseña no es un texto válido.",
		"The password must have at least %d characters.":                    "La contraseña debe tener al menos %d caracteres.",
		"The password must have at most %d characters.":                     "La contraseña debe tener como máximo %d caracteres.",
		"The password must not be your email address.":                      "La contraseña no debe ser su correo electrónico.",
		"The password is one of the most common passwords: choose another.": "La contraseña es una de las más comunes: elija otra.",
		"The password must have at least %d different characters.":          "La contraseña debe tener al menos %d caracteres distintos.",
		"The user has no second factor.":                                    "El usuario no tiene segundo factor.",
		"The code is wrong or was used already.":                            "El código es incorrecto o ya se usó.",

		// The stores (sqlite, postgres).
		"A user with email %s exists.":                                  "Ya existe un usuario con el correo %s.",
		"User not found.":                                               "No se encontró el usuario.",
		"User %q not found.":                                            "No se encontró el usuario %q.",
		"This code, or a later one, was used already.":                  "Este código, u otro posterior, ya se usó.",
		"No such unused recovery code.":                                 "No existe ese código de recuperación sin usar.",
		"The tenant must keep an owner: make another user owner first.": "La empresa debe conservar un propietario: haga propietario a otro usuario primero.",
		"The user is not a member of the tenant.":                       "El usuario no es miembro de la empresa.",
		"Session token hash required.":                                  "El hash del token de sesión es obligatorio.",
		"The session's user or tenant does not exist.":                  "El usuario o la empresa de la sesión no existe.",
		"A session with this token hash exists.":                        "Ya existe una sesión con este hash de token.",
		"Session not found.":                                            "No se encontró la sesión.",
		"A link with this token hash exists.":                           "Ya existe un enlace con este hash de token.",
		"The link is unknown, used or expired.":                         "El enlace es desconocido, ya se usó o venció.",
		"Audit entry action required.":                                  "La acción de la entrada de auditoría es obligatoria.",

		// The CLI (cmd/sello).
		"Tenant %s has no owner yet: its first user must be --role owner.": "La empresa %s todavía no tiene propietario: su primer usuario debe ser --role owner.",
	})
}
