package portal

import (
	"fmt"

	"github.com/sello-do/sello/internal/i18n"
)

// Inicio, the month at a glance (home.go, home.templ, chart.go).
func init() {
	registerSpanish(map[string]string{
		"Documents issued per day": "Documentos emitidos por día",
		"How many documents the company issued each day of %s, by their state at DGII.": "Cuántos documentos emitió la empresa cada día de %s, según su estado en la DGII.",
		"Documents received per day": "Documentos recibidos por día",
		"How many documents suppliers sent the company each day of %s, by DGII's confirmation of each.": "Cuántos documentos enviaron los proveedores a la empresa cada día de %s, según la confirmación de la DGII de cada uno.",
		"Total issued and received per month": "Total emitido y recibido por mes",
		"The total in pesos of the documents issued and of those received in each of the last 12 months, credit notes subtracted, without those DGII rejected.": "El total en pesos de los documentos emitidos y de los recibidos en cada uno de los últimos 12 meses, restadas las notas de crédito, sin los que la DGII rechazó.",
		"ITBIS issued and received per month": "ITBIS emitido y recibido por mes",
		"The ITBIS of the documents issued and of those received in each of the last 12 months, credit notes subtracted, without those DGII rejected.": "El ITBIS de los documentos emitidos y de los recibidos en cada uno de los últimos 12 meses, restadas las notas de crédito, sin los que la DGII rechazó.",
		"Day":            "Día",
		"Total":          "Total",
		"Month":          "Mes",
		"DGII in %s: %s": "La DGII en %s: %s",
		"DGII is not answering. Sello keeps signing your documents and sends them as soon as DGII is back; they are valid meanwhile (contingency).": "La DGII no responde. Sello sigue firmando sus documentos y los envía en cuanto la DGII vuelva; mientras tanto son válidos (contingencia).",
		"DGII is back. Sello is sending the documents that waited.":                                                                                 "La DGII volvió. Sello está enviando los documentos que esperaban.",
		"This month: %s": "Este mes: %s",
		"Amounts in pesos (DGII's e-CF writes its totals in pesos whatever the currency of the sale), by issue date (FechaEmision); credit notes subtract; documents DGII rejected do not count.": "Montos en pesos (el e-CF de la DGII escribe sus totales en pesos, sea cual sea la moneda de la venta), por fecha de emisión (FechaEmision); las notas de crédito restan; los documentos que la DGII rechazó no cuentan.",
		"By document type":                     "Por tipo de comprobante",
		"This month's totals by document type": "Los totales de este mes por tipo de comprobante",
		"Type":                                 "Tipo",
		"ITBIS issued":                         "ITBIS emitido",
		"ITBIS received":                       "ITBIS recibido",
		"To look after":                        "Para atender",
		"Day by day":                           "Día a día",
		"The last 12 months":                   "Los últimos 12 meses",
		"Documents":                            "Documentos",
		"ITBIS":                                "ITBIS",
		"DGII":                                 "DGII",
		"e-NCF ranges":                         "Secuencias e-NCF",
		"No range is running out.":             "Ninguna secuencia se está agotando.",
		"no number left: documents of this type are refused until a new range is registered.": "no quedan números: los documentos de este tipo se rechazan hasta que se registre una secuencia nueva.",
		"%d numbers left.": "Quedan %d números.",
		"Expires on %s.":   "Vence el %s.",
		"Certificates":     "Certificados",
		"No valid certificate signs in %s: documents cannot be signed.": "Ningún certificado válido firma en %s: los documentos no se pueden firmar.",
		"No certificate expires in the next 30 days.":                   "Ningún certificado vence en los próximos 30 días.",
		"expires on %s (in %d days).":                                   "vence el %s (en %d días).",
		"More than %d failed deliveries":                                "Más de %d entregas fallidas",
		"Failed deliveries: %d":                                         "Entregas fallidas: %d",
		"Legend":                                                        "Leyenda",
		"The chart's numbers":                                           "Los números del gráfico",
		"No document yet.":                                              "Todavía no hay documentos.",
		"Numbers of: %s":                                                "Números de: %s",
		"See the e-NCF ranges":                                          "Ver las secuencias",
		"See the certificates":                                          "Ver los certificados",
	})
	i18n.Register(map[string]i18n.Entry{
		// The series of the charts (issuedSeries, receivedSeries).
		"chart series: accepted":                 {EN: "accepted", ES: "aceptados"},
		"chart series: accepted with conditions": {EN: "accepted with conditions", ES: "aceptados con condiciones"},
		"chart series: on their way to DGII":     {EN: "on their way to DGII", ES: "en camino a la DGII"},
		"chart series: rejected":                 {EN: "rejected", ES: "rechazados"},
		"chart series: failed":                   {EN: "failed", ES: "fallidos"},
		"chart series: accepted by DGII":         {EN: "accepted by DGII", ES: "aceptados por la DGII"},
		"chart series: not confirmed yet":        {EN: "not confirmed yet", ES: "sin confirmar todavía"},
		"chart series: refuted":                  {EN: "not the issuer's (refuted)", ES: "no son del emisor (refutados)"},
		"issued documents, plural":               {EN: "Issued", ES: "Emitidos"},
		"received documents, plural":             {EN: "Received", ES: "Recibidos"},
		"%s %d (a month and its year)":           {EN: "%s %d", ES: "%s de %d"},
		"short name of type 31":                  {EN: "Tax credit invoice", ES: "Crédito fiscal"},
		"short name of type 32":                  {EN: "Consumer invoice", ES: "Consumo"},
		"short name of type 33":                  {EN: "Debit note", ES: "Nota de débito"},
		"short name of type 34":                  {EN: "Credit note", ES: "Nota de crédito"},
		"short name of type 41":                  {EN: "Purchases", ES: "Compras"},
		"short name of type 43":                  {EN: "Minor expenses", ES: "Gastos menores"},
		"short name of type 44":                  {EN: "Special regimes", ES: "Regímenes especiales"},
		"short name of type 45":                  {EN: "Government", ES: "Gubernamental"},
		"short name of type 46":                  {EN: "Exports", ES: "Exportaciones"},
		"short name of type 47":                  {EN: "Payments abroad", ES: "Pagos al exterior"},
	})
	months := []struct{ en, es string }{
		{"January", "enero"}, {"February", "febrero"}, {"March", "marzo"}, {"April", "abril"}, {"May", "mayo"}, {"June", "junio"},
		{"July", "julio"}, {"August", "agosto"}, {"September", "septiembre"}, {"October", "octubre"}, {"November", "noviembre"}, {"December", "diciembre"},
	}
	m := map[string]i18n.Entry{}
	for i, mo := range months {
		m[fmt.Sprintf("month %d", i+1)] = i18n.Entry{EN: mo.en, ES: mo.es}
		m[fmt.Sprintf("month %d, short", i+1)] = i18n.Entry{EN: mo.en[:3], ES: mo.es[:3]}
	}
	i18n.Register(m)
}
