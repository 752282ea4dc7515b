// Package pdf renders DGII's printed representation (representación
// impresa, RI) of an e-CF as a PDF, with maroto v2 and the PDF core fonts.
//
// Render lays out a US Letter page the way DGII's illustrative models do:
// the issuer (razón social, nombre comercial, RNC, address, municipality and
// province in words, phones) on the left and the e-CF type in words, the
// e-NCF, FechaEmision and FechaVencimientoSecuencia on the right; a red
// "DOCUMENTO DE PRUEBA — sin validez fiscal" banner outside production (and
// a rejection banner for rejected or failed documents); the buyer; the
// reference of a note (NCF modified, its date, the modification in words);
// the payment terms; the items table (quantity, name, unit in words, unit
// price, ITBIS rate or E/N/F, discount or surcharge, amount) whose column
// heads repeat on every page; the global discounts and surcharges; and, at
// the bottom of the last page, the timbre QR at the lower left with
// "Código de seguridad" and "Fecha de firma digital" below it, beside the
// totals. Every page repeats the issuer, document and buyer block and is
// numbered "Página n de m".
//
// Amounts are formatted from the exact decimal text ("RD$ 1,180.00"), never
// through float64. Text is encoded to Windows-1252 for the core fonts, which
// covers Spanish (á é í ó ú ñ ü ¿ ¡ — “ ” €); other characters print as "?".
package pdf
