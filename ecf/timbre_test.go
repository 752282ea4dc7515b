package ecf_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// timbreDoc decodes a document with just what TimbreURL reads.
func timbreDoc(t *testing.T, typ, encf, rncComprador, total string) *ecf.Document {
	t.Helper()
	comprador := ""
	if rncComprador != "" {
		comprador = `,"Comprador":{"RNCComprador":"` + rncComprador + `"}`
	}
	return MustDecode(t, []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"`+typ+`","eNCF":"`+encf+`"},`+
		`"Emisor":{"RNCEmisor":"130000001","FechaEmision":"10-10-2020"}`+comprador+`,"Totales":{"MontoTotal":"`+total+`"}}}}`))
}

func TestTimbreURL(t *testing.T) {
	// 09:00:00 in the DR.
	signed := time.Date(2020, 10, 10, 13, 0, 0, 0, time.UTC)

	t.Run("OfficialECF", func(t *testing.T) {
		// DGII's example (Descripción Técnica, consulta timbre), whose
		// montototal=02.11 is written here as MontoTotal is: 2.11.
		d := timbreDoc(t, "31", "e310000000001", "130000002", "2.11")
		got := ecf.TimbreURL(sello.EnvTest, d, "dcp79q", signed)
		want := "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=130000001&rnccomprador=130000002&encf=e310000000001&fechaemision=10-10-2020&montototal=2.11&fechafirma=10-10-2020%2009:00:00&codigoseguridad=dcp79q"
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("OfficialRFCE", func(t *testing.T) {
		d := MustDecode(t, []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"32","eNCF":"e320000000064"},"Emisor":{"RNCEmisor":"131880738","FechaEmision":"10-10-2020"},"Totales":{"MontoTotal":"6225.09"}}}}`))
		got := ecf.TimbreURL(sello.EnvTest, d, "uabnyh", signed)
		want := "https://fc.dgii.gov.do/testecf/consultatimbrefc?rncemisor=131880738&encf=e320000000064&montototal=6225.09&codigoseguridad=uabnyh"
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("Environments", func(t *testing.T) {
		d := timbreDoc(t, "31", "E310000000001", "130000002", "1180.00")
		for env, prefix := range map[sello.Environment]string{
			sello.EnvTest: "https://ecf.dgii.gov.do/testecf/consultatimbre?",
			sello.EnvCert: "https://ecf.dgii.gov.do/certecf/consultatimbre?",
			sello.EnvProd: "https://ecf.dgii.gov.do/ecf/consultatimbre?",
		} {
			if got := ecf.TimbreURL(env, d, "abcdef", signed); !strings.HasPrefix(got, prefix) {
				t.Errorf("%s: %s", env, got)
			}
		}
		c := timbreDoc(t, "32", "E320000000001", "", "118.00")
		if got := ecf.TimbreURL(sello.EnvProd, c, "abcdef", signed); !strings.HasPrefix(got, "https://fc.dgii.gov.do/ecf/consultatimbrefc?") {
			t.Errorf("RFCE in production: %s", got)
		}
	})
	t.Run("NoRNCComprador", func(t *testing.T) {
		for _, tt := range []struct{ typ, rnc string }{{"43", "130000002"}, {"47", "130000002"}, {"46", ""}} {
			d := timbreDoc(t, tt.typ, "E"+tt.typ+"0000000001", tt.rnc, "100.00")
			if got := ecf.TimbreURL(sello.EnvTest, d, "abcdef", signed); strings.Contains(got, "rnccomprador") {
				t.Errorf("type %s: %s", tt.typ, got)
			}
		}
		// A type 32 from 250,000.00 takes the e-CF form, with its buyer.
		d := timbreDoc(t, "32", "E320000000001", "130000002", "250000.00")
		got := ecf.TimbreURL(sello.EnvTest, d, "abcdef", signed)
		if !strings.HasPrefix(got, "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=130000001&rnccomprador=130000002&") {
			t.Errorf("32 from 250k: %s", got)
		}
	})
	t.Run("Encoding", func(t *testing.T) {
		d := timbreDoc(t, "31", "E310000000001", "130000002", "1180.00")
		got := ecf.TimbreURL(sello.EnvTest, d, "a+b/=-", signed)
		if !strings.HasSuffix(got, "&codigoseguridad=a%2Bb%2F%3D%2D") {
			t.Errorf("security code not percent-encoded: %s", got)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		for k, want := range map[string]string{"codigoseguridad": "a+b/=-", "fechafirma": "10-10-2020 09:00:00", "montototal": "1180.00", "encf": "E310000000001"} {
			if got := q.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
	})
}
