package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres/pgtest"
)

const certPath = "/CerteCF/certificacion/pruebas"

// sampleWorkbook is the simulator's sample test set, issued by the demo
// tenant.
func sampleWorkbook(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "dgiisim", "testdata", "set-de-pruebas.xlsx"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// workbookUpload is a multipart/form-data body with the workbook as part
// file, and its Content-Type.
func workbookUpload(tb testing.TB, xlsx []byte) ([]byte, string) {
	tb.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "set-de-pruebas.xlsx")
	if err != nil {
		tb.Fatal(err)
	}
	fw.Write(xlsx)
	if err := mw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// certificationRun is a run as the API reports it.
type certificationRun struct {
	ID     string         `json:"id"`
	State  string         `json:"state"`
	Counts map[string]int `json:"counts"`
	Rows   []struct {
		Index    int    `json:"index"`
		Sheet    string `json:"sheet"`
		SheetRow int    `json:"sheetRow"`
		Kind     string `json:"kind"`
		ENCF     string `json:"encf"`
		State    string `json:"state"`
		TrackID  string `json:"trackId"`
		Error    string `json:"error"`
	} `json:"rows"`
	Failure *struct {
		Row      int    `json:"row"`
		Sheet    string `json:"sheet"`
		SheetRow int    `json:"sheetRow"`
		ENCF     string `json:"encf"`
		Message  string `json:"message"`
		Mensajes []struct {
			Valor string `json:"valor"`
		} `json:"mensajes"`
	} `json:"failure"`
}

func decodeRun(tb testing.TB, r *response) certificationRun {
	tb.Helper()
	var b struct {
		Run certificationRun `json:"run"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		tb.Fatalf("%v: %s", err, r.Body)
	}
	return b.Run
}

// startRun posts a test set and returns the run.
func (s *testServer) startRun(tb testing.TB, key string, body []byte, ctype string) certificationRun {
	tb.Helper()
	r := s.Do(tb, request{Method: "POST", Path: certPath, Key: key, Body: body, Header: map[string]string{"Content-Type": ctype}})
	if r.Status != http.StatusAccepted {
		tb.Fatalf("start: %d %s", r.Status, r.Body)
	}
	return decodeRun(tb, r)
}

// waitRun polls a run until it is over (or cond holds), within 60 s.
func (s *testServer) waitRun(tb testing.TB, key, id string, cond func(certificationRun) bool) certificationRun {
	tb.Helper()
	var run certificationRun
	var r *response
	if !testwait.Within(60*time.Second, 50*time.Millisecond, func() bool {
		r = s.Do(tb, request{Method: "GET", Path: certPath + "/" + id, Key: key})
		if r.Status != http.StatusOK {
			return false
		}
		run = decodeRun(tb, r)
		return cond(run)
	}) {
		tb.Fatalf("run %s: condition not met within 60 s; last %s", id, r.Body)
	}
	return run
}

func over(run certificationRun) bool { return run.State != sello.CertificationRunning }

// sentOnce fails when the simulator received an e-NCF of the demo issuer
// more than once.
func sentOnce(tb testing.TB, sim *dgiisim.Simulator) int {
	tb.Helper()
	seen := map[string]int{}
	for _, snd := range sim.Sends() {
		if snd.Environment == sello.EnvCert && snd.RNCEmisor == demoRNC {
			seen[snd.ENCF]++
		}
	}
	for encf, n := range seen {
		if n != 1 {
			tb.Errorf("%s reached the simulator %d times", encf, n)
		}
	}
	return len(seen)
}

// TestCertificationSample: the simulator's sample workbook, uploaded to a
// demo server, passes against the simulator — 25 e-CF to recepción, 4
// RFCE to recepción FC, 11 ACECF to aprobación comercial, each once — on
// SQLite and PostgreSQL.
func TestCertificationSample(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testCertificationSample(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testCertificationSample(t, "--database-url", pgtest.MustSchema(t)) })
}

func testCertificationSample(t *testing.T, storage ...string) {
	s, sim := mustLifecycleServer(t, storage...)
	key := s.Keys[sello.EnvCert]
	body, ctype := workbookUpload(t, sampleWorkbook(t))
	run := s.startRun(t, key, body, ctype)
	if run.State != "running" || len(run.Rows) != 40 || run.Counts["pending"] != 40 {
		t.Fatalf("started: %s, %d rows, counts %v", run.State, len(run.Rows), run.Counts)
	}
	run = s.waitRun(t, key, run.ID, over)
	if run.State != "passed" || run.Counts["accepted"] != 40 {
		t.Fatalf("run %s, counts %v, failure %+v", run.State, run.Counts, run.Failure)
	}
	kinds := map[string]int{}
	for _, r := range run.Rows {
		kinds[r.Kind]++
		if (r.Kind == "ecf") != (r.TrackID != "") {
			t.Errorf("row %d (%s): trackId %q", r.Index, r.Kind, r.TrackID)
		}
	}
	if kinds["ecf"] != 25 || kinds["rfce"] != 4 || kinds["acecf"] != 11 {
		t.Fatalf("kinds %v", kinds)
	}
	if n := sentOnce(t, sim); n != 29 {
		t.Fatalf("%d e-NCFs reached the simulator; want 29 (25 e-CF, 4 RFCE)", n)
	}
}
