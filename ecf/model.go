package ecf

import "encoding/json"

// ECF is DGII's <ECF> element, at ECF.
type ECF struct {
	Encabezado            *Encabezado            `json:"Encabezado,omitempty" xml:"Encabezado,omitempty"`
	DetallesItems         *DetallesItems         `json:"DetallesItems,omitempty" xml:"DetallesItems,omitempty"`
	Subtotales            *Subtotales            `json:"Subtotales,omitempty" xml:"Subtotales,omitempty"`
	DescuentosORecargos   *DescuentosORecargos   `json:"DescuentosORecargos,omitempty" xml:"DescuentosORecargos,omitempty"`
	Paginacion            *Paginacion            `json:"Paginacion,omitempty" xml:"Paginacion,omitempty"`
	InformacionReferencia *InformacionReferencia `json:"InformacionReferencia,omitempty" xml:"InformacionReferencia,omitempty"`
	// FechaHoraFirma and Signature are set by Sello when it signs; a
	// client that sends them gets a validation detail.
	FechaHoraFirma string          `json:"FechaHoraFirma,omitempty" xml:"FechaHoraFirma,omitempty"`
	Signature      json.RawMessage `json:"Signature,omitempty" xml:"-"`
}

// Encabezado is DGII's <Encabezado> element, at ECF.Encabezado.
type Encabezado struct {
	Version                  Code                      `json:"Version,omitempty" xml:"Version,omitempty"`
	IdDoc                    *IdDoc                    `json:"IdDoc,omitempty" xml:"IdDoc,omitempty"`
	Emisor                   *Emisor                   `json:"Emisor,omitempty" xml:"Emisor,omitempty"`
	Comprador                *Comprador                `json:"Comprador,omitempty" xml:"Comprador,omitempty"`
	InformacionesAdicionales *InformacionesAdicionales `json:"InformacionesAdicionales,omitempty" xml:"InformacionesAdicionales,omitempty"`
	Transporte               *Transporte               `json:"Transporte,omitempty" xml:"Transporte,omitempty"`
	Totales                  *Totales                  `json:"Totales,omitempty" xml:"Totales,omitempty"`
	OtraMoneda               *OtraMoneda               `json:"OtraMoneda,omitempty" xml:"OtraMoneda,omitempty"`
}

// IdDoc is DGII's <IdDoc> element, at ECF.Encabezado.IdDoc.
type IdDoc struct {
	TipoeCF                       Code             `json:"TipoeCF,omitempty" xml:"TipoeCF,omitempty"`
	ENCF                          string           `json:"eNCF,omitempty" xml:"eNCF,omitempty"`
	IndicadorNotaCredito          Code             `json:"IndicadorNotaCredito,omitempty" xml:"IndicadorNotaCredito,omitempty"`
	FechaVencimientoSecuencia     string           `json:"FechaVencimientoSecuencia,omitempty" xml:"FechaVencimientoSecuencia,omitempty"`
	IndicadorEnvioDiferido        Code             `json:"IndicadorEnvioDiferido,omitempty" xml:"IndicadorEnvioDiferido,omitempty"`
	IndicadorMontoGravado         Code             `json:"IndicadorMontoGravado,omitempty" xml:"IndicadorMontoGravado,omitempty"`
	IndicadorServicioTodoIncluido Code             `json:"IndicadorServicioTodoIncluido,omitempty" xml:"IndicadorServicioTodoIncluido,omitempty"`
	TipoIngresos                  Code             `json:"TipoIngresos,omitempty" xml:"TipoIngresos,omitempty"`
	TipoPago                      Code             `json:"TipoPago,omitempty" xml:"TipoPago,omitempty"`
	FechaLimitePago               string           `json:"FechaLimitePago,omitempty" xml:"FechaLimitePago,omitempty"`
	TerminoPago                   string           `json:"TerminoPago,omitempty" xml:"TerminoPago,omitempty"`
	TablaFormasPago               *TablaFormasPago `json:"TablaFormasPago,omitempty" xml:"TablaFormasPago,omitempty"`
	TipoCuentaPago                Code             `json:"TipoCuentaPago,omitempty" xml:"TipoCuentaPago,omitempty"`
	NumeroCuentaPago              string           `json:"NumeroCuentaPago,omitempty" xml:"NumeroCuentaPago,omitempty"`
	BancoPago                     string           `json:"BancoPago,omitempty" xml:"BancoPago,omitempty"`
	FechaDesde                    string           `json:"FechaDesde,omitempty" xml:"FechaDesde,omitempty"`
	FechaHasta                    string           `json:"FechaHasta,omitempty" xml:"FechaHasta,omitempty"`
	TotalPaginas                  Code             `json:"TotalPaginas,omitempty" xml:"TotalPaginas,omitempty"`
}

// TablaFormasPago is DGII's <TablaFormasPago> element, at ECF.Encabezado.IdDoc.TablaFormasPago.
type TablaFormasPago struct {
	FormaDePago []FormaDePago `json:"FormaDePago,omitempty" xml:"FormaDePago,omitempty"`
}

// FormaDePago is DGII's <FormaDePago> element, at ECF.Encabezado.IdDoc.TablaFormasPago.FormaDePago.
type FormaDePago struct {
	FormaPago Code     `json:"FormaPago,omitempty" xml:"FormaPago,omitempty"`
	MontoPago *Decimal `json:"MontoPago,omitempty" xml:"MontoPago,omitempty"`
}

