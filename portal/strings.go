package portal

import (
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// The catalogue keys of values the pages name: roles, environments.
var (
	roleKeys = map[sello.Role]string{
		sello.RoleOwner:      "Owner",
		sello.RoleAdmin:      "Administrator",
		sello.RoleDeveloper:  "Developer",
		sello.RoleAccountant: "Accountant",
	}
	envDescriptionKeys = map[sello.Environment]string{
		sello.EnvTest: "TesteCF is DGII's test environment: documents here have no fiscal effect.",
		sello.EnvCert: "CerteCF is DGII's certification environment, where the company passes DGII's test set.",
		sello.EnvProd: "eCF is production: documents here are real fiscal documents.",
	}
)

// The portal's strings, Spanish (usted, as Dominican businesses write)
// and English, keyed by their English text. A page's strings are its
// handler's and template's: TestStrings fails on a key used but in no
// catalogue file (a few, like the second factor's "The code is wrong or
// was used already.", are the domain's errors', in internal/i18n).
func init() {
	i18n.Register(map[string]i18n.Entry{
		// The layout.
		"Skip to the content":           {EN: "Skip to the content", ES: "Ir al contenido"},
		"Sign out":                      {EN: "Sign out", ES: "Salir"},
		"Pages":                         {EN: "Pages", ES: "Páginas"},
		"Company":                       {EN: "Company", ES: "Empresa"},
		"Switch":                        {EN: "Switch", ES: "Cambiar"},
		"Environments and DGII's state": {EN: "Environments and DGII's state", ES: "Ambientes y estado de la DGII"},
		"%d documents waiting for DGII": {EN: "%d documents waiting for DGII", ES: "%d documentos en espera de la DGII"},
		"the other language":            {EN: "Español", ES: "English"},
		"the language's name":           {EN: "English", ES: "Español"},
		"Home":                          {EN: "Home", ES: "Inicio"},
		"Account":                       {EN: "Account", ES: "Cuenta"},
		"Error":                         {EN: "Error", ES: "Error"},
		"Back to the home page":         {EN: "Back to the home page", ES: "Volver al inicio"},
		"There is no such page.":        {EN: "There is no such page.", ES: "Esa página no existe."},
		"available":                     {EN: "available", ES: "disponible"},
		"contingency":                   {EN: "contingency", ES: "contingencia"},
		"sending what waited":           {EN: "sending what waited", ES: "enviando lo pendiente"},
		"state unknown":                 {EN: "state unknown", ES: "estado desconocido"},
		"Owner":                         {EN: "Owner", ES: "Propietario"},
		"Administrator":                 {EN: "Administrator", ES: "Administrador"},
		"Developer":                     {EN: "Developer", ES: "Desarrollador"},
		"Accountant":                    {EN: "Accountant", ES: "Contador"},
		"Sello, electronic fiscal documents (e-CF) for the Dominican Republic": {
			EN: "Sello, electronic fiscal documents (e-CF) for the Dominican Republic",
			ES: "Sello, comprobantes fiscales electrónicos (e-CF) de la República Dominicana"},
		"Something went wrong on our side. Try again in a moment.": {
			EN: "Something went wrong on our side. Try again in a moment.",
			ES: "Algo falló de nuestro lado. Inténtelo de nuevo en un momento."},

		// Security answers.
		"This request came from another site and was refused. Open the portal and try again from its own page.": {
			EN: "This request came from another site and was refused. Open the portal and try again from its own page.",
			ES: "Esta solicitud vino de otro sitio y fue rechazada. Abra el portal e inténtelo de nuevo desde su propia página."},
		"This form has expired. Reload the page and try again.": {
			EN: "This form has expired. Reload the page and try again.",
			ES: "Este formulario caducó. Recargue la página e inténtelo de nuevo."},
		"Your session has ended. Sign in again.": {
			EN: "Your session has ended. Sign in again.",
			ES: "Su sesión terminó. Inicie sesión de nuevo."},
		"Your role in this company does not allow this.": {
			EN: "Your role in this company does not allow this.",
			ES: "Su rol en esta empresa no le permite hacer esto."},
		"You do not belong to that company.": {
			EN: "You do not belong to that company.",
			ES: "Usted no pertenece a esa empresa."},
		"The portal does not accept API keys: its pages are for people, who sign in at /portal/entrar. Send the key (X-API-KEY) to the API's paths, /{env}/…": {
			EN: "The portal does not accept API keys: its pages are for people, who sign in at /portal/entrar. Send the key (X-API-KEY) to the API's paths, /{env}/…",
			ES: "El portal no acepta claves API: sus páginas son para personas, que inician sesión en /portal/entrar. Envíe la clave (X-API-KEY) a las rutas de la API, /{env}/…"},

		// The login and the second factor.
		"Sign in":                             {EN: "Sign in", ES: "Iniciar sesión"},
		"Email":                               {EN: "Email", ES: "Correo electrónico"},
		"Password":                            {EN: "Password", ES: "Contraseña"},
		"Forgot your password?":               {EN: "Forgot your password?", ES: "¿Olvidó su contraseña?"},
		"The email or the password is wrong.": {EN: "The email or the password is wrong.", ES: "El correo o la contraseña no son correctos."},
		"This user belongs to no company any more. Ask a company's owner for an invitation.": {
			EN: "This user belongs to no company any more. Ask a company's owner for an invitation.",
			ES: "Este usuario ya no pertenece a ninguna empresa. Pida una invitación al propietario de una empresa."},
		"Too many attempts. For your security, wait %d minutes and try again.": {
			EN: "Too many attempts. For your security, wait %d minutes and try again.",
			ES: "Demasiados intentos. Por su seguridad, espere %d minutos e inténtelo de nuevo."},
		"Too many attempts. For your security, wait %d seconds and try again.": {
			EN: "Too many attempts. For your security, wait %d seconds and try again.",
			ES: "Demasiados intentos. Por su seguridad, espere %d segundos e inténtelo de nuevo."},
		"Second factor": {EN: "Second factor", ES: "Segundo factor"},
		"Enter the 6-digit code your authenticator app shows, or one of your recovery codes.": {
			EN: "Enter the 6-digit code your authenticator app shows, or one of your recovery codes.",
			ES: "Escriba el código de 6 dígitos que muestra su aplicación de autenticación, o uno de sus códigos de recuperación."},
		"Code":                                        {EN: "Code", ES: "Código"},
		"Continue":                                    {EN: "Continue", ES: "Continuar"},
		"Cancel and sign out":                         {EN: "Cancel and sign out", ES: "Cancelar y salir"},
		"Pass your second factor first.":              {EN: "Pass your second factor first.", ES: "Primero valide su segundo factor."},
		"You have signed out.":                        {EN: "You have signed out.", ES: "Ha cerrado la sesión."},
		"You have signed out on every device.":        {EN: "You have signed out on every device.", ES: "Ha cerrado la sesión en todos sus dispositivos."},
		"You have joined the company.":                {EN: "You have joined the company.", ES: "Ya forma parte de la empresa."},
		"Your password was changed. Sign in with it.": {EN: "Your password was changed. Sign in with it.", ES: "Su contraseña cambió. Inicie sesión con ella."},

		// One-time links: invitations and password resets.
		"Invitation":                    {EN: "Invitation", ES: "Invitación"},
		"Choose a new password":         {EN: "Choose a new password", ES: "Elija una contraseña nueva"},
		"You are invited to %s as %s.":  {EN: "You are invited to %s as %s.", ES: "Le invitan a %s como %s."},
		"Your user is %s.":              {EN: "Your user is %s.", ES: "Su usuario es %s."},
		"Choose a new password for %s.": {EN: "Choose a new password for %s.", ES: "Elija una contraseña nueva para %s."},
		"New password":                  {EN: "New password", ES: "Contraseña nueva"},
		"At least 12 characters; a few unusual words make a good one.": {
			EN: "At least 12 characters; a few unusual words make a good one.",
			ES: "Al menos 12 caracteres; unas cuantas palabras poco comunes forman una buena."},
		"The same password again": {EN: "The same password again", ES: "La misma contraseña otra vez"},
		"You have a Sello user already: your password stays as it is.": {
			EN: "You have a Sello user already: your password stays as it is.",
			ES: "Usted ya tiene un usuario de Sello: su contraseña sigue igual."},
		"Join":                  {EN: "Join", ES: "Unirme"},
		"Save the new password": {EN: "Save the new password", ES: "Guardar la contraseña nueva"},
		"This link does not work: it was used already, it expired, or it is incomplete. Ask for a new one.": {
			EN: "This link does not work: it was used already, it expired, or it is incomplete. Ask for a new one.",
			ES: "Este enlace no funciona: ya se usó, caducó o está incompleto. Pida uno nuevo."},
		"The two passwords are not the same.": {EN: "The two passwords are not the same.", ES: "Las dos contraseñas no son iguales."},
		"If a user has that email, we have sent it a link to choose a new password. The link works for one hour.": {
			EN: "If a user has that email, we have sent it a link to choose a new password. The link works for one hour.",
			ES: "Si algún usuario tiene ese correo, le enviamos un enlace para elegir una contraseña nueva. El enlace funciona durante una hora."},
		"Back to sign in": {EN: "Back to sign in", ES: "Volver a iniciar sesión"},
		"Enter the email you sign in with: we will send it a link to choose a new password.": {
			EN: "Enter the email you sign in with: we will send it a link to choose a new password.",
			ES: "Escriba el correo con el que inicia sesión: le enviaremos un enlace para elegir una contraseña nueva."},
		"Enter the email you sign in with.": {EN: "Enter the email you sign in with.", ES: "Escriba el correo con el que inicia sesión."},
		"Send the link":                     {EN: "Send the link", ES: "Enviar el enlace"},
		"Sello: choose a new password":      {EN: "Sello: choose a new password", ES: "Sello: elija una contraseña nueva"},
		"Someone asked to reset the password of your Sello user. If it was you, open this link within an hour: %s\nIf it was not you, ignore this message: your password stays as it is.": {
			EN: "Someone asked to reset the password of your Sello user. If it was you, open this link within an hour: %s\nIf it was not you, ignore this message: your password stays as it is.",
			ES: "Alguien pidió restablecer la contraseña de su usuario de Sello. Si fue usted, abra este enlace antes de una hora: %s\nSi no fue usted, ignore este mensaje: su contraseña sigue igual."},

		// The account.
		"Your user":                      {EN: "Your user", ES: "Su usuario"},
		"Role":                           {EN: "Role", ES: "Rol"},
		"Language":                       {EN: "Language", ES: "Idioma"},
		"Change the password":            {EN: "Change the password", ES: "Cambiar la contraseña"},
		"Current password":               {EN: "Current password", ES: "Contraseña actual"},
		"The current password is wrong.": {EN: "The current password is wrong.", ES: "La contraseña actual no es correcta."},
		"Your password was changed. Your other sessions have ended.": {
			EN: "Your password was changed. Your other sessions have ended.",
			ES: "Su contraseña cambió. Sus otras sesiones terminaron."},
		"On since %s: signing in asks for a code of your authenticator app.": {
			EN: "On since %s: signing in asks for a code of your authenticator app.",
			ES: "Activo desde el %s: al iniciar sesión se pide un código de su aplicación de autenticación."},
		"%d recovery codes left.": {EN: "%d recovery codes left.", ES: "Le quedan %d códigos de recuperación."},
		"A company of yours requires a second factor: it cannot be turned off.": {
			EN: "A company of yours requires a second factor: it cannot be turned off.",
			ES: "Una de sus empresas exige un segundo factor: no se puede desactivar."},
		"Turn the second factor off": {EN: "Turn the second factor off", ES: "Desactivar el segundo factor"},
		"Turn the second factor on":  {EN: "Turn the second factor on", ES: "Activar el segundo factor"},
		"Off. A second factor asks for a code of an authenticator app on your phone at every sign-in: a stolen password is not enough then.": {
			EN: "Off. A second factor asks for a code of an authenticator app on your phone at every sign-in: a stolen password is not enough then.",
			ES: "Desactivado. Un segundo factor pide un código de una aplicación de autenticación en su teléfono cada vez que inicia sesión: así una contraseña robada no basta."},
		"Set up the second factor":  {EN: "Set up the second factor", ES: "Configurar el segundo factor"},
		"The second factor is off.": {EN: "The second factor is off.", ES: "El segundo factor está desactivado."},
		"The second factor is on.":  {EN: "The second factor is on.", ES: "El segundo factor está activado."},
		"Sessions":                  {EN: "Sessions", ES: "Sesiones"},
		"This session started on %s and ends by %s at the latest; after %d minutes without use it ends sooner.": {
			EN: "This session started on %s and ends by %s at the latest; after %d minutes without use it ends sooner.",
			ES: "Esta sesión empezó el %s y termina a más tardar el %s; tras %d minutos sin uso termina antes."},
		"Sign out on every device": {EN: "Sign out on every device", ES: "Cerrar la sesión en todos los dispositivos"},
		"Recovery codes":           {EN: "Recovery codes", ES: "Códigos de recuperación"},
		"Keep these codes somewhere safe: each one lets you in once if you lose your phone. They are not shown again.": {
			EN: "Keep these codes somewhere safe: each one lets you in once if you lose your phone. They are not shown again.",
			ES: "Guarde estos códigos en un lugar seguro: cada uno le deja entrar una vez si pierde su teléfono. No se vuelven a mostrar."},
		"Your company requires a second factor: set it up to go on.": {
			EN: "Your company requires a second factor: set it up to go on.",
			ES: "Su empresa exige un segundo factor: configúrelo para continuar."},
		"You need an authenticator app on your phone (for example FreeOTP, Google Authenticator or Microsoft Authenticator).": {
			EN: "You need an authenticator app on your phone (for example FreeOTP, Google Authenticator or Microsoft Authenticator).",
			ES: "Necesita una aplicación de autenticación en su teléfono (por ejemplo FreeOTP, Google Authenticator o Microsoft Authenticator)."},
		"Start": {EN: "Start", ES: "Empezar"},
		"Scan this code with your authenticator app, or type the key below into it. Then enter the 6-digit code it shows.": {
			EN: "Scan this code with your authenticator app, or type the key below into it. Then enter the 6-digit code it shows.",
			ES: "Escanee este código con su aplicación de autenticación, o escriba en ella la clave de abajo. Luego escriba el código de 6 dígitos que muestra."},
		"Key": {EN: "Key", ES: "Clave"},
		"QR code of the second factor, for your authenticator app": {
			EN: "QR code of the second factor, for your authenticator app",
			ES: "Código QR del segundo factor, para su aplicación de autenticación"},

		// The home page.
		"RNC":                              {EN: "RNC", ES: "RNC"},
		"Your role":                        {EN: "Your role", ES: "Su rol"},
		"DGII in %s":                       {EN: "DGII in %s", ES: "La DGII en %s"},
		"No document is waiting for DGII.": {EN: "No document is waiting for DGII.", ES: "Ningún documento espera por la DGII."},
		"TesteCF is DGII's test environment: documents here have no fiscal effect.": {
			EN: "TesteCF is DGII's test environment: documents here have no fiscal effect.",
			ES: "TesteCF es el ambiente de pruebas de la DGII: aquí los documentos no tienen efecto fiscal."},
		"CerteCF is DGII's certification environment, where the company passes DGII's test set.": {
			EN: "CerteCF is DGII's certification environment, where the company passes DGII's test set.",
			ES: "CerteCF es el ambiente de certificación de la DGII, donde la empresa pasa el set de pruebas de la DGII."},
		"eCF is production: documents here are real fiscal documents.": {
			EN: "eCF is production: documents here are real fiscal documents.",
			ES: "eCF es producción: aquí los documentos son comprobantes fiscales reales."},
	})
}
