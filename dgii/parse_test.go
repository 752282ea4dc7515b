package dgii

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestParseResult(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name string
		body string
		want Result
	}{
		{
			// The real sample: codigo as a string, "encf", an en-US date,
			// an empty placeholder message.
			name: "Observed",
			body: `{"trackId":"d2b6e27c-3908-46f3-afaa-2207b9501b4b","codigo":"1","estado":"Aceptado","rnc":"130862346","encf":"E310005000201","secuenciaUtilizada":true,"fechaRecepcion":"8/15/2023 6:06:57 AM","mensajes":[{"valor":"","codigo":0}]}`,
			want: Result{TrackID: "d2b6e27c-3908-46f3-afaa-2207b9501b4b", Codigo: 1, Estado: "Aceptado", RNC: "130862346", ENCF: "E310005000201",
				SecuenciaUtilizada: &yes, FechaRecepcion: time.Date(2023, 8, 15, 6, 6, 57, 0, sello.DRZone), FechaRecepcionText: "8/15/2023 6:06:57 AM"},
		},
		{
			name: "Documented",
			body: `{"trackId":"t","codigo":2,"estado":"Rechazado","rnc":"130862346","eNCF":"E310000000001","secuenciaUtilizada":"true","fechaRecepcion":"2023-08-15T06:06:57","mensajes":[{"valor":"Firma inválida","codigo":"11"}]}`,
			want: Result{TrackID: "t", Codigo: 2, Estado: "Rechazado", RNC: "130862346", ENCF: "E310000000001", SecuenciaUtilizada: &yes,
				FechaRecepcion: time.Date(2023, 8, 15, 6, 6, 57, 0, sello.DRZone), FechaRecepcionText: "2023-08-15T06:06:57",
				Mensajes: []sello.DGIIMessage{{Codigo: new(11), Valor: "Firma inválida"}}},
		},
		{
			name: "XML",
			body: `<?xml version="1.0" encoding="UTF-8"?><RespuestaConsultaTrackId><trackId>t</trackId><codigo>4</codigo><estado>Aceptado Condicional</estado><rnc>1</rnc><encf>E310000000001</encf><secuenciaUtilizada>true</secuenciaUtilizada><fechaRecepcion>15-08-2023 06:06:57</fechaRecepcion><mensajes><valor>a</valor><codigo>40</codigo></mensajes><mensajes><valor>b</valor><codigo>41</codigo></mensajes></RespuestaConsultaTrackId>`,
			want: Result{TrackID: "t", Codigo: 4, Estado: "Aceptado Condicional", RNC: "1", ENCF: "E310000000001", SecuenciaUtilizada: &yes,
				FechaRecepcion: time.Date(2023, 8, 15, 6, 6, 57, 0, sello.DRZone), FechaRecepcionText: "15-08-2023 06:06:57",
				Mensajes: []sello.DGIIMessage{{Codigo: new(40), Valor: "a"}, {Codigo: new(41), Valor: "b"}}},
		},
		{
			name: "EstadoWithoutCodigo",
			body: `{"estado":"En Proceso"}`,
			want: Result{Codigo: 3, Estado: "En Proceso"},
		},
		{
			name: "RFCEOneMessageObject",
			body: `{"codigo":1.0,"estado":"Aceptado","mensajes":{"codigo":"","valor":""},"encf":"E320000000001","secuenciaUtilizada":true}`,
			want: Result{Codigo: 1, Estado: "Aceptado", ENCF: "E320000000001", SecuenciaUtilizada: &yes},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResult([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !got.FechaRecepcion.Equal(tc.want.FechaRecepcion) {
				t.Fatalf("FechaRecepcion = %v, want %v", got.FechaRecepcion, tc.want.FechaRecepcion)
			}
			got.FechaRecepcion, tc.want.FechaRecepcion = time.Time{}, time.Time{}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", *got, tc.want)
			}
		})
	}
	for _, body := range []string{"", "null", "[]", `"x"`, `{"estado":"raro"}`, "<!DOCTYPE x><x/>", "<a><b>", "Service Unavailable"} {
		if r, err := parseResult([]byte(body)); err == nil {
			t.Errorf("parseResult(%q) = %+v, want an error", body, r)
		}
	}
}