// Emisor is DGII's <Emisor> element, at ECF.Encabezado.Emisor.
type Emisor struct {
	RNCEmisor                  string               `json:"RNCEmisor,omitempty" xml:"RNCEmisor,omitempty"`
	RazonSocialEmisor          string               `json:"RazonSocialEmisor,omitempty" xml:"RazonSocialEmisor,omitempty"`
	NombreComercial            string               `json:"NombreComercial,omitempty" xml:"NombreComercial,omitempty"`
	Sucursal                   string               `json:"Sucursal,omitempty" xml:"Sucursal,omitempty"`
	DireccionEmisor            string               `json:"DireccionEmisor,omitempty" xml:"DireccionEmisor,omitempty"`
	Municipio                  Code                 `json:"Municipio,omitempty" xml:"Municipio,omitempty"`
	Provincia                  Code                 `json:"Provincia,omitempty" xml:"Provincia,omitempty"`
	TablaTelefonoEmisor        *TablaTelefonoEmisor `json:"TablaTelefonoEmisor,omitempty" xml:"TablaTelefonoEmisor,omitempty"`
	CorreoEmisor               string               `json:"CorreoEmisor,omitempty" xml:"CorreoEmisor,omitempty"`
	WebSite                    string               `json:"WebSite,omitempty" xml:"WebSite,omitempty"`
	ActividadEconomica         string               `json:"ActividadEconomica,omitempty" xml:"ActividadEconomica,omitempty"`
	CodigoVendedor             string               `json:"CodigoVendedor,omitempty" xml:"CodigoVendedor,omitempty"`
	NumeroFacturaInterna       string               `json:"NumeroFacturaInterna,omitempty" xml:"NumeroFacturaInterna,omitempty"`
	NumeroPedidoInterno        Code                 `json:"NumeroPedidoInterno,omitempty" xml:"NumeroPedidoInterno,omitempty"`
	ZonaVenta                  string               `json:"ZonaVenta,omitempty" xml:"ZonaVenta,omitempty"`
	RutaVenta                  string               `json:"RutaVenta,omitempty" xml:"RutaVenta,omitempty"`
	InformacionAdicionalEmisor string               `json:"InformacionAdicionalEmisor,omitempty" xml:"InformacionAdicionalEmisor,omitempty"`
	FechaEmision               string               `json:"FechaEmision,omitempty" xml:"FechaEmision,omitempty"`
}

// TablaTelefonoEmisor is DGII's <TablaTelefonoEmisor> element, at ECF.Encabezado.Emisor.TablaTelefonoEmisor.
type TablaTelefonoEmisor struct {
	TelefonoEmisor []string `json:"TelefonoEmisor,omitempty" xml:"TelefonoEmisor,omitempty"`
}

// Comprador is DGII's <Comprador> element, at ECF.Encabezado.Comprador.
type Comprador struct {
	RNCComprador                  string `json:"RNCComprador,omitempty" xml:"RNCComprador,omitempty"`
	IdentificadorExtranjero       string `json:"IdentificadorExtranjero,omitempty" xml:"IdentificadorExtranjero,omitempty"`
	RazonSocialComprador          string `json:"RazonSocialComprador,omitempty" xml:"RazonSocialComprador,omitempty"`
	ContactoComprador             string `json:"ContactoComprador,omitempty" xml:"ContactoComprador,omitempty"`
	CorreoComprador               string `json:"CorreoComprador,omitempty" xml:"CorreoComprador,omitempty"`
	DireccionComprador            string `json:"DireccionComprador,omitempty" xml:"DireccionComprador,omitempty"`
	MunicipioComprador            Code   `json:"MunicipioComprador,omitempty" xml:"MunicipioComprador,omitempty"`
	ProvinciaComprador            Code   `json:"ProvinciaComprador,omitempty" xml:"ProvinciaComprador,omitempty"`
	PaisComprador                 string `json:"PaisComprador,omitempty" xml:"PaisComprador,omitempty"`
	FechaEntrega                  string `json:"FechaEntrega,omitempty" xml:"FechaEntrega,omitempty"`
	ContactoEntrega               string `json:"ContactoEntrega,omitempty" xml:"ContactoEntrega,omitempty"`
	DireccionEntrega              string `json:"DireccionEntrega,omitempty" xml:"DireccionEntrega,omitempty"`
	TelefonoAdicional             string `json:"TelefonoAdicional,omitempty" xml:"TelefonoAdicional,omitempty"`
	FechaOrdenCompra              string `json:"FechaOrdenCompra,omitempty" xml:"FechaOrdenCompra,omitempty"`
	NumeroOrdenCompra             string `json:"NumeroOrdenCompra,omitempty" xml:"NumeroOrdenCompra,omitempty"`
	CodigoInternoComprador        string `json:"CodigoInternoComprador,omitempty" xml:"CodigoInternoComprador,omitempty"`
	ResponsablePago               string `json:"ResponsablePago,omitempty" xml:"ResponsablePago,omitempty"`
	InformacionAdicionalComprador string `json:"InformacionAdicionalComprador,omitempty" xml:"InformacionAdicionalComprador,omitempty"`
}

