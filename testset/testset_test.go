package testset_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/testset"
)

// describe is err with its details.
func describe(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	var e *sello.Error
	if errors.As(err, &e) {
		for _, d := range e.Details {
			b.WriteString("; " + d.Path + ": " + d.Message)
		}
	}
	return b.String()
}

// workbook builds an .xlsx with the given sheets (name → rows of cells).
func workbook(tb testing.TB, sheets map[string][][]any, order ...string) []byte {
	tb.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range order {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				tb.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			tb.Fatal(err)
		}
		for r, row := range sheets[name] {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(name, cell, &row); err != nil {
				tb.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadWorkbook(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		b := workbook(t, map[string][][]any{
			"Instrucciones": {{"Lea esto"}},
			"ACECF":         {{"CasoPrueba", "RNCEmisor", "ENCF", "Estado"}, {"1", "131880681", "E310000000100", "1"}},
			"e-CF": {
				{"TipoeCF", "ENCF", "MontoTotal", "NombreItem[1]", "TelefonoEmisor[2]"},
				{"31", "E310000000001", 1180.5, "Caja", "#e"},
				{},
				{"32", "E320000000001", "118.00", "Pan", ""},
				{"32", "E320000000002", "300000.00", "Auto", "809-555-0100"},
			},
			"RFCE": {{"TipoeCF", "eNCF", "MontoTotal"}, {"32", "E320000000003", "50.00"}},
		}, "Instrucciones", "ACECF", "e-CF", "RFCE")
		rows, err := testset.ReadWorkbook(bytes.NewReader(b))
		if err != nil {
			t.Fatal(describe(err))
		}
		type short struct {
			sheet string
			n     int
			kind  sello.CertificationKind
			encf  string
		}
		var got []short
		for _, r := range rows {
			got = append(got, short{r.Sheet, r.SheetRow, r.Kind, r.ENCF})
		}
		want := []short{
			{"e-CF", 2, sello.CertificationECF, "E310000000001"},
			{"e-CF", 4, sello.CertificationRFCE, "E320000000001"}, // a 32 under DOP 250,000 goes as its RFCE
			{"e-CF", 5, sello.CertificationECF, "E320000000002"},
			{"RFCE", 2, sello.CertificationRFCE, "E320000000003"},
			{"ACECF", 2, sello.CertificationACECF, "E310000000100"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rows:\n got %v\nwant %v", got, want)
		}
		wantFields := map[string]string{"TipoeCF": "31", "ENCF": "E310000000001", "MontoTotal": "1180.5", "NombreItem[1]": "Caja"}
		if !reflect.DeepEqual(rows[0].Fields, wantFields) {
			t.Fatalf("fields %v; want %v (a number unformatted, #e absent)", rows[0].Fields, wantFields)
		}
	})
	t.Run("ErrDuplicateHeader", func(t *testing.T) {
		b := workbook(t, map[string][][]any{"ECF": {{"TipoeCF", "ENCF", "tipoecf"}, {"31", "E310000000001", "31"}}}, "ECF")
		_, err := testset.ReadWorkbook(bytes.NewReader(b))
		if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !strings.Contains(describe(err), "ECF!C1") || !strings.Contains(describe(err), "A1") {
			t.Fatalf("got %v; want the repeated header's cell named", err)
		}
	})
	t.Run("ErrNoSheet", func(t *testing.T) {
		b := workbook(t, map[string][][]any{"Datos": {{"TipoeCF"}}}, "Datos")
		if _, err := testset.ReadWorkbook(bytes.NewReader(b)); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("got %v; want INVALID_REQUEST", err)
		}
	})
	t.Run("ErrNotWorkbook", func(t *testing.T) {
		if _, err := testset.ReadWorkbook(strings.NewReader("TipoeCF,ENCF\n31,E310000000001\n")); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("got %v; want INVALID_REQUEST", err)
		}
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		if _, err := testset.ReadWorkbook(bytes.NewReader(make([]byte, testset.MaxSize+1))); sello.ErrorCodeOf(err) != sello.CodePayloadTooLarge {
			t.Fatalf("got %v; want PAYLOAD_TOO_LARGE", err)
		}
	})
}

