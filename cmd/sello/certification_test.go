package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/dgiisim/certset"
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

// sampleJSON is the sample set as JSON rows, change applied to each row
// first.
func sampleJSON(tb testing.TB, change func(i int, r *sello.CertificationRow)) []byte {
	tb.Helper()
	rows, err := certset.Sample(demoRNC)
	if err != nil {
		tb.Fatal(err)
	}
	set := map[string][]map[string]string{}
	for i, r := range rows {
		if change != nil {
			change(i, r)
		}
		set[string(r.Kind)] = append(set[string(r.Kind)], r.Fields)
	}
	b, err := json.Marshal(set)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestCertificationRejected: a set whose third e-CF the simulator rejects
// (its buyer is the simulator's "MontoTotal does not add up" trigger)
// stops there, naming the row and DGII's message, and sends nothing after
// it; on SQLite and PostgreSQL.
func TestCertificationRejected(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testCertificationRejected(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testCertificationRejected(t, "--database-url", pgtest.MustSchema(t)) })
}

func testCertificationRejected(t *testing.T, storage ...string) {
	s, sim := mustLifecycleServer(t, storage...)
	key := s.Keys[sello.EnvCert]
	body := sampleJSON(t, func(i int, r *sello.CertificationRow) {
		if i == 2 {
			r.Fields["RNCComprador"] = dgiisim.RNCRejectSpent
		}
	})
	run := s.startRun(t, key, body, "application/json")
	run = s.waitRun(t, key, run.ID, over)
	f := run.Failure
	if run.State != "stopped" || f == nil || f.Row != 3 || f.Sheet != "ecf" || f.SheetRow != 3 || f.ENCF != run.Rows[2].ENCF ||
		len(f.Mensajes) != 1 || f.Mensajes[0].Valor != "El valor del campo MontoTotal no corresponde a la sumatoria de los montos del comprobante." {
		t.Fatalf("run %s, failure %+v", run.State, f)
	}
	if run.Rows[2].State != "rejected" || run.Rows[1].State != "accepted" || run.Rows[3].State != "pending" || run.Counts["pending"] != 37 {
		t.Fatalf("rows 2–4: %s %s %s, counts %v", run.Rows[1].State, run.Rows[2].State, run.Rows[3].State, run.Counts)
	}
	if n := sentOnce(t, sim); n != 3 {
		t.Fatalf("%d e-NCFs reached the simulator; want 3 (none after the rejection)", n)
	}
}

// TestCertificationResume: a server stopped in the middle of a run and
// started again on the same storage finishes it, asking DGII before
// sending anything a previous run may have sent: every e-NCF reaches the
// simulator once; on SQLite and PostgreSQL. The second e-CF and the first
// RFCE reach the simulator but their answers are lost (the client's
// timeout): the retries find them at DGII instead of sending them again.
func TestCertificationResume(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testCertificationResume(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testCertificationResume(t, "--database-url", pgtest.MustSchema(t)) })
}

func testCertificationResume(t *testing.T, storage ...string) {
	sim, url := mustSimulator(t)
	args := append([]string{"--dgii-url", url, "--dgii-timeout", "2s"}, storage...)
	s := MustRunServer(t, args...)
	key := s.Keys[sello.EnvCert]
	uncertain := sampleJSON(t, func(i int, r *sello.CertificationRow) {
		if i == 1 || i == 25 {
			r.Fields["RNCComprador"] = dgiisim.RNCTimeoutAfterAccept
		}
	})
	run := s.startRun(t, key, uncertain, "application/json")
	mid := s.waitRun(t, key, run.ID, func(r certificationRun) bool { return r.Counts["accepted"] >= 5 })
	s.Stop(t)
	if over(mid) {
		t.Fatalf("the run ended before the stop: %s", mid.State)
	}
	s = s.Restart(t, args...)
	run = s.waitRun(t, key, run.ID, over)
	if run.State != "passed" {
		t.Fatalf("after the restart: %s, counts %v, failure %+v", run.State, run.Counts, run.Failure)
	}
	if n := sentOnce(t, sim); n != 29 {
		t.Fatalf("%d e-NCFs reached the simulator; want 29", n)
	}
}

// TestCertificationAPI: the printed representations' ZIP, the refusal
// outside CerteCF, scopes, and tenant and environment isolation; on SQLite
// and PostgreSQL.
func TestCertificationAPI(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testCertificationAPI(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testCertificationAPI(t, "--database-url", pgtest.MustSchema(t)) })
}

