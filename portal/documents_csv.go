package portal

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/sello-do/sello"
)

// The CSV export of the Documentos list (docs/portal.md, "Documentos"):
// the documents the filter selects, newest first, read page after page
// with the list's store query, written as they are read.
//
// - Columns: the API list's fields (the Document schema of GET
//   /{env}/documentos-ecf), named by their JSON path; a nested object's
//   fields each get a column ("dgii.estado", "delivery.status"), a list
//   (dgii.mensajes, commercialApproval.verdicts) is one cell with its JSON.
// - Values: the API's, as its JSON has them (times in UTC, ISO 8601;
//   amounts "1180.00"; true/false), null as an empty cell; except that a
//   text starting with =, +, -, @, a tab or a carriage return gets a ' in
//   front, so that a spreadsheet shows it rather than runs it as a formula
//   (a buyer writes the reason of its commercial rejection).
// - Encoding: UTF-8 with a byte order mark, comma-separated, CRLF line
//   ends: Excel opens it with its accents right (without the mark it reads
//   ANSI), and the es-DO list separator is the comma.
// - Bounded: at most csvMaxRows documents; past them the last line says
//   the export stopped, and to narrow the dates.

// csvMaxRows is the most documents one export writes.
var csvMaxRows = 100_000

// csvColumns are the export's columns: the JSON paths of the API list's
// fields (sello.DocumentResource), in its order.
var csvColumns = []string{
	"id", "type", "encf", "status", "trackId", "securityCode", "signedAt", "qrUrl", "buyerRnc", "total",
	"dgii.codigo", "dgii.estado", "dgii.mensajes", "dgii.secuenciaUtilizada",
	"delivery.status", "delivery.code", "delivery.reason",
	"commercialApproval.status", "commercialApproval.reason", "commercialApproval.buyerRnc",
	"commercialApproval.decidedAt", "commercialApproval.receivedAt",
	"commercialApproval.signer.subject", "commercialApproval.signer.serialNumber", "commercialApproval.signer.issuer",
	"commercialApproval.signer.notBefore", "commercialApproval.signer.notAfter",
	"commercialApproval.signer.fingerprint", "commercialApproval.signer.trusted",
	"commercialApproval.verdicts",
	"failureReason", "contingency", "createdAt", "updatedAt",
}

// utf8BOM is the byte order mark the export starts with.
const utf8BOM = "\uFEFF"

// csvRow is the export's row of a document: each column's value in the
// API's JSON of it.
func csvRow(d *sello.Document) ([]string, error) {
	b, err := json.Marshal(d.Resource())
	if err != nil {
		return nil, err
	}
	row := make([]string, len(csvColumns))
	objects := map[string]map[string]json.RawMessage{}
	for i, col := range csvColumns {
		raw := json.RawMessage(b)
		parent := ""
		for _, name := range strings.Split(col, ".") {
			obj, ok := objects[parent]
			if !ok {
				obj = map[string]json.RawMessage{}
				if string(raw) != "null" {
					if err := json.Unmarshal(raw, &obj); err != nil {
						return nil, fmt.Errorf("column %s: %w", col, err)
					}
				}
				objects[parent] = obj
			}
			raw = obj[name]
			if raw == nil {
				raw = json.RawMessage("null")
			}
			parent += "." + name
		}
		row[i], err = csvCell(raw)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col, err)
		}
	}
	return row, nil
}

// csvCell is a JSON value as a cell: a string's text (see csvText), null
// empty, any other value its JSON.
func csvCell(raw json.RawMessage) (string, error) {
	switch {
	case string(raw) == "null":
		return "", nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return csvText(s), nil
	}
	return string(raw), nil
}

// csvText is a text as a cell: with a ' in front when a spreadsheet would
// take it for a formula (OWASP, CSV injection).
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// handleDocumentsExport writes the filtered list as CSV.
func (s *Server) handleDocumentsExport(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	view := documentsView{Env: env}
	var f sello.DocumentFilter
	view.Query, f, view.Problems = readDocumentsQuery(v, r.URL.Query())
	if len(view.Problems) > 0 {
		s.render(w, r, http.StatusBadRequest, documentsPage(s.layout(r, v, v.T("Documents")), view))
		return nil
	}
	f.Cursor, f.Limit = "", sello.MaxPageSize
	ctx := r.Context()
	// The first page is read before the answer starts, so that a failure
	// there is still an error page.
	docs, next, err := s.Store.ListDocuments(ctx, v.Tenant.ID, env, f)
	if err != nil {
		return err
	}
	name := "documentos-" + string(env) + "-" + s.now().In(sello.DRZone).Format("2006-01-02-1504") + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	buf.WriteString(utf8BOM)
	cw := csv.NewWriter(&buf)
	cw.UseCRLF = true
	cw.Write(csvColumns)
	written := 0
	fail := func(err error) error {
		// The answer has started: the log says why it stopped short.
		s.Logger.LogAttrs(ctx, slog.LevelError, "portal: documents export", slog.String("env", string(env)), slog.Int("written", written), slog.String("err", err.Error()))
		return nil
	}
	for {
		for _, d := range docs {
			if written == csvMaxRows {
				cw.Write([]string{v.T("The export stopped at %d documents; more match the filter. Narrow the dates and export the rest.", csvMaxRows)})
				cw.Flush()
				w.Write(buf.Bytes())
				return nil
			}
			row, err := csvRow(d)
			if err != nil {
				return fail(err)
			}
			cw.Write(row)
			written++
		}
		cw.Flush()
		if _, err := w.Write(buf.Bytes()); err != nil {
			return nil // the browser went away
		}
		http.NewResponseController(w).Flush()
		buf.Reset()
		if next == "" {
			return nil
		}
		f.Cursor = next
		if docs, next, err = s.Store.ListDocuments(ctx, v.Tenant.ID, env, f); err != nil {
			return fail(err)
		}
	}
}