// InformacionesAdicionales is DGII's <InformacionesAdicionales> element, at ECF.Encabezado.InformacionesAdicionales.
type InformacionesAdicionales struct {
	FechaEmbarque           string   `json:"FechaEmbarque,omitempty" xml:"FechaEmbarque,omitempty"`
	NumeroEmbarque          string   `json:"NumeroEmbarque,omitempty" xml:"NumeroEmbarque,omitempty"`
	NumeroContenedor        string   `json:"NumeroContenedor,omitempty" xml:"NumeroContenedor,omitempty"`
	NumeroReferencia        Code     `json:"NumeroReferencia,omitempty" xml:"NumeroReferencia,omitempty"`
	NombrePuertoEmbarque    string   `json:"NombrePuertoEmbarque,omitempty" xml:"NombrePuertoEmbarque,omitempty"`
	CondicionesEntrega      string   `json:"CondicionesEntrega,omitempty" xml:"CondicionesEntrega,omitempty"`
	TotalFob                *Decimal `json:"TotalFob,omitempty" xml:"TotalFob,omitempty"`
	Seguro                  *Decimal `json:"Seguro,omitempty" xml:"Seguro,omitempty"`
	Flete                   *Decimal `json:"Flete,omitempty" xml:"Flete,omitempty"`
	OtrosGastos             *Decimal `json:"OtrosGastos,omitempty" xml:"OtrosGastos,omitempty"`
	TotalCif                *Decimal `json:"TotalCif,omitempty" xml:"TotalCif,omitempty"`
	RegimenAduanero         string   `json:"RegimenAduanero,omitempty" xml:"RegimenAduanero,omitempty"`
	NombrePuertoSalida      string   `json:"NombrePuertoSalida,omitempty" xml:"NombrePuertoSalida,omitempty"`
	NombrePuertoDesembarque string   `json:"NombrePuertoDesembarque,omitempty" xml:"NombrePuertoDesembarque,omitempty"`
	PesoBruto               *Decimal `json:"PesoBruto,omitempty" xml:"PesoBruto,omitempty"`
	PesoNeto                *Decimal `json:"PesoNeto,omitempty" xml:"PesoNeto,omitempty"`
	UnidadPesoBruto         Code     `json:"UnidadPesoBruto,omitempty" xml:"UnidadPesoBruto,omitempty"`
	UnidadPesoNeto          Code     `json:"UnidadPesoNeto,omitempty" xml:"UnidadPesoNeto,omitempty"`
	CantidadBulto           *Decimal `json:"CantidadBulto,omitempty" xml:"CantidadBulto,omitempty"`
	UnidadBulto             Code     `json:"UnidadBulto,omitempty" xml:"UnidadBulto,omitempty"`
	VolumenBulto            *Decimal `json:"VolumenBulto,omitempty" xml:"VolumenBulto,omitempty"`
	UnidadVolumen           Code     `json:"UnidadVolumen,omitempty" xml:"UnidadVolumen,omitempty"`
}

// Transporte is DGII's <Transporte> element, at ECF.Encabezado.Transporte.
type Transporte struct {
	ViaTransporte                          Code   `json:"ViaTransporte,omitempty" xml:"ViaTransporte,omitempty"`
	PaisOrigen                             string `json:"PaisOrigen,omitempty" xml:"PaisOrigen,omitempty"`
	DireccionDestino                       string `json:"DireccionDestino,omitempty" xml:"DireccionDestino,omitempty"`
	PaisDestino                            string `json:"PaisDestino,omitempty" xml:"PaisDestino,omitempty"`
	RNCIdentificacionCompaniaTransportista string `json:"RNCIdentificacionCompaniaTransportista,omitempty" xml:"RNCIdentificacionCompaniaTransportista,omitempty"`
	NombreCompaniaTransportista            string `json:"NombreCompaniaTransportista,omitempty" xml:"NombreCompaniaTransportista,omitempty"`
	NumeroViaje                            string `json:"NumeroViaje,omitempty" xml:"NumeroViaje,omitempty"`
	Conductor                              string `json:"Conductor,omitempty" xml:"Conductor,omitempty"`
	DocumentoTransporte                    Code   `json:"DocumentoTransporte,omitempty" xml:"DocumentoTransporte,omitempty"`
	Ficha                                  string `json:"Ficha,omitempty" xml:"Ficha,omitempty"`
	Placa                                  string `json:"Placa,omitempty" xml:"Placa,omitempty"`
	RutaTransporte                         string `json:"RutaTransporte,omitempty" xml:"RutaTransporte,omitempty"`
	ZonaTransporte                         string `json:"ZonaTransporte,omitempty" xml:"ZonaTransporte,omitempty"`
	NumeroAlbaran                          string `json:"NumeroAlbaran,omitempty" xml:"NumeroAlbaran,omitempty"`
}

