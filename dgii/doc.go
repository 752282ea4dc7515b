// Package dgii is the client of DGII's e-CF web services (FACTS §1): the
// real ones at https://ecf.dgii.gov.do and https://fc.dgii.gov.do, or the
// simulator in package dgiisim. It always talks HTTP.
//
// A Client holds the HTTP client, the retry policy and the token cache; a
// Session binds it to one taxpayer (RNC) in one environment with the Signer
// that signs that taxpayer's authentication seeds:
//
//	c := dgii.New(dgii.Config{URLs: dgii.LiveURLs()})
//	s := c.Session(sello.EnvTest, "131880681", signer)
//	trackID, err := s.SendECF(ctx, "E310000000001", signedXML)
//	res, err := s.Result(ctx, trackID)
//
// Authentication (semilla → signed seed → validarsemilla → Bearer token) is
// automatic: the token is cached per RNC and environment until one minute
// before it expires, concurrent callers share one authentication, and a 401
// from any service drops the token, authenticates again and repeats the
// call once.
//
// Idempotent calls (semilla, consultas, directorio) are retried with
// backoff on network errors, 5xx and 429. Sends (recepción, recepción FC,
// aprobación comercial, anulación) are never retried here: their errors say
// whether DGII may have the document.
//
//   - errors.Is(err, ErrUncertain): the request was written and no answer
//     was read (timeout, reset), or DGII answered 500/504. DGII may have
//     it. Reconcile (TrackIDs for an e-CF, Estado for an RFCE) before
//     sending again. Check this class first: such an error may also be
//     ErrUnavailable.
//   - errors.Is(err, ErrUnavailable) alone: DGII was not reached (refused
//     connection, DNS, dial or TLS failure) or answered 502/503/429 before
//     taking the request. Sending again later is safe.
//   - errors.Is(err, ErrUnauthorized): the seed was refused, or a 401
//     persisted after re-authenticating (certificate not delegated for the
//     RNC, …).
//   - *Error with a 4xx Status: DGII refused the request itself; its Codigo
//     and Mensajes say why. Nothing was accepted.
//   - the Signer's error, wrapped.
//
// Responses are read as JSON or XML, with DGII's quirks tolerated: key
// casing (encf/eNCF), codigo as a number or a string, en-US dates
// ("8/15/2023 6:06:57 AM", read in sello.DRZone), lists that come as a
// single object.
package dgii
