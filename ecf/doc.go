// Package ecf is the JSON model of DGII's electronic fiscal documents (e-CF)
// for the ten types (31, 32, 33, 34, 41, 43, 44, 45, 46, 47), with DGII's
// validation rules and exact-decimal totals.
//
// A request body {"ECF":{…}} mirrors DGII's XML element names. Decode turns it
// into a Document, reporting every structural problem with its JSON path;
// Check applies DGII's rules for the document's TipoeCF (the per-type
// obligation table of the official format, the XSD lengths, patterns and
// enumerations, and the totals with DGII's tolerances) and fills in the
// totals the client left out; Number sets the e-NCF and the sequence expiry.
// json.Marshal of a Document gives the normalized document.
//
// Paths in error details are dotted with zero-based indexes and always start
// at the root: "ECF.DetallesItems.Item[3].PrecioUnitarioItem". Repeated
// groups are spelled as in the XML: "ECF.Encabezado.IdDoc.TablaFormasPago.FormaDePago[0].MontoPago".
//
// Struct fields are declared in the XSD element order and carry xml tags, so
// that the XML writer can walk them in order.
//
// Document.XML writes the unsigned DGII XML of a checked, numbered document
// and Document.RFCE the consumer-invoice summary sent instead of a type 32
// under DOP 250,000.00; ACECF, ARECF and ANECF build the commercial
// approval, the receipt and the voiding of ranges; ReadXML,
// ReadReceivedECF, ParseECFHeader, ParseACECF, ParseARECF and
// ParseSemilla read what other taxpayers send, in one pass over the bytes
// (xmltoken.go), after xmlchar's limits on attributes and namespace
// declarations; TimbreURL is the QR code's URL. Every XML written is compact UTF-8 with DGII's
// formats and no empty element, and validates against DGII's XSD once the
// signer appends the Signature.
//
// It owns ecf.Document, the e-CF's content as DGII defines it: what the
// client posts, what is checked and what is signed. It is kept apart from
// sello.Document, the record of the document's life, which stores it as
// the payload (see the root package's doc for the four Document types).
package ecf