// Totales is DGII's <Totales> element, at ECF.Encabezado.Totales.
type Totales struct {
	MontoGravadoTotal      *Decimal              `json:"MontoGravadoTotal,omitempty" xml:"MontoGravadoTotal,omitempty"`
	MontoGravadoI1         *Decimal              `json:"MontoGravadoI1,omitempty" xml:"MontoGravadoI1,omitempty"`
	MontoGravadoI2         *Decimal              `json:"MontoGravadoI2,omitempty" xml:"MontoGravadoI2,omitempty"`
	MontoGravadoI3         *Decimal              `json:"MontoGravadoI3,omitempty" xml:"MontoGravadoI3,omitempty"`
	MontoExento            *Decimal              `json:"MontoExento,omitempty" xml:"MontoExento,omitempty"`
	ITBIS1                 Code                  `json:"ITBIS1,omitempty" xml:"ITBIS1,omitempty"`
	ITBIS2                 Code                  `json:"ITBIS2,omitempty" xml:"ITBIS2,omitempty"`
	ITBIS3                 Code                  `json:"ITBIS3,omitempty" xml:"ITBIS3,omitempty"`
	TotalITBIS             *Decimal              `json:"TotalITBIS,omitempty" xml:"TotalITBIS,omitempty"`
	TotalITBIS1            *Decimal              `json:"TotalITBIS1,omitempty" xml:"TotalITBIS1,omitempty"`
	TotalITBIS2            *Decimal              `json:"TotalITBIS2,omitempty" xml:"TotalITBIS2,omitempty"`
	TotalITBIS3            *Decimal              `json:"TotalITBIS3,omitempty" xml:"TotalITBIS3,omitempty"`
	MontoImpuestoAdicional *Decimal              `json:"MontoImpuestoAdicional,omitempty" xml:"MontoImpuestoAdicional,omitempty"`
	ImpuestosAdicionales   *ImpuestosAdicionales `json:"ImpuestosAdicionales,omitempty" xml:"ImpuestosAdicionales,omitempty"`
	MontoTotal             *Decimal              `json:"MontoTotal,omitempty" xml:"MontoTotal,omitempty"`
	MontoNoFacturable      *Decimal              `json:"MontoNoFacturable,omitempty" xml:"MontoNoFacturable,omitempty"`
	MontoPeriodo           *Decimal              `json:"MontoPeriodo,omitempty" xml:"MontoPeriodo,omitempty"`
	SaldoAnterior          *Decimal              `json:"SaldoAnterior,omitempty" xml:"SaldoAnterior,omitempty"`
	MontoAvancePago        *Decimal              `json:"MontoAvancePago,omitempty" xml:"MontoAvancePago,omitempty"`
	ValorPagar             *Decimal              `json:"ValorPagar,omitempty" xml:"ValorPagar,omitempty"`
	TotalITBISRetenido     *Decimal              `json:"TotalITBISRetenido,omitempty" xml:"TotalITBISRetenido,omitempty"`
	TotalISRRetencion      *Decimal              `json:"TotalISRRetencion,omitempty" xml:"TotalISRRetencion,omitempty"`
	TotalITBISPercepcion   *Decimal              `json:"TotalITBISPercepcion,omitempty" xml:"TotalITBISPercepcion,omitempty"`
	TotalISRPercepcion     *Decimal              `json:"TotalISRPercepcion,omitempty" xml:"TotalISRPercepcion,omitempty"`
}

// ImpuestosAdicionales is DGII's <ImpuestosAdicionales> element, at ECF.Encabezado.Totales.ImpuestosAdicionales.
type ImpuestosAdicionales struct {
	ImpuestoAdicional []ImpuestoAdicional `json:"ImpuestoAdicional,omitempty" xml:"ImpuestoAdicional,omitempty"`
}

// ImpuestoAdicional is DGII's <ImpuestoAdicional> element, at ECF.Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional.
type ImpuestoAdicional struct {
	TipoImpuesto                            Code     `json:"TipoImpuesto,omitempty" xml:"TipoImpuesto,omitempty"`
	TasaImpuestoAdicional                   *Decimal `json:"TasaImpuestoAdicional,omitempty" xml:"TasaImpuestoAdicional,omitempty"`
	MontoImpuestoSelectivoConsumoEspecifico *Decimal `json:"MontoImpuestoSelectivoConsumoEspecifico,omitempty" xml:"MontoImpuestoSelectivoConsumoEspecifico,omitempty"`
	MontoImpuestoSelectivoConsumoAdvalorem  *Decimal `json:"MontoImpuestoSelectivoConsumoAdvalorem,omitempty" xml:"MontoImpuestoSelectivoConsumoAdvalorem,omitempty"`
	OtrosImpuestosAdicionales               *Decimal `json:"OtrosImpuestosAdicionales,omitempty" xml:"OtrosImpuestosAdicionales,omitempty"`
}

// OtraMoneda is DGII's <OtraMoneda> element, at ECF.Encabezado.OtraMoneda.
type OtraMoneda struct {
	TipoMoneda                       Code                            `json:"TipoMoneda,omitempty" xml:"TipoMoneda,omitempty"`
	TipoCambio                       *Decimal                        `json:"TipoCambio,omitempty" xml:"TipoCambio,omitempty"`
	MontoGravadoTotalOtraMoneda      *Decimal                        `json:"MontoGravadoTotalOtraMoneda,omitempty" xml:"MontoGravadoTotalOtraMoneda,omitempty"`
	MontoGravado1OtraMoneda          *Decimal                        `json:"MontoGravado1OtraMoneda,omitempty" xml:"MontoGravado1OtraMoneda,omitempty"`
	MontoGravado2OtraMoneda          *Decimal                        `json:"MontoGravado2OtraMoneda,omitempty" xml:"MontoGravado2OtraMoneda,omitempty"`
	MontoGravado3OtraMoneda          *Decimal                        `json:"MontoGravado3OtraMoneda,omitempty" xml:"MontoGravado3OtraMoneda,omitempty"`
	MontoExentoOtraMoneda            *Decimal                        `json:"MontoExentoOtraMoneda,omitempty" xml:"MontoExentoOtraMoneda,omitempty"`
	TotalITBISOtraMoneda             *Decimal                        `json:"TotalITBISOtraMoneda,omitempty" xml:"TotalITBISOtraMoneda,omitempty"`
	TotalITBIS1OtraMoneda            *Decimal                        `json:"TotalITBIS1OtraMoneda,omitempty" xml:"TotalITBIS1OtraMoneda,omitempty"`
	TotalITBIS2OtraMoneda            *Decimal                        `json:"TotalITBIS2OtraMoneda,omitempty" xml:"TotalITBIS2OtraMoneda,omitempty"`
	TotalITBIS3OtraMoneda            *Decimal                        `json:"TotalITBIS3OtraMoneda,omitempty" xml:"TotalITBIS3OtraMoneda,omitempty"`
	MontoImpuestoAdicionalOtraMoneda *Decimal                        `json:"MontoImpuestoAdicionalOtraMoneda,omitempty" xml:"MontoImpuestoAdicionalOtraMoneda,omitempty"`
	ImpuestosAdicionalesOtraMoneda   *ImpuestosAdicionalesOtraMoneda `json:"ImpuestosAdicionalesOtraMoneda,omitempty" xml:"ImpuestosAdicionalesOtraMoneda,omitempty"`
	MontoTotalOtraMoneda             *Decimal                        `json:"MontoTotalOtraMoneda,omitempty" xml:"MontoTotalOtraMoneda,omitempty"`
}