func testCertificationAPI(t *testing.T, storage ...string) {
	s, _ := mustLifecycleServer(t, storage...)
	key := s.Keys[sello.EnvCert]
	body, ctype := workbookUpload(t, sampleWorkbook(t))
	run := s.waitRun(t, key, s.startRun(t, key, body, ctype).ID, over)
	if run.State != "passed" {
		t.Fatalf("run %s", run.State)
	}
	pdfsPath := certPath + "/" + run.ID + "/representaciones-impresas"

	t.Run("PrintedRepresentations", func(t *testing.T) {
		r := s.Do(t, request{Method: "GET", Path: pdfsPath, Key: key})
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("%d %s", r.Status, r.Header.Get("Content-Type"))
		}
		zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, row := range run.Rows {
			if row.Kind != "acecf" {
				want[row.ENCF+".pdf"] = true
			}
		}
		if len(zr.File) != 29 || len(want) != 29 {
			t.Fatalf("%d files, want 29", len(zr.File))
		}
		pdftotext, _ := exec.LookPath("pdftotext")
		for _, f := range zr.File {
			if !want[f.Name] {
				t.Errorf("unexpected %s", f.Name)
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[max(0, len(b)-32):], []byte("%%EOF")) {
				t.Errorf("%s is not a PDF", f.Name)
				continue
			}
			if pdftotext == "" {
				continue
			}
			file := filepath.Join(t.TempDir(), f.Name)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, file, "-").Output()
			if encf := strings.TrimSuffix(f.Name, ".pdf"); err != nil || !strings.Contains(string(out), encf) {
				t.Errorf("%s: pdftotext %v; the text does not name %s", f.Name, err, encf)
			}
		}
		if pdftotext == "" {
			t.Log("pdftotext not installed: checked the PDFs' header and trailer only")
		}
	})

	t.Run("List", func(t *testing.T) {
		list := func(path, key string) []map[string]any {
			t.Helper()
			r := s.Do(t, request{Method: "GET", Path: path, Key: key})
			var b struct {
				Runs []map[string]any `json:"data"`
			}
			if r.Status != http.StatusOK || json.Unmarshal(r.Body, &b) != nil {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
			return b.Runs
		}
		runs := list(certPath, key)
		if len(runs) == 0 || runs[len(runs)-1]["id"] != run.ID || runs[len(runs)-1]["state"] != "passed" {
			t.Fatalf("runs %v: want the passed run %s, oldest last", runs, run.ID)
		}
		for _, r := range runs {
			if _, ok := r["rows"]; ok {
				t.Fatalf("a listed run carries its rows: %v", r)
			}
		}
		if counts, _ := runs[len(runs)-1]["counts"].(map[string]any); counts["accepted"] != float64(40) {
			t.Errorf("counts %v, want 40 accepted", counts)
		}
		if other := list(certPath, s.BuyerKeys[sello.EnvCert]); len(other) != 0 {
			t.Errorf("the buyer tenant lists %d runs of another tenant", len(other))
		}
		if other := list("/TesteCF/certificacion/pruebas", s.Keys[sello.EnvTest]); len(other) != 0 {
			t.Errorf("TesteCF lists %d runs", len(other))
		}
	})

	t.Run("ErrNotCerteCF", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: "/TesteCF/certificacion/pruebas", Key: s.Keys[sello.EnvTest], Body: sampleJSON(t, nil)})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		if !strings.Contains(e["message"].(string), "only in CerteCF") {
			t.Fatalf("message %q", e["message"])
		}
	})

	t.Run("ErrInsufficientScope", func(t *testing.T) {
		limited := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "CerteCF", "--scopes", "ecf:validate,ecf:create,ecf:read,status:read"))
		for _, req := range []request{
			{Method: "POST", Path: certPath, Key: limited, Body: sampleJSON(t, nil)},
			{Method: "GET", Path: certPath, Key: limited},
			{Method: "GET", Path: certPath + "/" + run.ID, Key: limited},
			{Method: "GET", Path: pdfsPath, Key: limited},
		} {
			wantError(t, s.Do(t, req), http.StatusForbidden, sello.CodeInsufficientScope)
		}
	})

	t.Run("Isolation", func(t *testing.T) {
		buyer := s.BuyerKeys[sello.EnvCert]
		wantError(t, s.Do(t, request{Method: "GET", Path: certPath + "/" + run.ID, Key: buyer}), http.StatusNotFound, sello.CodeNotFound)
		wantError(t, s.Do(t, request{Method: "GET", Path: pdfsPath, Key: buyer}), http.StatusNotFound, sello.CodeNotFound)
		wantError(t, s.Do(t, request{Method: "GET", Path: "/TesteCF/certificacion/pruebas/" + run.ID, Key: s.Keys[sello.EnvTest]}), http.StatusNotFound, sello.CodeNotFound)
		wantError(t, s.Do(t, request{Method: "GET", Path: "/TesteCF/certificacion/pruebas/" + run.ID, Key: key}), http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})

	t.Run("Idempotency", func(t *testing.T) {
		rows, err := certset.Sample(demoRNC)
		if err != nil {
			t.Fatal(err)
		}
		one := rows[0].Fields
		one["ENCF"] = "E310000000077"
		body, _ := json.Marshal(map[string]any{"ecf": []map[string]string{one}})
		hdr := map[string]string{"Idempotency-Key": "cert-77"}
		first := s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: body, Header: hdr})
		again := s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: body, Header: hdr})
		if first.Status != http.StatusAccepted || again.Status != http.StatusAccepted || again.Header.Get("Idempotent-Replayed") != "true" ||
			decodeRun(t, first).ID != decodeRun(t, again).ID {
			t.Fatalf("first %d, again %d %q: %s / %s", first.Status, again.Status, again.Header.Get("Idempotent-Replayed"), first.Body, again.Body)
		}
		one["ENCF"] = "E310000000078"
		other, _ := json.Marshal(map[string]any{"ecf": []map[string]string{one}})
		e := wantError(t, s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: other, Header: hdr}), http.StatusConflict, sello.CodeIdempotencyKeyReused)
		if !strings.Contains(e["message"].(string), decodeRun(t, first).ID) {
			t.Fatalf("message %q does not name the run", e["message"])
		}
		s.waitRun(t, key, decodeRun(t, first).ID, over)
	})

	t.Run("ErrBadUpload", func(t *testing.T) {
		wantError(t, s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: []byte("not a workbook"),
			Header: map[string]string{"Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}}), http.StatusBadRequest, sello.CodeInvalidRequest)
		wantError(t, s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: []byte("x"), Header: map[string]string{"Content-Type": "text/csv"}}),
			http.StatusUnsupportedMediaType, sello.CodeUnsupportedMediaType)
		for body, want := range map[string]string{`{"ecf":[{"TipoeCF":"31","ENCF":"E310000000001"}],"otra":[]}`: "path:otra", `{"ecf":[{"TipoeCF":"31"}]}`: "path:ecf[1]"} {
			e := wantError(t, s.Do(t, request{Method: "POST", Path: certPath, Key: key, Body: []byte(body)}), http.StatusUnprocessableEntity, sello.CodeValidationFailed)
			if d := fmt.Sprint(e["details"]); !strings.Contains(d, want) {
				t.Errorf("%s: details %s do not say %s", body, d, want)
			}
		}
	})
}

