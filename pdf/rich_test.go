package pdf_test

import (
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// rich is an E31 with what the fixtures lack: a trade name, place codes,
// phones, an item description, an item discount, two rates, a global
// discount, payment forms and a due date.
const rich = `{"ECF":{"Encabezado":{"Version":"1.0",
"IdDoc":{"TipoeCF":"31","eNCF":"E310000000001","FechaVencimientoSecuencia":"31-12-2025","IndicadorMontoGravado":0,"TipoIngresos":"01","TipoPago":2,"FechaLimitePago":"01-05-2025","TerminoPago":"30 días",
 "TablaFormasPago":{"FormaDePago":[{"FormaPago":4,"MontoPago":"1500.00"}]}},
"Emisor":{"RNCEmisor":"131793916","RazonSocialEmisor":"Sello Demo SRL","NombreComercial":"Panadería Ñoña","DireccionEmisor":"Calle El Conde 5","Municipio":"250100","Provincia":"250000",
 "TablaTelefonoEmisor":{"TelefonoEmisor":["809-555-0100"]},"CorreoEmisor":"ventas@example.do","FechaEmision":"01-04-2025"},
"Comprador":{"RNCComprador":"101023122","RazonSocialComprador":"Cliente Ejemplo SA","DireccionComprador":"Av. Las Américas 7"}},
"DetallesItems":{"Item":[
 {"NumeroLinea":1,"IndicadorFacturacion":1,"NombreItem":"Pan de agua","IndicadorBienoServicio":1,"DescripcionItem":"Horneado del día","CantidadItem":10,"UnidadMedida":"31","PrecioUnitarioItem":"100.00",
  "DescuentoMonto":"100.00","TablaSubDescuento":{"SubDescuento":[{"TipoSubDescuento":"$","MontoSubDescuento":"100.00"}]}},
 {"NumeroLinea":2,"IndicadorFacturacion":2,"NombreItem":"Café molido","IndicadorBienoServicio":1,"CantidadItem":"1.5","UnidadMedida":"23","PrecioUnitarioItem":"400.00"}]},
"DescuentosORecargos":{"DescuentoORecargo":[{"NumeroLinea":1,"TipoAjuste":"D","DescripcionDescuentooRecargo":"Cliente frecuente","TipoValor":"$","MontoDescuentooRecargo":"50.00","IndicadorFacturacionDescuentooRecargo":1}]}
}}`

func TestRender_Rich(t *testing.T) {
	d := MustCheck(t, []byte(rich))
	got := pdfText(t, MustRender(t, d, meta(d, sello.EnvProd, sello.StatusAccepted)))[0]
	for _, w := range []string{
		"Panadería Ñoña", "SANTIAGO, SANTIAGO", "Tel.: 809-555-0100", "ventas@example.do",
		"Av. Las Américas 7", "Tipo de pago: Crédito", "Fecha límite de pago: 01-05-2025", "Término: 30 días",
		"Venta a crédito: RD$ 1,500.00",
		"Pan de agua", "Horneado del día", "Paquete", "-100.00", "900.00",
		"Café molido", "1.5", "Libra", "16%",
		"Descuento: Cliente frecuente", "-50.00",
		"Monto gravado ITBIS 18%", "Monto gravado ITBIS 16%", "ITBIS 16%", "Total ITBIS",
		"MONTO TOTAL",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
}