// ImpuestosAdicionalesOtraMoneda is DGII's <ImpuestosAdicionalesOtraMoneda> element, at ECF.Encabezado.OtraMoneda.ImpuestosAdicionalesOtraMoneda.
type ImpuestosAdicionalesOtraMoneda struct {
	ImpuestoAdicionalOtraMoneda []ImpuestoAdicionalOtraMoneda `json:"ImpuestoAdicionalOtraMoneda,omitempty" xml:"ImpuestoAdicionalOtraMoneda,omitempty"`
}

// ImpuestoAdicionalOtraMoneda is DGII's <ImpuestoAdicionalOtraMoneda> element, at ECF.Encabezado.OtraMoneda.ImpuestosAdicionalesOtraMoneda.ImpuestoAdicionalOtraMoneda.
type ImpuestoAdicionalOtraMoneda struct {
	TipoImpuestoOtraMoneda                            Code     `json:"TipoImpuestoOtraMoneda,omitempty" xml:"TipoImpuestoOtraMoneda,omitempty"`
	TasaImpuestoAdicionalOtraMoneda                   *Decimal `json:"TasaImpuestoAdicionalOtraMoneda,omitempty" xml:"TasaImpuestoAdicionalOtraMoneda,omitempty"`
	MontoImpuestoSelectivoConsumoEspecificoOtraMoneda *Decimal `json:"MontoImpuestoSelectivoConsumoEspecificoOtraMoneda,omitempty" xml:"MontoImpuestoSelectivoConsumoEspecificoOtraMoneda,omitempty"`
	MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda  *Decimal `json:"MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda,omitempty" xml:"MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda,omitempty"`
	OtrosImpuestosAdicionalesOtraMoneda               *Decimal `json:"OtrosImpuestosAdicionalesOtraMoneda,omitempty" xml:"OtrosImpuestosAdicionalesOtraMoneda,omitempty"`
}

// DetallesItems is DGII's <DetallesItems> element, at ECF.DetallesItems.
type DetallesItems struct {
	Item []Item `json:"Item,omitempty" xml:"Item,omitempty"`
}

// Item is DGII's <Item> element, at ECF.DetallesItems.Item.
type Item struct {
	NumeroLinea              Code                    `json:"NumeroLinea,omitempty" xml:"NumeroLinea,omitempty"`
	TablaCodigosItem         *TablaCodigosItem       `json:"TablaCodigosItem,omitempty" xml:"TablaCodigosItem,omitempty"`
	IndicadorFacturacion     Code                    `json:"IndicadorFacturacion,omitempty" xml:"IndicadorFacturacion,omitempty"`
	Retencion                *Retencion              `json:"Retencion,omitempty" xml:"Retencion,omitempty"`
	NombreItem               string                  `json:"NombreItem,omitempty" xml:"NombreItem,omitempty"`
	IndicadorBienoServicio   Code                    `json:"IndicadorBienoServicio,omitempty" xml:"IndicadorBienoServicio,omitempty"`
	DescripcionItem          string                  `json:"DescripcionItem,omitempty" xml:"DescripcionItem,omitempty"`
	CantidadItem             *Decimal                `json:"CantidadItem,omitempty" xml:"CantidadItem,omitempty"`
	UnidadMedida             Code                    `json:"UnidadMedida,omitempty" xml:"UnidadMedida,omitempty"`
	CantidadReferencia       *Decimal                `json:"CantidadReferencia,omitempty" xml:"CantidadReferencia,omitempty"`
	UnidadReferencia         Code                    `json:"UnidadReferencia,omitempty" xml:"UnidadReferencia,omitempty"`
	TablaSubcantidad         *TablaSubcantidad       `json:"TablaSubcantidad,omitempty" xml:"TablaSubcantidad,omitempty"`
	GradosAlcohol            *Decimal                `json:"GradosAlcohol,omitempty" xml:"GradosAlcohol,omitempty"`
	PrecioUnitarioReferencia *Decimal                `json:"PrecioUnitarioReferencia,omitempty" xml:"PrecioUnitarioReferencia,omitempty"`
	FechaElaboracion         string                  `json:"FechaElaboracion,omitempty" xml:"FechaElaboracion,omitempty"`
	FechaVencimientoItem     string                  `json:"FechaVencimientoItem,omitempty" xml:"FechaVencimientoItem,omitempty"`
	Mineria                  *Mineria                `json:"Mineria,omitempty" xml:"Mineria,omitempty"`
	PrecioUnitarioItem       *Decimal                `json:"PrecioUnitarioItem,omitempty" xml:"PrecioUnitarioItem,omitempty"`
	DescuentoMonto           *Decimal                `json:"DescuentoMonto,omitempty" xml:"DescuentoMonto,omitempty"`
	TablaSubDescuento        *TablaSubDescuento      `json:"TablaSubDescuento,omitempty" xml:"TablaSubDescuento,omitempty"`
	RecargoMonto             *Decimal                `json:"RecargoMonto,omitempty" xml:"RecargoMonto,omitempty"`
	TablaSubRecargo          *TablaSubRecargo        `json:"TablaSubRecargo,omitempty" xml:"TablaSubRecargo,omitempty"`
	TablaImpuestoAdicional   *TablaImpuestoAdicional `json:"TablaImpuestoAdicional,omitempty" xml:"TablaImpuestoAdicional,omitempty"`
	OtraMonedaDetalle        *OtraMonedaDetalle      `json:"OtraMonedaDetalle,omitempty" xml:"OtraMonedaDetalle,omitempty"`
	MontoItem                *Decimal                `json:"MontoItem,omitempty" xml:"MontoItem,omitempty"`
}

