package spell

import "testing"

func TestClosest(t *testing.T) {
	comprador := []string{"RNCComprador", "IdentificadorExtranjero", "RazonSocialComprador", "ContactoComprador", "CorreoComprador"}
	for _, tt := range []struct {
		name, in string
		known    []string
		want     string
	}{
		{"OKCase", "rnccomprador", comprador, "RNCComprador"},
		{"OKDeleted", "RNCCompradr", comprador, "RNCComprador"},
		{"OKInserted", "RNCCompradorr", comprador, "RNCComprador"},
		{"OKSwapped", "RNCCompardor", comprador, "RNCComprador"},
		{"OKTwoEdits", "RNCComprado", comprador, "RNCComprador"},
		{"OKTwoEditsAndCase", "rncCompadr", comprador, "RNCComprador"},
		{"OKShort", "encf", []string{"encfs"}, "encfs"},
		{"OKShortSwap", "form", []string{"from", "to", "type"}, "from"},
		{"OKFirstOfEquals", "tipe", []string{"type", "tape"}, "type"},
		{"OKClosestWins", "RNCComprado", []string{"RNCCompra", "RNCComprador"}, "RNCComprador"},
		{"ErrThreeEdits", "RNCCompr", comprador, ""},
		{"ErrShortTwoEdits", "to", []string{"id"}, ""},
		{"ErrShortTwoEditsLonger", "tipo", []string{"type"}, ""},
		{"ErrNothingKnown", "x", nil, ""},
		{"ErrEmpty", "", []string{"from", "to"}, ""},
		{"OKUnicode", "Descripción", []string{"Descripcion"}, "Descripcion"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.in, tt.known); got != tt.want {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0},
		{"abc", "acb", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := distance([]rune(tt.a), []rune(tt.b)); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func BenchmarkClosest(b *testing.B) {
	known := []string{"RNCComprador", "IdentificadorExtranjero", "RazonSocialComprador", "ContactoComprador", "CorreoComprador", "DireccionComprador", "MunicipioComprador", "ProvinciaComprador", "FechaEntrega", "ContactoEntrega", "DireccionEntrega", "TelefonoAdicional", "FechaOrdenCompra", "NumeroOrdenCompra", "CodigoInternoComprador", "ResponsablePago", "InformacionAdicionalComprador"}
	for b.Loop() {
		Closest("RNCCompradr", known)
	}
}