// TestCertificationCLIAndAPI: `sello certification run` starts a run the
// server's worker sends and the API reports, and `sello certification
// show` reports a run the API started; the CLI refuses TesteCF as the API
// does. On SQLite and PostgreSQL.
func TestCertificationCLIAndAPI(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testCertificationCLIAndAPI(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testCertificationCLIAndAPI(t, "--database-url", pgtest.MustSchema(t)) })
}

func testCertificationCLIAndAPI(t *testing.T, storage ...string) {
	s, _ := mustLifecycleServer(t, storage...)
	key := s.Keys[sello.EnvCert]
	file := filepath.Join("..", "..", "dgiisim", "testdata", "set-de-pruebas.xlsx")
	out := s.cli(t, "certification", "run", "--tenant", demoRNC, "--file", file)
	id, rest, _ := strings.Cut(strings.TrimSpace(out), " ")
	if rest != "40 rows" {
		t.Fatalf("run: %q", out)
	}
	if run := s.waitRun(t, key, id, over); run.State != "passed" {
		t.Fatalf("the CLI's run: %s %+v", run.State, run.Failure)
	}

	// A one-row set, a number of its own, that the simulator rejects.
	rows, err := certset.Sample(demoRNC)
	if err != nil {
		t.Fatal(err)
	}
	first := rows[0].Fields
	first["ENCF"], first["RNCComprador"] = "E310000000099", dgiisim.RNCRejectSpent
	one, err := json.Marshal(map[string]any{"ecf": []map[string]string{first}})
	if err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(t.TempDir(), "set.json")
	if err := os.WriteFile(jsonFile, one, 0o644); err != nil {
		t.Fatal(err)
	}
	apiRun := s.startRun(t, key, mustRead(t, jsonFile), "application/json")
	s.waitRun(t, key, apiRun.ID, over)
	show := s.cli(t, "certification", "show", "--tenant", demoRNC, "--id", apiRun.ID)
	for _, want := range []string{apiRun.ID + " CerteCF stopped", "rejected", "DGII rejected row 1 (ecf row 1, E310000000099)", "El valor del campo MontoTotal no corresponde"} {
		if !strings.Contains(show, want) {
			t.Errorf("show does not say %q:\n%s", want, show)
		}
	}

	list := s.cli(t, "certification", "list", "--tenant", demoRNC)
	if !strings.Contains(list, apiRun.ID+"  stopped") || strings.Index(list, id+"  passed") < strings.Index(list, apiRun.ID) {
		t.Errorf("list: want the API's run (stopped) before the CLI's (passed), newest first:\n%s", list)
	}

	_, _, err = runCLI(append([]string{"certification", "run", "--tenant", demoRNC, "--env", "TesteCF", "--file", jsonFile}, s.storageArgs...)...)
	if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !strings.Contains(describe(err), "only in CerteCF") {
		t.Fatalf("TesteCF: %v", err)
	}
}

func mustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