// TablaCodigosItem is DGII's <TablaCodigosItem> element, at ECF.DetallesItems.Item.TablaCodigosItem.
type TablaCodigosItem struct {
	CodigosItem []CodigosItem `json:"CodigosItem,omitempty" xml:"CodigosItem,omitempty"`
}

// CodigosItem is DGII's <CodigosItem> element, at ECF.DetallesItems.Item.TablaCodigosItem.CodigosItem.
type CodigosItem struct {
	TipoCodigo string `json:"TipoCodigo,omitempty" xml:"TipoCodigo,omitempty"`
	CodigoItem string `json:"CodigoItem,omitempty" xml:"CodigoItem,omitempty"`
}

// Retencion is DGII's <Retencion> element, at ECF.DetallesItems.Item.Retencion.
type Retencion struct {
	IndicadorAgenteRetencionoPercepcion Code     `json:"IndicadorAgenteRetencionoPercepcion,omitempty" xml:"IndicadorAgenteRetencionoPercepcion,omitempty"`
	MontoITBISRetenido                  *Decimal `json:"MontoITBISRetenido,omitempty" xml:"MontoITBISRetenido,omitempty"`
	MontoISRRetenido                    *Decimal `json:"MontoISRRetenido,omitempty" xml:"MontoISRRetenido,omitempty"`
}

// TablaSubcantidad is DGII's <TablaSubcantidad> element, at ECF.DetallesItems.Item.TablaSubcantidad.
type TablaSubcantidad struct {
	SubcantidadItem []SubcantidadItem `json:"SubcantidadItem,omitempty" xml:"SubcantidadItem,omitempty"`
}

// SubcantidadItem is DGII's <SubcantidadItem> element, at ECF.DetallesItems.Item.TablaSubcantidad.SubcantidadItem.
type SubcantidadItem struct {
	Subcantidad       *Decimal `json:"Subcantidad,omitempty" xml:"Subcantidad,omitempty"`
	CodigoSubcantidad Code     `json:"CodigoSubcantidad,omitempty" xml:"CodigoSubcantidad,omitempty"`
}

// Mineria is DGII's <Mineria> element, at ECF.DetallesItems.Item.Mineria.
type Mineria struct {
	PesoNetoKilogramo *Decimal `json:"PesoNetoKilogramo,omitempty" xml:"PesoNetoKilogramo,omitempty"`
	PesoNetoMineria   *Decimal `json:"PesoNetoMineria,omitempty" xml:"PesoNetoMineria,omitempty"`
	TipoAfiliacion    Code     `json:"TipoAfiliacion,omitempty" xml:"TipoAfiliacion,omitempty"`
	Liquidacion       Code     `json:"Liquidacion,omitempty" xml:"Liquidacion,omitempty"`
}

// TablaSubDescuento is DGII's <TablaSubDescuento> element, at ECF.DetallesItems.Item.TablaSubDescuento.
type TablaSubDescuento struct {
	SubDescuento []SubDescuento `json:"SubDescuento,omitempty" xml:"SubDescuento,omitempty"`
}

// SubDescuento is DGII's <SubDescuento> element, at ECF.DetallesItems.Item.TablaSubDescuento.SubDescuento.
type SubDescuento struct {
	TipoSubDescuento       Code     `json:"TipoSubDescuento,omitempty" xml:"TipoSubDescuento,omitempty"`
	SubDescuentoPorcentaje *Decimal `json:"SubDescuentoPorcentaje,omitempty" xml:"SubDescuentoPorcentaje,omitempty"`
	MontoSubDescuento      *Decimal `json:"MontoSubDescuento,omitempty" xml:"MontoSubDescuento,omitempty"`
}

// TablaSubRecargo is DGII's <TablaSubRecargo> element, at ECF.DetallesItems.Item.TablaSubRecargo.
type TablaSubRecargo struct {
	SubRecargo []SubRecargo `json:"SubRecargo,omitempty" xml:"SubRecargo,omitempty"`
}

