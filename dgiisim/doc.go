// Package dgiisim is a DGII stand-in: an http.Handler that serves DGII's
// e-CF web services (FACTS §1) with the same paths, bodies, auth flow and
// codes, so Sello's whole lifecycle runs offline and tests run against
// real HTTP. Point dgii.Client at it with one base for both hosts:
//
//	sim := dgiisim.New(dgiisim.Config{Verify: verify, ProcessingDelay: dgiisim.DefaultProcessingDelay})
//	srv := httptest.NewServer(sim)
//	c := dgii.New(dgii.Config{URLs: dgii.URLs{ECF: srv.URL, FC: srv.URL}})
//
// # Services
//
// Under /{env}/ for testecf, certecf and ecf (paths and query names are
// case-insensitive): autenticacion/api/autenticacion/semilla and
// validarsemilla; recepcion/api/facturaselectronicas;
// consultaresultado/api/consultas/estado; recepcionfc/api/recepcion/ecf;
// consultarfce/api/consultas/consulta; consultatrackids/api/trackids/consulta;
// consultaestado/api/consultas/estado; consultadirectorio/api/consultas/listado
// and obtenerdirectorioporrnc; aprobacioncomercial/api/aprobacioncomercial;
// anulacionrangos/api/operaciones/anularrango.
//
// Every service but the seed's two needs a Bearer token from validarsemilla
// (401 otherwise); tokens belong to the environment that issued them and
// last TokenTTL. A seed is good once, for ten minutes, in its environment;
// the signed seed must carry an issued valor and verify (Config.Verify).
// Uploads are multipart/form-data with one part named xml and a real
// Content-Length: a chunked body is refused "Multipart cannot be empty",
// as DGII does. XML with a DOCTYPE is refused.
//
// # Recepción and its verdicts
//
// A send to recepción needs the file name {RNCEmisor}{eNCF}.xml (else 400,
// error 3243 "La longitud del nombre del archivo no es válida"), and type
// 32 under RD$250,000.00 is refused with 400 (it goes to recepción FC). Any
// other send gets a GUID trackId at once; its verdict shows in
// consultaresultado after ProcessingDelay (En Proceso, codigo 3, until
// then). A send is Rechazado with secuenciaUtilizada=false (the e-NCF can
// be used again) when its XML is malformed, its root is not ECF, TipoeCF,
// eNCF or RNCEmisor is missing or disagrees with the file name, DGII's XSD
// refuses it (the simulator's own checks, schema.go: more Items than the
// type's XSD allows, a non-integer NumeroReferencia outside type 45, an
// amount that is negative or over 16 integer digits or 2 decimals), or its
// signature does not verify. A schema-valid e-CF that breaks a rule of
// DGII's format document the simulator checks (MontoTotalOtraMoneda not the
// sum of its parts, MontoISRRetenido on a good in type 41) is Rechazado
// with secuenciaUtilizada=true (message 31). An e-NCF already spent — accepted,
// conditionally accepted, or rejected with secuenciaUtilizada=true, by
// either route — is Rechazado with secuenciaUtilizada=true and the message
// "Secuencia utilizada: …"; an e-NCF in a voided range likewise.
// Recepción FC (RFCE) answers its verdict at once: 200 for acceptances,
// 400 with the same body for rejections.
//
// Buyer RNCs (Comprador/RNCComprador) force outcomes, on both routes:
//
//	RNCComprador  Outcome
//	999000002     Rechazado, secuenciaUtilizada=true (message 30, amounts)
//	999000003     Rechazado, secuenciaUtilizada=false (message 12, e-NCF not authorized)
//	999000004     Aceptado Condicional (message 40)
//	999000005     En Proceso for 10× ProcessingDelay, then Aceptado (RFCE: Aceptado)
//	999000006     the send is answered 503, nothing is recorded (outage for that document)
//	999000007     the send is recorded (Aceptado), then the answer is held for
//	              StallTimeout or until the client hangs up: an uncertain send
//	anything else Aceptado
//
// Message codes are the simulator's own (DGII does not publish its): 10
// structure, 11 signature, 12 e-NCF not authorized, 13 RFCE of RD$250,000
// or more, 20 secuencia utilizada, 21 voided e-NCF, 30 amounts, 31 format
// rules, 40 conditional. 3243 is DGII's file-name code.
//
// # Other services
//
// consultatrackids lists every recepción send of an e-NCF with its state
// (404 "TrackId no encontrado." when none). consultaestado answers an e-CF
// by issuer and e-NCF, filtered by buyer and security code (the first six
// characters of the SignatureValue, or the RFCE's CodigoSeguridadeCF), for
// what the simulator accepted: its own sends, and the samples its
// simulated issuer sends to a tenant (SendECF, simulador/enviarecf), which
// DGII accepted before the tenant receives them. Anything else, a forged
// e-CF under one of those e-NCFs included, is No encontrado (codigo 0).
// The directory's fixed entries have hosts at the simulator's own
// {base}/{env}/emisorreceptor, where it plays each buyer's receiver
// (receptor.go): 131880681 (DGII's test counterpart), 999000010 (answered
// as a single object, not a list, by obtenerdirectorioporrnc), both
// requiring authentication; 999000011 (no authentication host); 999000012
// (a receiver down, then back); 999000021–999000024 (ARECF Estado 1 with
// codes 1–4). Any other RNC gives an empty list (not electronic).
// Commercial approvals are taken (codigo 1) for an accepted e-CF of that
// buyer, or any e-CF of 131880681; refused
// (codigo 2) for an unknown, rejected or not-applicable (32, 41, 43, 46,
// 47) one; 400 for an invalid file or signature. Range voids check NoLinea
// order, types, Desde ≤ Hasta and the counts, refuse ranges holding a
// spent e-NCF, and answer codigo 1 (all voided), 2 (some) or 3 (none, 400);
// a voided e-NCF is then refused.
//
// # Faults
//
// Latency delays every answer; ErrorRate answers that fraction of requests
// 500 or 503 at random; Down answers everything 503. SetLatency,
// SetErrorRate and SetDown change them at run time.
//
// State lives in memory, guarded by a mutex and bounded: the last
// MaxSubmissions sends, 10,000 seeds and tokens, 10,000 voided ranges per
// issuer and type.
//
// FakeSign and FakeVerify are a placeholder signature pair for tests; the
// real xmldsig signer and verifier replace them by passing other functions.
package dgiisim