func TestReadJSON(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		rows, err := testset.ReadJSON([]byte(`{"acecf":[{"ENCF":"E310000000100","Estado":1}],"ecf":[{"TipoeCF":"31","ENCF":"E310000000001","MontoTotal":1180.50,"Nota":null,"X":""}]}`))
		if err != nil {
			t.Fatal(describe(err))
		}
		if len(rows) != 2 || rows[0].Kind != sello.CertificationECF || rows[1].Kind != sello.CertificationACECF || rows[0].SheetRow != 1 {
			t.Fatalf("rows %+v", rows)
		}
		if want := map[string]string{"TipoeCF": "31", "ENCF": "E310000000001", "MontoTotal": "1180.50"}; !reflect.DeepEqual(rows[0].Fields, want) {
			t.Fatalf("fields %v; want %v (numbers as written)", rows[0].Fields, want)
		}
	})
	for name, c := range map[string]struct {
		body string
		code sello.ErrorCode
		says string
	}{
		"ErrSyntax":      {`{"ecf":[`, sello.CodeInvalidJSON, ""},
		"ErrTrailing":    {`{} {}`, sello.CodeInvalidJSON, ""},
		"ErrUnknownList": {`{"anecf":[]}`, sello.CodeValidationFailed, "anecf"},
		"ErrValueType":   {`{"ecf":[{"TipoeCF":["31"]}]}`, sello.CodeValidationFailed, "ecf[0].TipoeCF"},
		"ErrEmptyRow":    {`{"rfce":[{}]}`, sello.CodeValidationFailed, "rfce[0]"},
		"ErrNotList":     {`{"ecf":{"TipoeCF":"31"}}`, sello.CodeValidationFailed, "ecf"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := testset.ReadJSON([]byte(c.body))
			if sello.ErrorCodeOf(err) != c.code || !strings.Contains(describe(err), c.says) {
				t.Fatalf("got %v; want %s saying %q", err, c.code, c.says)
			}
		})
	}
}

func TestSheetKind(t *testing.T) {
	for name, want := range map[string]sello.CertificationKind{
		"ECF": sello.CertificationECF, "e-CF": sello.CertificationECF, "Pruebas ECF": sello.CertificationECF,
		"RFCE": sello.CertificationRFCE, "Resumen Factura Consumo": sello.CertificationRFCE,
		"ACECF": sello.CertificationACECF, "Aprobacion Comercial": sello.CertificationACECF,
	} {
		if got, ok := testset.SheetKind(name); !ok || got != want {
			t.Errorf("%q: %q %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := testset.SheetKind("Instrucciones"); ok {
		t.Error("Instrucciones is not a sheet of rows")
	}
}

// FuzzReadJSON: any body reads into rows or a sello.Error, never a panic;
// every row has fields and a known kind.
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"ecf":[{"TipoeCF":"31","ENCF":"E310000000001","MontoTotal":1180.5}],"acecf":[{"Estado":"1"}]}`))
	f.Add([]byte(`{"rfce":[{"TipoeCF":"32","MontoTotal":"100"}]}`))
	f.Add([]byte(`{"ecf":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, err := testset.ReadJSON(body)
		if err != nil {
			var se *sello.Error
			if !errors.As(err, &se) {
				t.Fatalf("not a sello.Error: %v", err)
			}
			return
		}
		for _, r := range rows {
			if len(r.Fields) == 0 || r.SheetRow < 1 {
				t.Fatalf("row %+v", r)
			}
		}
	})
}

// FuzzReadWorkbook: any file reads into rows or a sello.Error, never a
// panic. The corpus starts from the simulator's sample workbook.
func FuzzReadWorkbook(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "dgiisim", "testdata", "set-de-pruebas.xlsx"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, file []byte) {
		rows, err := testset.ReadWorkbook(bytes.NewReader(file))
		if err != nil {
			var se *sello.Error
			if !errors.As(err, &se) {
				t.Fatalf("not a sello.Error: %v", err)
			}
			return
		}
		for _, r := range rows {
			if len(r.Fields) == 0 {
				t.Fatalf("row %+v", r)
			}
		}
	})
}
