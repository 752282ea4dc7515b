package i18n

// The HTTP surface's own messages (package api: headers, bodies, query
// parameters, the receivers' uploads) and those of the test set reader
// and the printed representation it serves.

func init() {
	registerErrors(map[string]string{
		// Authentication and the routes (middleware.go).
		"Method %s is not allowed on %s; use %s.": "El método %s no está permitido en %s; use %s.",
		"No such endpoint: %s %s.":                "No existe el endpoint: %s %s.",
		"Missing X-API-KEY header: send the API key as X-API-KEY: <key>. The Authorization header is reserved and not read by the API, so a key sent there (Authorization: Bearer sk_…) does not authenticate.": "Falta el encabezado X-API-KEY: envíe la clave API como X-API-KEY: <clave>. El encabezado Authorization está reservado y la API no lo lee, así que una clave enviada ahí (Authorization: Bearer sk_…) no autentica.",
		"Missing X-API-KEY header: send the API key as X-API-KEY: <key>.": "Falta el encabezado X-API-KEY: envíe la clave API como X-API-KEY: <clave>.",
		"Invalid API key.":                                 "Clave API no válida.",
		"This API key was revoked.":                        "Esta clave API fue revocada.",
		"This API key expired.":                            "Esta clave API venció.",
		"This key belongs to %s and cannot be used in %s.": "Esta clave pertenece a %s y no se puede usar en %s.",
		"This key lacks the scope %s required here.":       "Esta clave no tiene el permiso %s que se requiere aquí.",
		"Rate limit of plan %q exceeded (%g requests/s, burst %d). Retry after %d s.":              "Se excedió el límite del plan %q (%g solicitudes/s, ráfaga de %d). Reintente en %d s.",
		"The request has no Content-Type: send the JSON body with Content-Type: application/json.": "La solicitud no tiene Content-Type: envíe el cuerpo JSON con Content-Type: application/json.",
		"Content-Type must be application/json, not %s.":                                           "El Content-Type debe ser application/json, no %s.",
		"Only the utf-8 charset is accepted, not %q.":                                              "Solo se acepta el charset utf-8, no %q.",
		"The service is not ready: its database does not answer.":                                  "El servicio no está listo: su base de datos no responde.",

		// Request bodies (body.go).
		"The request body did not arrive within the server's time limit for a request (docs/api.md); send it in one go.": "El cuerpo de la solicitud no llegó dentro del tiempo límite del servidor para una solicitud (docs/api.md); envíelo de una vez.",
		"The request body ended before its declared Content-Length.":                                                     "El cuerpo de la solicitud terminó antes de su Content-Length declarado.",
		"Could not read the request body: the connection failed before it was complete.":                                 "No se pudo leer el cuerpo de la solicitud: la conexión falló antes de completarse.",
		"The request body exceeds the limit of %d bytes (2 MiB).":                                                        "El cuerpo de la solicitud excede el límite de %d bytes (2 MiB).",
		"must be %s, not a JSON %s":                                "debe ser %s, no un valor JSON de tipo %s",
		"unknown field":                                            "campo desconocido",
		"unknown field; did you mean %q?":                          "campo desconocido; ¿quiso decir %q?",
		"The body is not a JSON object of the expected shape: %v.": "El cuerpo no es un objeto JSON con la forma esperada: %v.",
		"The request is not valid: %s: %s (and 1 more problem).":   "La solicitud no es válida: %s: %s (y 1 problema más).",
		"The request is not valid: %s: %s (and %d more problems).": "La solicitud no es válida: %s: %s (y %d problemas más).",
		"The request is not valid: %s: %s":                         "La solicitud no es válida: %s: %s",
		"The request is not valid: %s: %s.":                        "La solicitud no es válida: %s: %s.",
		"The request body is empty; a JSON object is required.":    "El cuerpo de la solicitud está vacío; se requiere un objeto JSON.",
		"Malformed JSON at byte %d: %v.":                           "JSON mal formado en el byte %d: %v.",
		"Malformed JSON: %v.":                                      "JSON mal formado: %v.",

		// Documents, artifacts, voids, certification (document.go, artifact.go, void.go, certification.go).
		"Document %s has no signed XML in %s (it does not exist or is not signed yet).":      "El comprobante %s no tiene XML firmado en %s (no existe o todavía no está firmado).",
		"Document %s is not signed yet: its printed representation needs the security code.": "El comprobante %s todavía no está firmado: su representación impresa necesita el código de seguridad.",
		"must be true or false":                                                                                 "debe ser true o false",
		"Query parameter validate must be true or false, not %q.":                                               "El parámetro validate debe ser true o false, no %q.",
		"Idempotency-Key must be one value of 1 to %d characters.":                                              "El Idempotency-Key debe ser un solo valor de 1 a %d caracteres.",
		"Idempotency-Key must be printable ASCII.":                                                              "El Idempotency-Key debe ser ASCII imprimible.",
		"required: an array of e-NCFs":                                                                          "obligatorio: un arreglo de e-NCF",
		"must list 1 to %d e-NCFs, not %d":                                                                      "debe listar de 1 a %d e-NCF, no %d",
		"Void %s has no signed ANECF yet: the worker signs it before sending it to DGII.":                       "La anulación %s todavía no tiene ANECF firmado: el worker lo firma antes de enviarlo a la DGII.",
		"The test set exceeds %d bytes.":                                                                        "El set de pruebas excede %d bytes.",
		"The multipart/form-data Content-Type has no boundary.":                                                 "El Content-Type multipart/form-data no tiene boundary.",
		"The form has no part named \"file\": send DGII's workbook as file.":                                    "El formulario no tiene una parte llamada \"file\": envíe el libro de Excel de la DGII como file.",
		"send DGII's workbook as multipart/form-data (part \"file\") or as %s, or the rows as application/json": "envíe el libro de Excel de la DGII como multipart/form-data (parte \"file\") o como %s, o las filas como application/json",
		"The request has no Content-Type: %s.":                                                                  "La solicitud no tiene Content-Type: %s.",
		"Content-Type %q is not accepted here: %s.":                                                             "El Content-Type %q no se acepta aquí: %s.",
		"No e-CF of certification run %s is signed yet: its printed representations follow its signatures.":     "Ningún e-CF de la ejecución de certificación %s está firmado todavía: sus representaciones impresas siguen a sus firmas.",

		// Query parameters (query.go, events.go).
		"unknown query parameter; use %s or %s":                                                "parámetro de consulta desconocido; use %s o %s",
		"must be an ISO 8601 date-time, e.g. 2026-11-22T00:00:00.000Z":                         "debe ser una fecha y hora ISO 8601, p. ej. 2026-11-22T00:00:00.000Z",
		"must be a whole number from 1 to %d":                                                  "debe ser un número entero del 1 al %d",
		"The query parameters are not valid.":                                                  "Los parámetros de consulta no son válidos.",
		"unknown query parameter; use cursor, type or limit":                                   "parámetro de consulta desconocido; use cursor, type o limit",
		"must be given once":                                                                   "debe indicarse una sola vez",
		"after is another name for cursor: give one of them":                                   "after es otro nombre de cursor: indique solo uno de los dos",
		"not a cursor of the events API: pass the nextCursor of the previous answer unchanged": "no es un cursor de la API de eventos: envíe sin cambios el nextCursor de la respuesta anterior",
		"unknown event type %q":                                                                "tipo de evento desconocido %q",

		// The receivers (receiver.go, receiver_limits.go, reception_xml.go).
		"No such environment %q.": "No existe el ambiente %q.",
		"No receiver at RNC %q.":  "No hay receptor en el RNC %q.",
		"Send multipart/form-data with the document in a part named xml (Content-Type %q).": "Envíe multipart/form-data con el documento en una parte llamada xml (Content-Type %q).",
		"The request has no part named xml.":                                                "La solicitud no tiene una parte llamada xml.",
		"The xml part is empty.":                                                            "La parte xml está vacía.",
		"The xml part exceeds the limit of %d bytes.":                                       "La parte xml excede el límite de %d bytes.",
		"The multipart body is malformed.":                                                  "El cuerpo multipart está mal formado.",
		"from your address":                                                                 "desde su dirección",
		"to this receiver":                                                                  "a este receptor",
		"Too many requests %s (%g/s, %d at once). Retry after %d s.":                        "Demasiadas solicitudes %s (%g/s, %d a la vez). Reintente en %d s.",
		"The ACECF is not valid: see details.":                                              "El ACECF no es válido: vea los detalles.",

		// DGII's test set (package testset).
		"The workbook has more than %d bytes.": "El libro de Excel tiene más de %d bytes.",
		"The file is not an Excel workbook (.xlsx) of at most %d MiB unzipped: give DGII's test set as published, or its rows as JSON.": "El archivo no es un libro de Excel (.xlsx) de como máximo %d MiB descomprimido: envíe el set de pruebas de la DGII tal como se publicó, o sus filas como JSON.",
		"Sheets %q and %q both hold %s rows: keep one.": "Las hojas %q y %q tienen filas %s: deje una sola.",
		"Sheet %q cannot be read.":                      "La hoja %q no se puede leer.",
		"The workbook has no sheet of e-CF, RFCE or ACECF rows (sheet names saying ECF, RFCE or ACECF).": "El libro de Excel no tiene hojas de filas de e-CF, RFCE o ACECF (hojas cuyo nombre diga ECF, RFCE o ACECF).",
		"Sheet %q has %d columns; at most %d are read.":                                                  "La hoja %q tiene %d columnas; se leen como máximo %d.",
		"Header %q repeats %s.":                "El encabezado %q repite %s.",
		"The test set has more than %d bytes.": "El set de pruebas tiene más de %d bytes.",
		"The test set must be a JSON object {\"ecf\":[…],\"rfce\":[…],\"acecf\":[…]}: %s.": "El set de pruebas debe ser un objeto JSON {\"ecf\":[…],\"rfce\":[…],\"acecf\":[…]}: %s.",
		"Invalid JSON: unexpected data after the test set.":                                "JSON no válido: datos inesperados después del set de pruebas.",
		"Unknown list: the test set has ecf, rfce and acecf.":                              "Lista desconocida: el set de pruebas tiene ecf, rfce y acecf.",
		"Must be a list of rows, each an object of header → value.":                        "Debe ser una lista de filas, cada una un objeto de encabezado → valor.",
		"Must be a string or a number.":                                                    "Debe ser un texto o un número.",
		"The row is empty.":                                                                "La fila está vacía.",

		// The printed representation (package pdf).
		"The QR URL is too long for a QR code.":                                         "La URL del QR es demasiado larga para un código QR.",
		"The printed representation could not be produced.":                             "No se pudo generar la representación impresa.",
		"Required: the document's e-NCF.":                                               "Obligatorio: el e-NCF del comprobante.",
		"Must equal the document's eNCF %s.":                                            "Debe ser igual al eNCF del comprobante, %s.",
		"Must be the 6-character security code.":                                        "Debe ser el código de seguridad de 6 caracteres.",
		"Required: the signature date and time.":                                        "Obligatorio: la fecha y hora de la firma.",
		"Required: DGII's consultatimbre URL for the QR.":                               "Obligatorio: la URL de consultatimbre de la DGII para el QR.",
		"The document has no IdDoc or Emisor: render a document that passed ecf.Check.": "El comprobante no tiene IdDoc ni Emisor: genere un comprobante que haya pasado ecf.Check.",
	})
}