func TestParseToken(t *testing.T) {
	for _, body := range []string{
		`{"token":"abc","expira":"2026-04-01T13:00:00Z","expedido":"2026-04-01T12:00:00Z"}`,
		`{"Token":"abc","Expira":" 2026-04-01T13:00:00Z ","Expedido":"2026-04-01T12:00:00"}`,
		`<RespuestaAutenticacion><token>abc</token><expira>2026-04-01T13:00:00Z</expira><expedido>2026-04-01T12:00:00Z</expedido></RespuestaAutenticacion>`,
		// .NET's byte order mark before XML or JSON is skipped.
		"\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"utf-8\"?><RespuestaAutenticacion><token>abc</token><expira>2026-04-01T13:00:00Z</expira><expedido>2026-04-01T12:00:00Z</expedido></RespuestaAutenticacion>",
		"\xef\xbb\xbf{\"token\":\"abc\",\"expira\":\"2026-04-01T13:00:00Z\",\"expedido\":\"2026-04-01T12:00:00Z\"}",
	} {
		tok, exp, iss, err := parseToken([]byte(body))
		if err != nil || tok != "abc" || !exp.Equal(time.Date(2026, 4, 1, 13, 0, 0, 0, time.UTC)) || !iss.Equal(time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)) {
			t.Errorf("parseToken(%s) = %q %v %v %v", body, tok, exp, iss, err)
		}
	}
	if _, _, _, err := parseToken([]byte(`{"expira":"2026-04-01T13:00:00Z"}`)); err == nil {
		t.Error("no token: want an error")
	}
}

func TestParseDirectory(t *testing.T) {
	entry := DirectoryEntry{Nombre: "DGII", RNC: "131880681", URLRecepcion: "https://ecf.dgii.gov.do/testecf/emisorreceptor",
		URLAceptacion: "https://ecf.dgii.gov.do/testecf/emisorreceptor", URLOpcional: "https://ecf.dgii.gov.do/Testecf/autenticacion"}
	obj := `{"nombre":"DGII","rnc":"131880681","urlRecepcion":"https://ecf.dgii.gov.do/testecf/emisorreceptor","urlAceptacion":"https://ecf.dgii.gov.do/testecf/emisorreceptor","urlOpcional":"https://ecf.dgii.gov.do/Testecf/autenticacion"}`
	xmlEntry := `<Directorio><nombre>DGII</nombre><rnc>131880681</rnc><urlRecepcion>https://ecf.dgii.gov.do/testecf/emisorreceptor</urlRecepcion><urlAceptacion>https://ecf.dgii.gov.do/testecf/emisorreceptor</urlAceptacion><urlOpcional>https://ecf.dgii.gov.do/Testecf/autenticacion</urlOpcional></Directorio>`
	for name, body := range map[string]string{
		"Array":     "[" + obj + "]",
		"Object":    obj,
		"Wrapped":   `{"data":[` + obj + `]}`,
		"XMLArray":  `<ArrayOfDirectorio>` + xmlEntry + `</ArrayOfDirectorio>`,
		"XMLObject": xmlEntry,
	} {
		got, err := parseDirectory([]byte(body))
		if err != nil || len(got) != 1 || got[0] != entry {
			t.Errorf("%s: parseDirectory = %+v, %v", name, got, err)
		}
	}
	for _, body := range []string{"[]", "{}", "null"} {
		if got, err := parseDirectory([]byte(body)); err != nil || got == nil || len(got) != 0 {
			t.Errorf("parseDirectory(%s) = %#v, %v, want empty", body, got, err)
		}
	}
}

func TestParseTrackIDs(t *testing.T) {
	for name, body := range map[string]string{
		"Array":  `[{"trackId":"a","estado":"Rechazado","fechaRecepcion":"2023-08-15T06:06:57"},{"trackId":"b","estado":"Aceptado","fechaRecepcion":"8/15/2023 6:07:00 AM"}]`,
		"XML":    `<ArrayOfTrackingDetalle><TrackingDetalle><trackId>a</trackId><estado>Rechazado</estado><fechaRecepcion>2023-08-15T06:06:57</fechaRecepcion></TrackingDetalle><TrackingDetalle><trackId>b</trackId><estado>Aceptado</estado><fechaRecepcion>8/15/2023 6:07:00 AM</fechaRecepcion></TrackingDetalle></ArrayOfTrackingDetalle>`,
		"Object": `{"trackId":"a","estado":"Rechazado","fechaRecepcion":"2023-08-15T06:06:57"}`,
	} {
		got, err := parseTrackIDs([]byte(body))
		if err != nil || len(got) == 0 || got[0].TrackID != "a" || got[0].Codigo != CodigoRechazado || got[0].FechaRecepcion.IsZero() {
			t.Errorf("%s: parseTrackIDs = %+v, %v", name, got, err)
		}
		if name != "Object" && (len(got) != 2 || got[1].Codigo != CodigoAceptado || got[1].FechaRecepcion.IsZero()) {
			t.Errorf("%s: parseTrackIDs = %+v", name, got)
		}
	}
	got, err := parseTrackIDs([]byte(`{"trackId":null,"estado":"TrackId no encontrado.","fechaRecepcion":null}`))
	if err != nil || len(got) != 0 {
		t.Errorf("not found: %+v, %v", got, err)
	}
}