// SubRecargo is DGII's <SubRecargo> element, at ECF.DetallesItems.Item.TablaSubRecargo.SubRecargo.
type SubRecargo struct {
	TipoSubRecargo       Code     `json:"TipoSubRecargo,omitempty" xml:"TipoSubRecargo,omitempty"`
	SubRecargoPorcentaje *Decimal `json:"SubRecargoPorcentaje,omitempty" xml:"SubRecargoPorcentaje,omitempty"`
	MontoSubRecargo      *Decimal `json:"MontoSubRecargo,omitempty" xml:"MontoSubRecargo,omitempty"`
}

// TablaImpuestoAdicional is DGII's <TablaImpuestoAdicional> element, at ECF.DetallesItems.Item.TablaImpuestoAdicional.
type TablaImpuestoAdicional struct {
	ImpuestoAdicional []ImpuestoAdicionalItem `json:"ImpuestoAdicional,omitempty" xml:"ImpuestoAdicional,omitempty"`
}

// ImpuestoAdicionalItem is DGII's <ImpuestoAdicional> element, at ECF.DetallesItems.Item.TablaImpuestoAdicional.ImpuestoAdicional.
type ImpuestoAdicionalItem struct {
	TipoImpuesto Code `json:"TipoImpuesto,omitempty" xml:"TipoImpuesto,omitempty"`
}

// OtraMonedaDetalle is DGII's <OtraMonedaDetalle> element, at ECF.DetallesItems.Item.OtraMonedaDetalle.
type OtraMonedaDetalle struct {
	PrecioOtraMoneda    *Decimal `json:"PrecioOtraMoneda,omitempty" xml:"PrecioOtraMoneda,omitempty"`
	DescuentoOtraMoneda *Decimal `json:"DescuentoOtraMoneda,omitempty" xml:"DescuentoOtraMoneda,omitempty"`
	RecargoOtraMoneda   *Decimal `json:"RecargoOtraMoneda,omitempty" xml:"RecargoOtraMoneda,omitempty"`
	MontoItemOtraMoneda *Decimal `json:"MontoItemOtraMoneda,omitempty" xml:"MontoItemOtraMoneda,omitempty"`
}

// Subtotales is DGII's <Subtotales> element, at ECF.Subtotales.
type Subtotales struct {
	Subtotal []Subtotal `json:"Subtotal,omitempty" xml:"Subtotal,omitempty"`
}

// Subtotal is DGII's <Subtotal> element, at ECF.Subtotales.Subtotal.
type Subtotal struct {
	NumeroSubTotal            Code     `json:"NumeroSubTotal,omitempty" xml:"NumeroSubTotal,omitempty"`
	DescripcionSubtotal       string   `json:"DescripcionSubtotal,omitempty" xml:"DescripcionSubtotal,omitempty"`
	Orden                     Code     `json:"Orden,omitempty" xml:"Orden,omitempty"`
	SubTotalMontoGravadoTotal *Decimal `json:"SubTotalMontoGravadoTotal,omitempty" xml:"SubTotalMontoGravadoTotal,omitempty"`
	SubTotalMontoGravadoI1    *Decimal `json:"SubTotalMontoGravadoI1,omitempty" xml:"SubTotalMontoGravadoI1,omitempty"`
	SubTotalMontoGravadoI2    *Decimal `json:"SubTotalMontoGravadoI2,omitempty" xml:"SubTotalMontoGravadoI2,omitempty"`
	SubTotalMontoGravadoI3    *Decimal `json:"SubTotalMontoGravadoI3,omitempty" xml:"SubTotalMontoGravadoI3,omitempty"`
	SubTotaITBIS              *Decimal `json:"SubTotaITBIS,omitempty" xml:"SubTotaITBIS,omitempty"`
	SubTotaITBIS1             *Decimal `json:"SubTotaITBIS1,omitempty" xml:"SubTotaITBIS1,omitempty"`
	SubTotaITBIS2             *Decimal `json:"SubTotaITBIS2,omitempty" xml:"SubTotaITBIS2,omitempty"`
	SubTotaITBIS3             *Decimal `json:"SubTotaITBIS3,omitempty" xml:"SubTotaITBIS3,omitempty"`
	SubTotalImpuestoAdicional *Decimal `json:"SubTotalImpuestoAdicional,omitempty" xml:"SubTotalImpuestoAdicional,omitempty"`
	SubTotalExento            *Decimal `json:"SubTotalExento,omitempty" xml:"SubTotalExento,omitempty"`
	MontoSubTotal             *Decimal `json:"MontoSubTotal,omitempty" xml:"MontoSubTotal,omitempty"`
	Lineas                    Code     `json:"Lineas,omitempty" xml:"Lineas,omitempty"`
}

// DescuentosORecargos is DGII's <DescuentosORecargos> element, at ECF.DescuentosORecargos.
type DescuentosORecargos struct {
	DescuentoORecargo []DescuentoORecargo `json:"DescuentoORecargo,omitempty" xml:"DescuentoORecargo,omitempty"`
}

