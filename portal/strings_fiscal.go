package portal

import "github.com/sello-do/sello/internal/i18n"

// The fiscal administration pages' strings (fiscal.go, sequences.go,
// voids.go, certificates.go, certification.go and their templates),
// Spanish and English, keyed by their English text.
func init() {
	e := func(en, es string) i18n.Entry { return i18n.Entry{EN: en, ES: es} }
	i18n.Register(map[string]i18n.Entry{
		// The menu and what the audit log calls the changes.
		"Sequences":                          e("Sequences", "Secuencias"),
		"Voids":                              e("Voids", "Anulaciones"),
		"Certificates":                       e("Certificates", "Certificados"),
		"Certification":                      e("Certification", "Certificación"),
		"e-NCF range registered":             e("e-NCF range registered", "Rango de e-NCF registrado"),
		"e-NCF numbers voided":               e("e-NCF numbers voided", "Números de e-NCF anulados"),
		"Signing certificate added":          e("Signing certificate added", "Certificado de firma agregado"),
		"Certification run started":          e("Certification run started", "Corrida de certificación iniciada"),
		"… and %d more.":                     e("… and %d more.", "… y %d más."),
		"No answer from DGII yet.":           e("No answer from DGII yet.", "Todavía no hay respuesta de la DGII."),
		"DGII's answer":                      e("DGII's answer", "Respuesta de la DGII"),
		"Refresh":                            e("Refresh", "Actualizar"),
		"Last updated":                       e("Last updated", "Última actualización"),
		"Type":                               e("Type", "Tipo"),
		"To":                                 e("To", "Hasta"),
		"e-NCF":                              e("e-NCF", "e-NCF"),
		"%s: a whole number, like 1 or 500.": e("%s: a whole number, like 1 or 500.", "%s: un número entero, como 1 o 500."),
		"Choose the file to upload.":         e("Choose the file to upload.", "Elija el archivo que desea subir."),
		"The upload did not arrive whole: try again.": e("The upload did not arrive whole: try again.",
			"El archivo no llegó completo: intente de nuevo."),
		"The file has %s bytes; at most %s are taken here.": e("The file has %s bytes; at most %s are taken here.",
			"El archivo tiene %s bytes; aquí se aceptan como máximo %s."),

		// Secuencias.
		"The range is registered: Sello numbers documents from it once the ranges before it are used up.": e(
			"The range is registered: Sello numbers documents from it once the ranges before it are used up.",
			"El rango quedó registrado: Sello numera comprobantes con él cuando se agoten los rangos anteriores."),
		"Sequences in %s": e("Sequences in %s", "Secuencias en %s"),
		"The e-NCF ranges DGII authorized the company, which Sello numbers documents from, in order: the oldest range of a type with numbers left first.": e(
			"The e-NCF ranges DGII authorized the company, which Sello numbers documents from, in order: the oldest range of a type with numbers left first.",
			"Los rangos de e-NCF que la DGII autorizó a la empresa, con los que Sello numera los comprobantes en orden: primero el rango más antiguo de cada tipo que tenga números disponibles."),
		"Registered ranges": e("Registered ranges", "Rangos registrados"),
		"No range registered in %s yet: documents of a type without one are refused (SEQUENCE_EXHAUSTED).": e(
			"No range registered in %s yet: documents of a type without one are refused (SEQUENCE_EXHAUSTED).",
			"Todavía no hay rangos registrados en %s: los comprobantes de un tipo sin rango se rechazan (SEQUENCE_EXHAUSTED)."),
		"Range":                    e("Range", "Rango"),
		"Used":                     e("Used", "Usados"),
		"Left":                     e("Left", "Disponibles"),
		"Next e-NCF":               e("Next e-NCF", "Próximo e-NCF"),
		"a range's state: in use":  e("in use", "en uso"),
		"a range's state: expired": e("expired", "vencido"),
		"a range's state: used up": e("used up", "agotado"),
		"running low":              e("running low", "quedan pocos"),
		"expires soon":             e("expires soon", "vence pronto"),
		"Register a range":         e("Register a range", "Registrar un rango"),
		"Register each range exactly as DGII authorized it (Oficina Virtual, \"Solicitud de secuencias de e-NCF\"), in this environment.": e(
			"Register each range exactly as DGII authorized it (Oficina Virtual, \"Solicitud de secuencias de e-NCF\"), in this environment.",
			"Registre cada rango tal como la DGII lo autorizó (Oficina Virtual, \"Solicitud de secuencias de e-NCF\"), en este ambiente."),
		"Expiry DGII gave the range": e("Expiry DGII gave the range", "Vencimiento que la DGII dio al rango"),
		"FechaVencimientoSecuencia. Types 32 and 34 have none: leave it empty for them.": e(
			"FechaVencimientoSecuencia. Types 32 and 34 have none: leave it empty for them.",
			"FechaVencimientoSecuencia. Los tipos 32 y 34 no tienen: déjelo vacío para ellos."),
		"Register the range": e("Register the range", "Registrar el rango"),

		// Anulaciones.
		"Voids in %s":         e("Voids in %s", "Anulaciones en %s"),
		"Void unused numbers": e("Void unused numbers", "Anular números sin usar"),
		"Confirm the void":    e("Confirm the void", "Confirmar la anulación"),
		"Void":                e("Void", "Anulación"),
		"The void has no signed ANECF yet: the worker signs it before sending it to DGII.": e(
			"The void has no signed ANECF yet: the worker signs it before sending it to DGII.",
			"La anulación todavía no tiene su ANECF firmado: se firma antes de enviarla a la DGII."),
		"a void's state: pending":            e("waiting for DGII", "esperando a la DGII"),
		"a void's state: accepted":           e("accepted", "aceptada"),
		"a void's state: partially accepted": e("partially accepted", "aceptada en parte"),
		"a void's state: rejected":           e("rejected", "rechazada"),
		"a void's state: failed":             e("not sent", "no enviada"),
		"A void (DGII's ANECF) withdraws authorized e-NCF numbers the company will never use. Numbers a document used are not voided: that document is cancelled with a credit note (E34).": e(
			"A void (DGII's ANECF) withdraws authorized e-NCF numbers the company will never use. Numbers a document used are not voided: that document is cancelled with a credit note (E34).",
			"Una anulación (el ANECF de la DGII) retira números de e-NCF autorizados que la empresa nunca usará. Los números que usó un comprobante no se anulan: ese comprobante se cancela con una nota de crédito (E34)."),
		"No void in %s yet.": e("No void in %s yet.", "Todavía no hay anulaciones en %s."),
		"Ranges":             e("Ranges", "Rangos"),
		"Numbers":            e("Numbers", "Números"),
		"Pages of the voids": e("Pages of the voids", "Páginas de las anulaciones"),
		"Only numbers of the company's registered ranges in %s that no document used. One number: fill From alone. Leave the rows you do not need empty.": e(
			"Only numbers of the company's registered ranges in %s that no document used. One number: fill From alone. Leave the rows you do not need empty.",
			"Solo números de los rangos registrados de la empresa en %s que ningún comprobante usó. Un solo número: llene solo Desde. Deje vacías las filas que no necesite."),
		"Range %d":        e("Range %d", "Rango %d"),
		"Review the void": e("Review the void", "Revisar la anulación"),
		"DGII voids these %s numbers for good: they can never be used, whatever DGII answers.": e(
			"DGII voids these %s numbers for good: they can never be used, whatever DGII answers.",
			"La DGII anula estos %s números para siempre: nunca podrán usarse, responda lo que responda la DGII."),
		"(%s numbers)":                    e("(%s numbers)", "(%s números)"),
		"Void them":                       e("Void them", "Anularlos"),
		"All voids":                       e("All voids", "Todas las anulaciones"),
		"Void of %s numbers":              e("Void of %s numbers", "Anulación de %s números"),
		"Download the signed ANECF (XML)": e("Download the signed ANECF (XML)", "Descargar el ANECF firmado (XML)"),

		// Certificados.
		"The certificate is added.":                e("The certificate is added.", "El certificado quedó agregado."),
		"A self-signed test certificate is added.": e("A self-signed test certificate is added.", "Quedó agregado un certificado autofirmado de prueba."),
		"%s to %s":                             e("%s to %s", "%s a %s"),
		"a certificate's state: valid":         e("valid", "vigente"),
		"a certificate's state: expiring":      e("expires soon", "vence pronto"),
		"a certificate's state: expired":       e("expired", "vencido"),
		"a certificate's state: not yet valid": e("not yet valid", "todavía no vigente"),
		"Signing certificates":                 e("Signing certificates", "Certificados de firma"),
		"In each environment Sello signs documents, voids and approvals, and authenticates with DGII, with the valid certificate added last there. Its private key is kept sealed with the server's master key; the file's password is used once, to open it, and never kept.": e(
			"In each environment Sello signs documents, voids and approvals, and authenticates with DGII, with the valid certificate added last there. Its private key is kept sealed with the server's master key; the file's password is used once, to open it, and never kept.",
			"En cada ambiente Sello firma los comprobantes, las anulaciones y las aprobaciones, y se autentica ante la DGII, con el certificado vigente agregado último allí. Su clave privada se guarda sellada con la clave maestra del servidor; la contraseña del archivo se usa una vez, para abrirlo, y nunca se guarda."),
		"No certificate can sign in %s now: documents created there fail until one is added.": e(
			"No certificate can sign in %s now: documents created there fail until one is added.",
			"Ningún certificado puede firmar ahora en %s: los comprobantes creados allí fallan hasta que se agregue uno."),
		"signs in %s":                   e("signs in %s", "firma en %s"),
		"Issued by":                     e("Issued by", "Emitido por"),
		"(self-signed: for tests only)": e("(self-signed: for tests only)", "(autofirmado: solo para pruebas)"),
		"Validity":                      e("Validity", "Vigencia"),
		"Serial number":                 e("Serial number", "Número de serie"),
		"SHA-256 fingerprint":           e("SHA-256 fingerprint", "Huella SHA-256"),
		"Add a certificate":             e("Add a certificate", "Agregar un certificado"),
		"The .p12 (or .pfx) file of the digital certificate for tax procedures of the person delegated for the company's RNC at DGII, with its password. Files from older tools (3DES or RC2 encryption) are taken as they are.": e(
			"The .p12 (or .pfx) file of the digital certificate for tax procedures of the person delegated for the company's RNC at DGII, with its password. Files from older tools (3DES or RC2 encryption) are taken as they are.",
			"El archivo .p12 (o .pfx) del certificado digital para procedimientos tributarios de la persona delegada para el RNC de la empresa ante la DGII, con su contraseña. Los archivos de herramientas antiguas (cifrado 3DES o RC2) se aceptan tal como están."),
		"Certificate file (.p12, .pfx)": e("Certificate file (.p12, .pfx)", "Archivo del certificado (.p12, .pfx)"),
		"At most 64 KiB.":               e("At most 64 KiB.", "Como máximo 64 KiB."),
		"The file's password":           e("The file's password", "Contraseña del archivo"),
		"It is the right certificate for RNC %s: add it anyway (choose the file again).": e(
			"It is the right certificate for RNC %s: add it anyway (choose the file again).",
			"Es el certificado correcto para el RNC %s: agregarlo de todos modos (elija el archivo otra vez)."),
		"Add the certificate": e("Add the certificate", "Agregar el certificado"),
		"A test certificate":  e("A test certificate", "Un certificado de prueba"),
		"For %s, Sello can make a self-signed certificate in the company's name, valid one year. DGII's production (eCF) never accepts one.": e(
			"For %s, Sello can make a self-signed certificate in the company's name, valid one year. DGII's production (eCF) never accepts one.",
			"Para %s, Sello puede crear un certificado autofirmado a nombre de la empresa, vigente un año. La producción de la DGII (eCF) nunca lo acepta."),
		"Make a self-signed certificate for %s": e("Make a self-signed certificate for %s", "Crear un certificado autofirmado para %s"),

		// Certificación.
		"Certification run": e("Certification run", "Corrida de certificación"),
		"No e-CF of this run is signed yet: its printed representations follow its signatures.": e(
			"No e-CF of this run is signed yet: its printed representations follow its signatures.",
			"Todavía no hay e-CF firmados en esta corrida: sus representaciones impresas siguen a sus firmas."),
		"a run's state: running":                  e("running", "en curso"),
		"a run's state: passed":                   e("passed", "aprobada"),
		"a run's state: stopped":                  e("stopped by a rejection", "detenida por un rechazo"),
		"a run's state: failed":                   e("failed", "fallida"),
		"a row's state: pending":                  e("pending", "pendiente"),
		"a row's state: signed":                   e("signed", "firmada"),
		"a row's state: sent":                     e("sent, waiting for DGII", "enviada, esperando a la DGII"),
		"a row's state: accepted":                 e("accepted", "aceptada"),
		"a row's state: accepted with conditions": e("accepted with conditions", "aceptada condicional"),
		"a row's state: rejected":                 e("rejected", "rechazada"),
		"a row's state: failed":                   e("not sent", "no enviada"),
		"e-CF":                                    e("e-CF", "e-CF"),
		"RFCE summary":                            e("RFCE summary", "resumen RFCE"),
		"commercial approval (ACECF)":             e("commercial approval (ACECF)", "aprobación comercial (ACECF)"),
		"Certification in CerteCF":                e("Certification in CerteCF", "Certificación en CerteCF"),
		"DGII's data tests (steps 2 and 3 of its certification): Sello builds each row of DGII's workbook with exactly its fields, signs it with the company's CerteCF certificate and sends it, one row at a time, recording DGII's answer. A rejection stops the run at its row: DGII restarts the whole set.": e(
			"DGII's data tests (steps 2 and 3 of its certification): Sello builds each row of DGII's workbook with exactly its fields, signs it with the company's CerteCF certificate and sends it, one row at a time, recording DGII's answer. A rejection stops the run at its row: DGII restarts the whole set.",
			"Las pruebas de datos de la DGII (pasos 2 y 3 de su certificación): Sello arma cada fila del libro de la DGII exactamente con sus campos, la firma con el certificado de CerteCF de la empresa y la envía, una fila a la vez, registrando la respuesta de la DGII. Un rechazo detiene la corrida en su fila: la DGII reinicia todo el set."),
		"Start a run": e("Start a run", "Iniciar una corrida"),
		"No certificate can sign in CerteCF now: a run would fail at its first row.": e(
			"No certificate can sign in CerteCF now: a run would fail at its first row.",
			"Ningún certificado puede firmar ahora en CerteCF: una corrida fallaría en su primera fila."),
		"Add one in Certificates": e("Add one in Certificates", "Agregue uno en Certificados"),
		"DGII's workbook (.xlsx)": e("DGII's workbook (.xlsx)", "Libro de la DGII (.xlsx)"),
		"As downloaded from DGII's Certification Portal, at most 10 MiB: the e-CF, RFCE and ACECF sheets.": e(
			"As downloaded from DGII's Certification Portal, at most 10 MiB: the e-CF, RFCE and ACECF sheets.",
			"Tal como se descarga del Portal de Certificación de la DGII, como máximo 10 MiB: las hojas de e-CF, RFCE y ACECF."),
		"Start the run":                    e("Start the run", "Iniciar la corrida"),
		"Runs":                             e("Runs", "Corridas"),
		"No run yet.":                      e("No run yet.", "Todavía no hay corridas."),
		"Started":                          e("Started", "Iniciada"),
		"Rows accepted":                    e("Rows accepted", "Filas aceptadas"),
		"Where it stopped":                 e("Where it stopped", "Dónde se detuvo"),
		"%d of %d rows":                    e("%d of %d rows", "%d de %d filas"),
		"row %d (%s)":                      e("row %d (%s)", "fila %d (%s)"),
		"All runs":                         e("All runs", "Todas las corridas"),
		"Run of %s":                        e("Run of %s", "Corrida del %s"),
		"Progress":                         e("Progress", "Avance"),
		"Rows, in the order they are sent": e("Rows, in the order they are sent", "Filas, en el orden en que se envían"),
		"Sheet and row":                    e("Sheet and row", "Hoja y fila"),
		"Row kind":                         e("Row kind", "Clase de fila"),
		"Download the printed representations (ZIP, %d PDFs)": e("Download the printed representations (ZIP, %d PDFs)",
			"Descargar las representaciones impresas (ZIP, %d PDF)"),
	})
}
