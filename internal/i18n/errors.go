package i18n

// The API's errors (and the CLI's, which share them): each message's key is
// its English fmt format, as the code writes it (sello.Errorf,
// sello.Problems.Addf, sello.Textf); the Spanish takes the same arguments
// in the same order. sello's TestErrorMessagesCatalogued walks the code and
// fails on a message missing here. Error codes are titled under their own
// name (INVALID_JSON…): the API answers the code itself, never translated.

// registerErrors registers English messages, each its own key, with their
// Spanish.
func registerErrors(es map[string]string) {
	m := make(map[string]Entry, len(es))
	for en, s := range es {
		m[en] = Entry{EN: en, ES: s}
	}
	Register(m)
}

func init() {
	// The error codes' short titles (for pages; the API answers the code).
	Register(map[string]Entry{
		"INVALID_JSON":           {EN: "Invalid JSON", ES: "JSON no válido"},
		"INVALID_REQUEST":        {EN: "Invalid request", ES: "Solicitud no válida"},
		"UNAUTHENTICATED":        {EN: "Not authenticated", ES: "No autenticado"},
		"INSUFFICIENT_SCOPE":     {EN: "Insufficient scope", ES: "Permiso insuficiente"},
		"ENVIRONMENT_MISMATCH":   {EN: "Environment mismatch", ES: "Ambiente no corresponde"},
		"NOT_FOUND":              {EN: "Not found", ES: "No encontrado"},
		"METHOD_NOT_ALLOWED":     {EN: "Method not allowed", ES: "Método no permitido"},
		"CONFLICT":               {EN: "Conflict", ES: "Conflicto"},
		"IDEMPOTENCY_KEY_REUSED": {EN: "Idempotency key reused", ES: "Clave de idempotencia reutilizada"},
		"PAYLOAD_TOO_LARGE":      {EN: "Payload too large", ES: "Contenido demasiado grande"},
		"UNSUPPORTED_MEDIA_TYPE": {EN: "Unsupported media type", ES: "Tipo de contenido no admitido"},
		"VALIDATION_FAILED":      {EN: "Validation failed", ES: "Validación fallida"},
		"SEQUENCE_EXHAUSTED":     {EN: "Sequence exhausted", ES: "Secuencia agotada"},
		"RATE_LIMITED":           {EN: "Rate limited", ES: "Límite de solicitudes excedido"},
		"INTERNAL":               {EN: "Internal error", ES: "Error interno"},
		"UNAVAILABLE":            {EN: "Unavailable", ES: "No disponible"},
	})

	// The domain's messages (the root package) and the stores'.
	registerErrors(map[string]string{
		"An internal error occurred.": "Ocurrió un error interno.",
		"%s":                          "%s",
		"%v":                          "%v",
		"%s or %s":                    "%s o %s",

		// Commercial approvals (approval.go, approval_received.go).
		"Required: the id of the inbound document (tax.public.receiver.ecf.received's data.payload.inboundDocumentId).": "Obligatorio: el id del comprobante recibido (data.payload.inboundDocumentId del evento tax.public.receiver.ecf.received).",
		"Only a rejection carries a motivo.":                                                                             "Solo un rechazo lleva motivo.",
		"Required when estado is rechazado: say why.":                                                                    "Obligatorio cuando estado es rechazado: indique el motivo.",
		`Must be "aprobado" or "rechazado".`:                                                                             `Debe ser "aprobado" o "rechazado".`,
		"At most %d characters (got %d).":                                                                                "Como máximo %d caracteres (tiene %d).",
		"Must be valid UTF-8.":                                                                                           "Debe ser UTF-8 válido.",
		"The approval request is not valid.":                                                                             "La solicitud de aprobación no es válida.",
		"Inbound document %s was %s already.":                                                                            "El comprobante recibido %s ya fue %s.",
		"The approval of inbound document %s is %s already.":                                                             "La aprobación del comprobante recibido %s ya está %s.",
		"A leg of the approval of inbound document %s is %s already.":                                                    "Una parte de la aprobación del comprobante recibido %s ya está %s.",
		"Inbound document %q has no commercial approval.":                                                                "El comprobante recibido %q no tiene aprobación comercial.",
		"Commercial approval %q not found.":                                                                              "No se encontró la aprobación comercial %q.",
		"Unknown approval status %q: use pending, sent or failed.":                                                       "Estado de aprobación desconocido %q: use pending, sent o failed.",
		"Commercial approval does not apply to type %s (not to 32, 41, 43, 46, 47).":                                     "La aprobación comercial no aplica al tipo %s (no aplica a 32, 41, 43, 46, 47).",
		"The approval's RNCEmisor %s is not this receiver's RNC: send it to the issuer's receiver.":                      "El RNCEmisor %s de la aprobación no es el RNC de este receptor: envíela al receptor del emisor.",
		"FechaHoraAprobacionComercial %s is in the future: date the approval when it is signed.":                         "FechaHoraAprobacionComercial %s está en el futuro: ponga a la aprobación la fecha en que se firma.",
		"FechaHoraAprobacionComercial %s is before the document's FechaEmision %s: date the approval when it is signed.": "FechaHoraAprobacionComercial %s es anterior a la FechaEmision %s del comprobante: ponga a la aprobación la fecha en que se firma.",
		"The approval matches no document of this issuer: its eNCF, FechaEmision, MontoTotal and RNCComprador must be the document's.": "La aprobación no corresponde a ningún comprobante de este emisor: su eNCF, FechaEmision, MontoTotal y RNCComprador deben ser los del comprobante.",
		"Document %s is of type %s, which takes no commercial approval.":                                                               "El comprobante %s es del tipo %s, que no admite aprobación comercial.",
		"Document %s is %s: only a document DGII accepted takes a commercial approval.":                                                "El comprobante %s está %s: solo un comprobante aceptado por la DGII admite aprobación comercial.",
		"Document %s already has this signer's commercial verdict %s (received %s); a verdict cannot be changed.":                      "El comprobante %s ya tiene la decisión comercial %s de este firmante (recibida el %s); una decisión no se puede cambiar.",

		// Certificates (certificate.go).
		"Tenant required.":                                    "La empresa es obligatoria.",
		"Certificate required.":                               "El certificado es obligatorio.",
		"Sealed private key required.":                        "La llave privada sellada es obligatoria.",
		"The private key does not belong to the certificate.": "La llave privada no corresponde al certificado.",
		"The certificate names RNC %s, not the tenant's %s: it signs for another taxpayer.":                                                        "El certificado indica el RNC %s, no el de la empresa (%s): firma para otro contribuyente.",
		"The certificate's subject (%s) names no RNC, cédula or passport: DGII's signing certificates name their holder's (serialNumber IDCDO-…).": "El sujeto del certificado (%s) no indica RNC, cédula ni pasaporte: los certificados de firma que acepta la DGII indican el de su titular (serialNumber IDCDO-…).",

		// DGII's certification test set (certification.go).
		"Idempotency-Key %q started certification run %s with another test set.": "El Idempotency-Key %q inició la ejecución de certificación %s con otro set de pruebas.",
		"Certification run %s is %s: no row takes an update.":                    "La ejecución de certificación %s está %s: ninguna fila admite cambios.",
		"Row %d of certification run %s is not the next to send (row %d is).":    "La fila %d de la ejecución de certificación %s no es la próxima a enviar (lo es la fila %d).",
		"Row %d cannot go from %s to %q.":                                        "La fila %d no puede pasar de %s a %q.",
		"The test set has no rows: give DGII's workbook or at least one row.":    "El set de pruebas no tiene filas: envíe el libro de Excel de la DGII o al menos una fila.",
		"The test set has %d rows; at most %d are taken.":                        "El set de pruebas tiene %d filas; se admiten como máximo %d.",
		"Unknown kind %q: ecf, rfce or acecf.":                                   "Tipo %q desconocido: ecf, rfce o acecf.",
		"The row has no valid e-NCF (ENCF/eNCF column): %q.":                     "La fila no tiene un e-NCF válido (columna ENCF/eNCF): %q.",
		"e-NCF %s is also row %d: each document of the set has its own.":         "El e-NCF %s también está en la fila %d: cada comprobante del set tiene el suyo.",
		"Must be CerteCF.": "Debe ser CerteCF.",
		"DGII's certification test set runs only in CerteCF, not in %s: use a CerteCF API key and /CerteCF/certificacion/pruebas.": "El set de pruebas de certificación de la DGII solo corre en CerteCF, no en %s: use una clave API de CerteCF y /CerteCF/certificacion/pruebas.",
		"No certification run %s in this environment.":      "No hay ejecución de certificación %s en este ambiente.",
		"Row %d of certification run %s has no signed XML.": "La fila %d de la ejecución de certificación %s no tiene XML firmado.",

		// Contingency, documents, lifecycle (contingency.go, create.go, document.go, lifecycle.go, delivery.go, date.go).
		"Unknown DGII outcome %q.":                                                      "Resultado de la DGII desconocido %q.",
		"Idempotency-Key %q was already used with a different request.":                 "El Idempotency-Key %q ya se usó con una solicitud diferente.",
		"e-NCF %s is already used by document %s.":                                      "El e-NCF %s ya lo usa el comprobante %s.",
		"Idempotency-Key must be at most 255 characters.":                               "El Idempotency-Key debe tener como máximo 255 caracteres.",
		"e-NCF %s is voided (void %s): a voided number is never used":                   "El e-NCF %s está anulado (anulación %s): un número anulado nunca se usa",
		"e-NCF %s is of type %s, not %s.":                                               "El e-NCF %s es del tipo %s, no del %s.",
		"Date %q must be dd-MM-yyyy or yyyy-MM-dd.":                                     "La fecha %q debe ser dd-MM-yyyy o yyyy-MM-dd.",
		"Document %q has no acuse de recibo from its buyer.":                            "El comprobante %q no tiene acuse de recibo de su comprador.",
		"Unknown status %q.":                                                            "Estado desconocido %q.",
		"Cursor %q is not valid: pass the nextCursor of the previous answer unchanged.": "El cursor %q no es válido: envíe sin cambios el nextCursor de la respuesta anterior.",
		"Unknown event severity %q.":                                                    "Severidad de evento desconocida %q.",
		"Document %s is %s, not %s.":                                                    "El comprobante %s está %s, no %s.",
		"Delivery of document %s is %s, not %s.":                                        "La entrega del comprobante %s está %s, no %s.",
		"Document %s not found in %s.":                                                  "No se encontró el comprobante %s en %s.",
		"Document %q not found in %s.":                                                  "No se encontró el comprobante %q en %s.",
		"Document %s is not signed yet.":                                                "El comprobante %s todavía no está firmado.",
		"Document %q has no signed RFCE.":                                               "El comprobante %q no tiene RFCE firmado.",

		// e-NCF, types, environments, scopes, dates (encf.go, environment.go, scope.go).
		"Unknown e-CF type %q: use one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.":                  "Tipo de e-CF desconocido %q: use uno de 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.",
		"e-NCF %q must have 13 characters (E, the type, 10 digits).":                                "El e-NCF %q debe tener 13 caracteres (E, el tipo, 10 dígitos).",
		"e-NCF %q must start with the series E.":                                                    "El e-NCF %q debe comenzar con la serie E.",
		"e-NCF %q has an unknown type %q.":                                                          "El e-NCF %q tiene un tipo desconocido %q.",
		"e-NCF %q must end in 10 digits.":                                                           "El e-NCF %q debe terminar en 10 dígitos.",
		"e-NCF %q has sequential 0; sequentials start at 1.":                                        "El e-NCF %q tiene el secuencial 0; los secuenciales comienzan en 1.",
		"Unknown environment %q: use TesteCF, CerteCF or eCF.":                                      "Ambiente desconocido %q: use TesteCF, CerteCF o eCF.",
		"Unknown environment %q: use TesteCF, CerteCF or eCF (in any case: testecf, certecf, ecf).": "Ambiente desconocido %q: use TesteCF, CerteCF o eCF (en mayúsculas o minúsculas: testecf, certecf, ecf).",
		"Unknown scope %q: use %s.":                                                                 "Permiso desconocido %q: use %s.",

		// Webhook endpoints (endpoint.go, webhook_url.go, webhook/url.go).
		"The webhook secret must have at least %d characters, not %d.": "El secreto del webhook debe tener al menos %d caracteres, no %d.",
		"The webhook secret must have at most %d characters.":          "El secreto del webhook debe tener como máximo %d caracteres.",
		"The webhook secret must be printable ASCII without spaces.":   "El secreto del webhook debe ser ASCII imprimible sin espacios.",
		"Endpoint id required.":  "El id del endpoint es obligatorio.",
		"Unknown event type %q.": "Tipo de evento desconocido %q.",
		"Unknown endpoint status %q: use active, paused or disabled.":   "Estado de endpoint desconocido %q: use active, paused o disabled.",
		"Endpoint id required (see sello.NewWebhookEndpoint).":          "El id del endpoint es obligatorio (vea sello.NewWebhookEndpoint).",
		"A webhook endpoint needs a secret.":                            "Un endpoint de webhook necesita un secreto.",
		"Sealed webhook secret required (see sello.NewWebhookSecret).":  "El secreto sellado del webhook es obligatorio (vea sello.NewWebhookSecret).",
		"The overlap of a secret rotation cannot be negative.":          "El solapamiento de una rotación de secreto no puede ser negativo.",
		"Webhook endpoint %q not found.":                                "No se encontró el endpoint de webhook %q.",
		"Webhook delivery %q not found.":                                "No se encontró la entrega de webhook %q.",
		"Webhook endpoint %q is disabled; resume it first.":             "El endpoint de webhook %q está deshabilitado; reactívelo primero.",
		"A pending outcome needs the time of the next attempt.":         "Un resultado pendiente necesita la hora del próximo intento.",
		"Unknown webhook outcome %q: use succeeded, pending or failed.": "Resultado de webhook desconocido %q: use succeeded, pending o failed.",
		"Webhook URL: %s":                              "URL del webhook: %s",
		"required.":                                    "es obligatoria.",
		"at most %d characters.":                       "como máximo %d caracteres.",
		"not a valid URL.":                             "no es una URL válida.",
		"must use https:// in production.":             "debe usar https:// en producción.",
		"must be an absolute https:// URL.":            "debe ser una URL absoluta https://.",
		"must be an absolute http:// or https:// URL.": "debe ser una URL absoluta http:// o https://.",
		"must not contain a user name or password.":    "no debe contener usuario ni contraseña.",
		"must not contain a fragment (#…).":            "no debe contener un fragmento (#…).",
		"a host is required.":                          "el host es obligatorio.",
		"host %q is not in its ASCII (IDNA) form.":     "el host %q no está en su forma ASCII (IDNA).",
		"port %q is not valid.":                        "el puerto %q no es válido.",
		"port is empty.":                               "el puerto está vacío.",
		"Webhook URL: host %q is not a valid internationalized domain name.":             "URL del webhook: el host %q no es un nombre de dominio internacionalizado válido.",
		"%s is %s; webhooks go only to public Internet addresses.":                       "%s es %s; los webhooks solo van a direcciones públicas de Internet.",
		"%q is not a valid IPv6 address.":                                                "%q no es una dirección IPv6 válida.",
		"%s is this machine; webhooks go only to public Internet addresses.":             "%s es esta misma máquina; los webhooks solo van a direcciones públicas de Internet.",
		"%s looks like an IP address; write IPv4 addresses in dotted decimal (a.b.c.d).": "%s parece una dirección IP; escriba las direcciones IPv4 en decimal con puntos (a.b.c.d).",

		// Validation of a document, in general (error.go).
		"The document is not valid: 1 problem.":                            "El comprobante no es válido: 1 problema.",
		"The document is not valid: %d problems. The first %d are listed.": "El comprobante no es válido: %d problemas. Se listan los primeros %d.",
		"The document is not valid: %d problems.":                          "El comprobante no es válido: %d problemas.",

		// Inbound documents (inbound.go, inbound_dgii.go).
		"Inbound document: tenant required.":                                                                            "Comprobante recibido: la empresa es obligatoria.",
		"Inbound document: environment required.":                                                                       "Comprobante recibido: el ambiente es obligatorio.",
		"Inbound document: issuer RNC, type and e-NCF required.":                                                        "Comprobante recibido: el RNC del emisor, el tipo y el e-NCF son obligatorios.",
		"Inbound document %s: the e-CF and its acuse are required.":                                                     "Comprobante recibido %s: el e-CF y su acuse son obligatorios.",
		"Inbound document %q not found.":                                                                                "No se encontró el comprobante recibido %q.",
		"Unknown approval state %q: use pending, approved or rejected.":                                                 "Estado de aprobación desconocido %q: use pending, approved o rejected.",
		"No inbound document %s from RNC %s.":                                                                           "No hay comprobante recibido %s del RNC %s.",
		"Unknown DGII confirmation state %q: use pending, accepted, rejected, not_found or refuted.":                    "Estado de confirmación de la DGII desconocido %q: use pending, accepted, rejected, not_found o refuted.",
		"DGII has not confirmed it yet (dgii.status pending): Sello is asking; try again once dgii.status is accepted.": "La DGII todavía no lo ha confirmado (dgii.status pending): Sello está consultando; intente de nuevo cuando dgii.status sea accepted.",
		"DGII does not know it (dgii.status not_found): it has no accepted e-CF %s of RNC %s for RNC %s with security code %s. Sello keeps asking for %s after the receipt; try again once dgii.status is accepted.": "La DGII no lo conoce (dgii.status not_found): no tiene un e-CF %s aceptado del RNC %s para el RNC %s con código de seguridad %s. Sello sigue consultando durante %s después de la recepción; intente de nuevo cuando dgii.status sea accepted.",
		"DGII rejected it (dgii.status rejected): it is null for tax purposes.":                                  "La DGII lo rechazó (dgii.status rejected): no tiene validez fiscal.",
		"DGII accepted another document under %s of RNC %s (dgii.status refuted): this one is not the issuer's.": "La DGII aceptó otro comprobante bajo %s del RNC %s (dgii.status refuted): este no es del emisor.",
		"DGII has not accepted it (dgii.status %s).":                                                             "La DGII no lo ha aceptado (dgii.status %s).",
		"Inbound document %s cannot be approved or rejected: %s":                                                 "El comprobante recibido %s no se puede aprobar ni rechazar: %s",

		// The master key (masterkey.go).
		"The master key must be base64 (e.g. the output of: openssl rand -base64 32).": "La llave maestra debe estar en base64 (por ejemplo, la salida de: openssl rand -base64 32).",
		"The master key must be 32 bytes, not %d.":                                     "La llave maestra debe tener 32 bytes, no %d.",

		// The receivers (receiver.go, receiver_limits.go, reception.go).
		"The seed is not one this receiver issued, or it was used or expired.":                                                                                                                     "La semilla no es una emitida por este receptor, o ya se usó o venció.",
		"The token is not one this receiver issued, or it was used or expired.":                                                                                                                    "El token no es uno emitido por este receptor, o ya se usó o venció.",
		"This receiver took the %d documents of RNC %s it takes in 24 hours before DGII confirms them. Retry after %d s.":                                                                          "Este receptor ya recibió los %d comprobantes del RNC %s que admite en 24 horas antes de que la DGII los confirme. Reintente en %d s.",
		"This receiver holds %d documents under e-NCF %s of RNC %s that DGII has not confirmed, the most it keeps under one e-NCF. Send again once DGII has confirmed one of them, or after %d s.": "Este receptor tiene %d comprobantes bajo el e-NCF %s del RNC %s que la DGII no ha confirmado, el máximo que guarda bajo un e-NCF. Envíe de nuevo cuando la DGII haya confirmado uno de ellos, o dentro de %d s.",
		"This receiver could not answer in time; send again.":                                                                                                                                      "Este receptor no pudo responder a tiempo; envíe de nuevo.",
		"This receiver requires Authorization: Bearer with a token from its fe/autenticacion/api/validacioncertificado service.":                                                                   "Este receptor requiere Authorization: Bearer con un token de su servicio fe/autenticacion/api/validacioncertificado.",
		"The seed's signature is not valid.":                                          "La firma de la semilla no es válida.",
		"This receiver does not accept the seed's signer.":                            "Este receptor no acepta al firmante de la semilla.",
		"This receiver cannot sign its acuse now: it has no valid certificate in %s.": "Este receptor no puede firmar su acuse ahora: no tiene un certificado vigente en %s.",
		"The file must be named %s (RNCComprador and eNCF), not %q.":                  "El archivo debe llamarse %s (RNCComprador y eNCF), no %q.",
		"The ACECF's signature is not valid.":                                         "La firma del ACECF no es válida.",
		"This receiver does not accept the ACECF's signer.":                           "Este receptor no acepta al firmante del ACECF.",

		// Sequences (sequence.go).
		"Range %d–%d is not valid: it needs 1 ≤ from ≤ to ≤ %d.":                                                                 "El rango %d–%d no es válido: se requiere 1 ≤ from ≤ to ≤ %d.",
		"Type %s has no sequence expiry: DGII's format gives types 32 and 34 no FechaVencimientoSecuencia, so give none.":        "El tipo %s no tiene vencimiento de secuencia: el formato de la DGII no da FechaVencimientoSecuencia a los tipos 32 y 34, así que no envíe ninguna.",
		"No e-NCF range of type %s is registered in %s.":                                                                         "No hay rango de e-NCF del tipo %s registrado en %s.",
		"Every e-NCF range of type %s in %s is used up (%d range).":                                                              "Todos los rangos de e-NCF del tipo %s en %s están agotados (%d rango).",
		"Every e-NCF range of type %s in %s is used up (%d ranges).":                                                             "Todos los rangos de e-NCF del tipo %s en %s están agotados (%d rangos).",
		"Every e-NCF range of type %s in %s is expired (the last one, %d–%d, on %s).":                                            "Todos los rangos de e-NCF del tipo %s en %s están vencidos (el último, %d–%d, el %s).",
		"Every e-NCF range of type %s in %s is used up (%d) or expired (%d; the last one, %d–%d, on %s).":                        "Todos los rangos de e-NCF del tipo %s en %s están agotados (%d) o vencidos (%d; el último, %d–%d, el %s).",
		"%s Request a new range of type %s from %s and register it with %s; the document used no number.":                        "%s Solicite un nuevo rango del tipo %s a la %s y regístrelo con %s; el comprobante no consumió ningún número.",
		"POST /%s/secuencias or `sello sequences add`":                                                                           "POST /%s/secuencias o `sello sequences add`",
		"Type %s needs the expiry DGII gave the range (FechaVencimientoSecuencia, expiresOn): every type but 32 and 34 has one.": "El tipo %s necesita el vencimiento que la DGII le dio al rango (FechaVencimientoSecuencia, expiresOn): todos los tipos menos el 32 y el 34 lo tienen.",
		"expired on %s (in the Dominican Republic)":                                                                              "venció el %s (en la República Dominicana)",
		"Range %d–%d of type %s expired on %s: no document can be numbered from it; ask DGII for a new authorization.":           "El rango %d–%d del tipo %s venció el %s: no se puede numerar ningún comprobante con él; solicite a la DGII una nueva autorización.",
		"overlaps range %s (%d–%d)": "se solapa con el rango %s (%d–%d)",
		"Range %d–%d overlaps the registered range %s (%d–%d) of type %s in %s.": "El rango %d–%d se solapa con el rango registrado %s (%d–%d) del tipo %s en %s.",
		"Range %d–%d overlaps the registered range %d–%d of type %s in %s.":      "El rango %d–%d se solapa con el rango registrado %d–%d del tipo %s en %s.",
		"Unknown sequence warning %q.":                                           "Aviso de secuencia desconocido %q.",
		"e-NCF %s belongs to a range that expired on %s":                         "El e-NCF %s pertenece a un rango que venció el %s",
		"e-NCF %s lies in no registered range of type %s in %s: register the range DGII authorized for it with %s, or request a new range of type %s from %s.": "El e-NCF %s no está en ningún rango registrado del tipo %s en %s: registre el rango que la DGII autorizó para él con %s, o solicite un nuevo rango del tipo %s a la %s.",
		"Sequence %q not found in %s.": "No se encontró la secuencia %q en %s.",

		// Tenants (tenant.go).
		"RNC %q must have 9 or 11 digits.":                        "El RNC %q debe tener 9 u 11 dígitos.",
		"Tenant name required.":                                   "El nombre de la empresa es obligatorio.",
		"Tenant name must be at most 150 characters.":             "El nombre de la empresa debe tener como máximo 150 caracteres.",
		"Plan name required.":                                     "El nombre del plan es obligatorio.",
		"Plan %q needs a rate above 0 and a burst of at least 1.": "El plan %q necesita una tasa mayor que 0 y una ráfaga de al menos 1.",
		"Tenant %q not found.":                                    "No se encontró la empresa %q.",
		"No tenant has RNC %q.":                                   "Ninguna empresa tiene el RNC %q.",
		"A tenant with RNC %s exists.":                            "Ya existe una empresa con el RNC %s.",

		// Voids (void.go).
		"Required: at least one range to void.":                                                                               "Obligatorio: al menos un rango a anular.",
		"Must be a sequential from 1 to %d.":                                                                                  "Debe ser un secuencial del 1 al %d.",
		"Must be from from (%d) to %d.":                                                                                       "Debe estar entre from (%d) y %d.",
		"At most %d types in one void (DGII's limit); these ranges have %d.":                                                  "Como máximo %d tipos en una anulación (límite de la DGII); estos rangos tienen %d.",
		"At most %d ranges of one type in one void (DGII's limit); type %s has %d.":                                           "Como máximo %d rangos de un mismo tipo en una anulación (límite de la DGII); el tipo %s tiene %d.",
		"Overlaps ranges[%d] (%s): each number is voided once.":                                                               "Se solapa con ranges[%d] (%s): cada número se anula una sola vez.",
		"The void is not valid: %d problem(s).":                                                                               "La anulación no es válida: %d problema(s).",
		"%s lies in no registered range of type %s in %s.":                                                                    "%s no está en ningún rango registrado del tipo %s en %s.",
		"%s is used by document %s (%s), which went to DGII: cancel it with a credit note (type 34, E34).":                    "%s lo usa el comprobante %s (%s), que ya fue a la DGII: cancélelo con una nota de crédito (tipo 34, E34).",
		"%s is used by document %s (%s): Sello sends it to DGII; once accepted, cancel it with a credit note (type 34, E34).": "%s lo usa el comprobante %s (%s): Sello lo envía a la DGII; una vez aceptado, cancélelo con una nota de crédito (tipo 34, E34).",
		"%s is already voided by void %s (%s).":                                                                               "%s ya está anulado por la anulación %s (%s).",
		"Only numbers of the tenant's registered ranges can be voided: register the range DGII authorized first, with %s.":    "Solo se pueden anular números de los rangos registrados de la empresa: registre primero el rango que autorizó la DGII, con %s.",
		"Numbers Sello assigned to documents cannot be voided (DGII voids only unused numbers). A document that went to DGII or to the buyer is cancelled with a credit note (type 34, E34) that references it.": "Los números que Sello asignó a comprobantes no se pueden anular (la DGII solo anula números no usados). Un comprobante que ya fue a la DGII o al comprador se cancela con una nota de crédito (tipo 34, E34) que lo referencie.",
		"Numbers Sello assigned to documents cannot be voided (DGII voids only unused numbers). Once DGII accepts the document, cancel it with a credit note (type 34, E34) that references it.":                 "Los números que Sello asignó a comprobantes no se pueden anular (la DGII solo anula números no usados). Cuando la DGII acepte el comprobante, cancélelo con una nota de crédito (tipo 34, E34) que lo referencie.",
		"Numbers already voided (by a void DGII did not reject) cannot be voided again.":                                                                                                                         "Los números ya anulados (por una anulación que la DGII no rechazó) no se pueden anular de nuevo.",
		"Void %s is %s already.":                "La anulación %s ya está %s.",
		"Void outcome %q is not a final state.": "El resultado de anulación %q no es un estado final.",
		"Void %q not found.":                    "No se encontró la anulación %q.",

		// The stores (sqlite, postgres).
		"API key hash required.":                     "El hash de la clave API es obligatorio.",
		"An API key with this hash exists.":          "Ya existe una clave API con este hash.",
		"API key not found.":                         "No se encontró la clave API.",
		"API key %q not found.":                      "No se encontró la clave API %q.",
		"Certificate %s is already stored for %s.":   "El certificado %s ya está guardado para %s.",
		"No valid signing certificate in %s.":        "No hay certificado de firma vigente en %s.",
		"Certificate %q not found in %s.":            "No se encontró el certificado %q en %s.",
		"e-NCF %s is already used.":                  "El e-NCF %s ya está usado.",
		"The resource already exists.":               "El recurso ya existe.",
		"A resource it refers to does not exist.":    "Un recurso al que hace referencia no existe.",
		"The database is busy; retry shortly.":       "La base de datos está ocupada; reintente en un momento.",
		"Idempotency-Key %s is already used.":        "El Idempotency-Key %s ya está usado.",
		"Webhook endpoint %s already exists.":        "El endpoint de webhook %s ya existe.",
		"Webhook secret %s already exists.":          "El secreto de webhook %s ya existe.",
		"Event %q of webhook delivery %q not found.": "No se encontró el evento %q de la entrega de webhook %q.",
		"Totals do not add up.":                      "Los totales no cuadran.",
		"Prepare must not run on a replay.":          "Prepare no debe ejecutarse en una repetición.",
	})
}