func TestParseError(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		codigo     string
		mensajes   []string
	}{
		{"Recepcion", `{"trackId":null,"error":"3243","mensaje":"La longitud del nombre del archivo no es válida"}`, "3243", []string{"La longitud del nombre del archivo no es válida"}},
		{"RecepcionTextError", `{"trackId":null,"error":"Multipart cannot be empty","mensaje":null}`, "", []string{"Multipart cannot be empty"}},
		{"Approval", `{"mensaje":["La firma del XML no es válida"],"estado":"Aprobación comercial rechazada","codigo":"2"}`, "2", []string{"La firma del XML no es válida"}},
		{"Void", `{"rnc":"1","codigo":3,"nombre":"x","mensajes":["a","b"]}`, "3", []string{"a", "b"}},
		{"ProblemDetails", `{"type":"t","title":"One or more validation errors occurred.","status":400,"errors":{"xml":["The xml field is required."],"a":["first"]}}`, "", []string{"One or more validation errors occurred.", "first", "The xml field is required."}},
		{"Messages", `{"codigo":2,"mensajes":[{"codigo":75,"valor":"Número de secuencia no autorizada"}]}`, "2", []string{"Número de secuencia no autorizada"}},
		{"XML", `<Respuesta><codigo>2</codigo><mensajes><codigo>1</codigo><valor>x</valor></mensajes></Respuesta>`, "2", []string{"x"}},
		{"TrackIDs", `{"trackId":null,"estado":"TrackId no encontrado.","fechaRecepcion":null}`, "", []string{"TrackId no encontrado."}},
		{"Text", "Service Unavailable", "", []string{"Service Unavailable"}},
		{"HTML", "<html><body>Bad gateway</body>", "", nil},
		{"Empty", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := parseError(400, []byte(tc.body))
			if e.Status != 400 || e.Codigo != tc.codigo || !reflect.DeepEqual(e.Mensajes, tc.mensajes) || e.Body != tc.body {
				t.Fatalf("parseError = %#v", e)
			}
		})
	}
	long := strings.Repeat("x", 10000)
	if e := parseError(500, []byte(long)); len(e.Body) != maxErrorBody || e.Mensajes != nil {
		t.Fatalf("Body has %d bytes", len(e.Body))
	}
}

func TestParseEstado(t *testing.T) {
	e, err := parseEstado([]byte(`{"codigo":1,"estado":"Aceptado","rncEmisor":"131880681","ncfElectronico":"E310000000001","montoTotal":1180.10,"totalITBIS":180,"fechaEmision":"01-04-2026","fechaFirma":"01-04-2026 08:00:00","rncComprador":null,"codigoSeguridad":"Ab12Cd","idExtranjero":null}`))
	want := Estado{Codigo: 1, Estado: "Aceptado", RNCEmisor: "131880681", ENCF: "E310000000001", MontoTotal: "1180.10", TotalITBIS: "180",
		FechaEmision: "01-04-2026", FechaFirma: "01-04-2026 08:00:00", CodigoSeguridad: "Ab12Cd"}
	if err != nil || *e != want {
		t.Fatalf("parseEstado = %+v, %v", e, err)
	}
}

func TestCompactSeed(t *testing.T) {
	seed := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<SemillaModel xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n  <valor>abc</valor>\n  <fecha>2019-03-13T14:33:32.8617792-04:00</fecha>\n</SemillaModel>"
	got, err := compactSeed([]byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>abc</valor><fecha>2019-03-13T14:33:32.8617792-04:00</fecha></SemillaModel>`
	if string(got) != want {
		t.Fatalf("compactSeed =\n%s\nwant\n%s", got, want)
	}
	// .NET writes a byte order mark first: it is dropped.
	if got, err := compactSeed([]byte("\xef\xbb\xbf" + seed)); err != nil || string(got) != want {
		t.Errorf("compactSeed(BOM+seed) = %s, %v; want %s", got, err, want)
	}
	for _, bad := range []string{`<!DOCTYPE SemillaModel [<!ENTITY x "y">]><SemillaModel/>`, `<Other/>`, `not xml`} {
		if _, err := compactSeed([]byte(bad)); err == nil {
			t.Errorf("compactSeed(%q): want an error", bad)
		}
	}
}