// DescuentoORecargo is DGII's <DescuentoORecargo> element, at ECF.DescuentosORecargos.DescuentoORecargo.
type DescuentoORecargo struct {
	NumeroLinea                           Code     `json:"NumeroLinea,omitempty" xml:"NumeroLinea,omitempty"`
	TipoAjuste                            Code     `json:"TipoAjuste,omitempty" xml:"TipoAjuste,omitempty"`
	IndicadorNorma1007                    Code     `json:"IndicadorNorma1007,omitempty" xml:"IndicadorNorma1007,omitempty"`
	DescripcionDescuentooRecargo          string   `json:"DescripcionDescuentooRecargo,omitempty" xml:"DescripcionDescuentooRecargo,omitempty"`
	TipoValor                             Code     `json:"TipoValor,omitempty" xml:"TipoValor,omitempty"`
	ValorDescuentooRecargo                *Decimal `json:"ValorDescuentooRecargo,omitempty" xml:"ValorDescuentooRecargo,omitempty"`
	MontoDescuentooRecargo                *Decimal `json:"MontoDescuentooRecargo,omitempty" xml:"MontoDescuentooRecargo,omitempty"`
	MontoDescuentooRecargoOtraMoneda      *Decimal `json:"MontoDescuentooRecargoOtraMoneda,omitempty" xml:"MontoDescuentooRecargoOtraMoneda,omitempty"`
	IndicadorFacturacionDescuentooRecargo Code     `json:"IndicadorFacturacionDescuentooRecargo,omitempty" xml:"IndicadorFacturacionDescuentooRecargo,omitempty"`
}

// Paginacion is DGII's <Paginacion> element, at ECF.Paginacion.
type Paginacion struct {
	Pagina []Pagina `json:"Pagina,omitempty" xml:"Pagina,omitempty"`
}

// Pagina is DGII's <Pagina> element, at ECF.Paginacion.Pagina.
type Pagina struct {
	PaginaNo                        Code                       `json:"PaginaNo,omitempty" xml:"PaginaNo,omitempty"`
	NoLineaDesde                    Code                       `json:"NoLineaDesde,omitempty" xml:"NoLineaDesde,omitempty"`
	NoLineaHasta                    Code                       `json:"NoLineaHasta,omitempty" xml:"NoLineaHasta,omitempty"`
	SubtotalMontoGravadoPagina      *Decimal                   `json:"SubtotalMontoGravadoPagina,omitempty" xml:"SubtotalMontoGravadoPagina,omitempty"`
	SubtotalMontoGravado1Pagina     *Decimal                   `json:"SubtotalMontoGravado1Pagina,omitempty" xml:"SubtotalMontoGravado1Pagina,omitempty"`
	SubtotalMontoGravado2Pagina     *Decimal                   `json:"SubtotalMontoGravado2Pagina,omitempty" xml:"SubtotalMontoGravado2Pagina,omitempty"`
	SubtotalMontoGravado3Pagina     *Decimal                   `json:"SubtotalMontoGravado3Pagina,omitempty" xml:"SubtotalMontoGravado3Pagina,omitempty"`
	SubtotalExentoPagina            *Decimal                   `json:"SubtotalExentoPagina,omitempty" xml:"SubtotalExentoPagina,omitempty"`
	SubtotalItbisPagina             *Decimal                   `json:"SubtotalItbisPagina,omitempty" xml:"SubtotalItbisPagina,omitempty"`
	SubtotalItbis1Pagina            *Decimal                   `json:"SubtotalItbis1Pagina,omitempty" xml:"SubtotalItbis1Pagina,omitempty"`
	SubtotalItbis2Pagina            *Decimal                   `json:"SubtotalItbis2Pagina,omitempty" xml:"SubtotalItbis2Pagina,omitempty"`
	SubtotalItbis3Pagina            *Decimal                   `json:"SubtotalItbis3Pagina,omitempty" xml:"SubtotalItbis3Pagina,omitempty"`
	SubtotalImpuestoAdicionalPagina *Decimal                   `json:"SubtotalImpuestoAdicionalPagina,omitempty" xml:"SubtotalImpuestoAdicionalPagina,omitempty"`
	SubtotalImpuestoAdicional       *SubtotalImpuestoAdicional `json:"SubtotalImpuestoAdicional,omitempty" xml:"SubtotalImpuestoAdicional,omitempty"`
	MontoSubtotalPagina             *Decimal                   `json:"MontoSubtotalPagina,omitempty" xml:"MontoSubtotalPagina,omitempty"`
	SubtotalMontoNoFacturablePagina *Decimal                   `json:"SubtotalMontoNoFacturablePagina,omitempty" xml:"SubtotalMontoNoFacturablePagina,omitempty"`
}

// SubtotalImpuestoAdicional is DGII's <SubtotalImpuestoAdicional> element, at ECF.Paginacion.Pagina.SubtotalImpuestoAdicional.
type SubtotalImpuestoAdicional struct {
	SubtotalImpuestoSelectivoConsumoEspecificoPagina *Decimal `json:"SubtotalImpuestoSelectivoConsumoEspecificoPagina,omitempty" xml:"SubtotalImpuestoSelectivoConsumoEspecificoPagina,omitempty"`
	SubtotalOtrosImpuesto                            *Decimal `json:"SubtotalOtrosImpuesto,omitempty" xml:"SubtotalOtrosImpuesto,omitempty"`
}

// InformacionReferencia is DGII's <InformacionReferencia> element, at ECF.InformacionReferencia.
type InformacionReferencia struct {
	NCFModificado        string `json:"NCFModificado,omitempty" xml:"NCFModificado,omitempty"`
	RNCOtroContribuyente string `json:"RNCOtroContribuyente,omitempty" xml:"RNCOtroContribuyente,omitempty"`
	FechaNCFModificado   string `json:"FechaNCFModificado,omitempty" xml:"FechaNCFModificado,omitempty"`
	CodigoModificacion   Code   `json:"CodigoModificacion,omitempty" xml:"CodigoModificacion,omitempty"`
	RazonModificacion    string `json:"RazonModificacion,omitempty" xml:"RazonModificacion,omitempty"`
}
