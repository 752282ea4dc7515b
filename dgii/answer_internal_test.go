package dgii

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestReadAnswer: the body is read whole whatever its Content-Length
// says (none, too small, too large), and cut at maxResponse.
func TestReadAnswer(t *testing.T) {
	body := strings.Repeat("trackId ", 1000)
	for _, cl := range []int64{-1, 0, 5, int64(len(body)), 1 << 30} {
		got, err := readAnswer(&http.Response{ContentLength: cl, Body: io.NopCloser(strings.NewReader(body))})
		if err != nil || string(got) != body {
			t.Errorf("Content-Length %d: read %d bytes, %v; want %d", cl, len(got), err, len(body))
		}
	}
	big := bytes.Repeat([]byte("x"), maxResponse+10)
	got, err := readAnswer(&http.Response{ContentLength: -1, Body: io.NopCloser(bytes.NewReader(big))})
	if err != nil || len(got) != maxResponse {
		t.Errorf("read %d bytes of an answer over the limit, %v; want %d", len(got), err, maxResponse)
	}
}

// BenchmarkParseResult reads consultaresultado's answer, as the simulator
// and DGII send it.
func BenchmarkParseResult(b *testing.B) {
	body := []byte(`{"trackId":"2a3f0b1c-9d8e-4f7a-b6c5-d4e3f2a1b0c9","codigo":1,"estado":"Aceptado","rnc":"130000001","encf":"E310000000001","secuenciaUtilizada":true,"fechaRecepcion":"27/11/2026 10:41:12 AM","mensajes":[{"valor":"","codigo":0}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseResult(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseTimeLayouts: skipping the layouts a date cannot be in changes
// no date read: parseTime reads what trying every layout reads.
func TestParseTimeLayouts(t *testing.T) {
	every := func(s string) time.Time {
		s = strings.TrimSpace(s)
		for _, l := range timeLayouts {
			if t, err := time.ParseInLocation(l, s, sello.DRZone); err == nil {
				return t
			}
		}
		return time.Time{}
	}
	at := time.Date(2026, 11, 7, 9, 4, 5, 120000000, sello.DRZone)
	cases := []string{"", "x", "2026", "11/7/2026", " 11/7/2026 9:04:05 AM ", "11/27/2026 10:41:12 PM", "1/2/2026 13:04:05",
		"27-11-2026 10:41:12", "07-11-2026", "7-11-2026", "2026-11-07", "2026-11-07T09:04:05.12", "2026-11-07 09:04:05.1234567",
		"2026-11-07T09:04:05-04:00", "2026-11-07T13:04:05.5Z", "20261107", "2026/11/07", "-2026-11-07"}
	for _, l := range timeLayouts {
		cases = append(cases, at.Format(l), at.UTC().Format(l))
	}
	for _, s := range cases {
		if got, want := parseTime(s, sello.DRZone), every(s); !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Errorf("parseTime(%q) = %v, want %v", s, got, want)
		}
	}
	if parseTime("11/27/2026 10:41:12 PM", sello.DRZone).IsZero() || parseTime("2026-11-07T13:04:05.5Z", sello.DRZone).IsZero() {
		t.Error("DGII's dates not read")
	}
}
