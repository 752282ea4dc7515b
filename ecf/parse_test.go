package ecf_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// TestParseAnswersEveryProblemAtOnce mixes shape problems (found while
// decoding) with rule violations (found by Check): all come in one error,
// with no detail repeated.
func TestParseAnswersEveryProblemAtOnce(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(MustRead(t, filepath.Join("testdata", "valid", "E31.json")), &m); err != nil {
		t.Fatal(err)
	}
	enc := m["ECF"].(map[string]any)["Encabezado"].(map[string]any)
	enc["Emisor"].(map[string]any)["RazonSocialEmisor"] = ""  // shape: empty
	enc["Emisor"].(map[string]any)["DireccionEmisor"] = 7     // shape: wrong type (and required)
	enc["IdDoc"].(map[string]any)["TipoPago"] = "9"           // rule: enum
	enc["Emisor"].(map[string]any)["RNCEmisor"] = "131880681" // rule: not the tenant
	body, _ := json.Marshal(m)

	_, err := ecf.Parse(body, testIssuance)
	var e *sello.Error
	if !errors.As(err, &e) || e.Code != sello.CodeValidationFailed {
		t.Fatalf("err %v, want VALIDATION_FAILED", err)
	}
	seen := map[string]int{}
	for _, d := range e.Details {
		seen[d.Path]++
	}
	for _, path := range []string{
		"ECF.Encabezado.Emisor.RazonSocialEmisor",
		"ECF.Encabezado.Emisor.DireccionEmisor",
		"ECF.Encabezado.IdDoc.TipoPago",
		"ECF.Encabezado.Emisor.RNCEmisor",
	} {
		if seen[path] != 1 {
			t.Errorf("%d details at %s, want 1; details: %+v", seen[path], path, e.Details)
		}
	}
	if len(e.Details) != 4 {
		t.Errorf("%d details, want 4: %+v", len(e.Details), e.Details)
	}
}

func TestParseOK(t *testing.T) {
	d, err := ecf.Parse(MustRead(t, filepath.Join("testdata", "valid", "E31.json")), testIssuance)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total() == "" {
		t.Fatal("Parse did not fill the totals")
	}
	if _, err := ecf.Parse([]byte(`{"ECF":`), ecf.Issuance{}); sello.ErrorCodeOf(err) != sello.CodeInvalidJSON {
		t.Fatalf("malformed JSON: %v", err)
	}
}
