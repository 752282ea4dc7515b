// Package testset reads DGII's certification test set (FACTS §5.2): the
// workbook DGII publishes for a taxpayer's certification (.xlsx, read with
// excelize) or the same rows as JSON, into the rows of a
// sello.CertificationRun; and writes such a workbook (the simulator's
// sample set).
//
// The workbook has a sheet per kind of document: the e-CFs (a sheet whose
// name says ECF), the consumer-invoice summaries (RFCE) and the commercial
// approvals (ACECF, or a name saying Aprobacion). The first row of each is
// the header: DGII's XML element names, with [n] per repeated ancestor
// (NombreItem[1], TipoCodigo[1][2]); every other non-empty row is one
// document. An empty cell, or DGII's "#e", is an absent element. Cells are
// read as stored (numbers unformatted), so dates must be text dd-MM-yyyy,
// as DGII writes them.
//
// The JSON form is {"ecf":[{header: value…}], "rfce":[…], "acecf":[…]}:
// values are strings or numbers (numbers are kept as written), null or ""
// is absent.
//
// Rows are sent e-CF sheet first, then RFCE, then ACECF, each in sheet
// order. An e-CF sheet row of type 32 under DOP 250,000 is sent as its
// RFCE (DGII's recepción refuses it whole).
package testset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/sello-do/sello"
)

// MaxSize bounds a workbook or JSON test set, in bytes.
const MaxSize = 10 << 20

// MaxUnzipped bounds what a workbook may unzip to, in bytes (a zip bomb
// is refused, not inflated).
const MaxUnzipped = 64 << 20

// MaxColumns bounds the columns of a sheet (DGII's widest sheet has a few
// hundred).
const MaxColumns = 5000

// Sheet names the workbook writer uses, by kind.
var sheetNames = map[sello.CertificationKind]string{
	sello.CertificationECF:   "ECF",
	sello.CertificationRFCE:  "RFCE",
	sello.CertificationACECF: "ACECF",
}

// emptyMarker is DGII's way of writing an empty cell in its sets.
const emptyMarker = "#e"

// consumoLimit is DOP 250,000.00: a type 32 under it goes as an RFCE.
var consumoLimit = decimal.NewFromInt(250_000)

// SheetKind returns the kind of the rows of a sheet by its name: ACECF or
// Aprobacion → acecf, RFCE or Resumen → rfce, ECF → ecf; false for a
// sheet of none (ignored: notes, instructions).
func SheetKind(name string) (sello.CertificationKind, bool) {
	n := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(name, "-", ""), " ", ""))
	switch {
	case strings.Contains(n, "acecf") || strings.Contains(n, "aprobacion"):
		return sello.CertificationACECF, true
	case strings.Contains(n, "rfce") || strings.Contains(n, "resumen"):
		return sello.CertificationRFCE, true
	case strings.Contains(n, "ecf"):
		return sello.CertificationECF, true
	}
	return "", false
}

// ReadWorkbook reads DGII's .xlsx test set. Returns PAYLOAD_TOO_LARGE
// above MaxSize, INVALID_REQUEST when the file is not a workbook or has no
// sheet of e-CF, RFCE or ACECF, and VALIDATION_FAILED naming the sheet,
// row and column of a malformed header or a duplicate one.
func ReadWorkbook(r io.Reader) ([]*sello.CertificationRow, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read workbook: %w", err)
	} else if len(b) > MaxSize {
		return nil, sello.Errorf(sello.CodePayloadTooLarge, "The workbook has more than %d bytes.", MaxSize)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b), excelize.Options{UnzipSizeLimit: MaxUnzipped, UnzipXMLSizeLimit: MaxUnzipped})
	if err != nil {
		return nil, sello.Errorf(sello.CodeInvalidRequest, "The file is not an Excel workbook (.xlsx) of at most %d MiB unzipped: give DGII's test set as published, or its rows as JSON.", MaxUnzipped>>20).WithErr(err)
	}
	defer f.Close()
	sheets := map[sello.CertificationKind][][]string{}
	names := map[sello.CertificationKind]string{}
	for _, name := range f.GetSheetList() {
		k, ok := SheetKind(name)
		if !ok {
			continue
		}
		if prev, dup := names[k]; dup {
			return nil, sello.Errorf(sello.CodeInvalidRequest, "Sheets %q and %q both hold %s rows: keep one.", prev, name, k)
		}
		rows, err := f.GetRows(name, excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, sello.Errorf(sello.CodeInvalidRequest, "Sheet %q cannot be read.", name).WithErr(err)
		}
		sheets[k], names[k] = rows, name
	}
	if len(sheets) == 0 {
		return nil, sello.Errorf(sello.CodeInvalidRequest, "The workbook has no sheet of e-CF, RFCE or ACECF rows (sheet names saying ECF, RFCE or ACECF).")
	}
	var p sello.Problems
	var out []*sello.CertificationRow
	for _, k := range sello.CertificationKinds {
		grid, ok := sheets[k]
		if !ok || len(grid) == 0 {
			continue
		}
		sheet := names[k]
		header := grid[0]
		if len(header) > MaxColumns {
			return nil, sello.Errorf(sello.CodeInvalidRequest, "Sheet %q has %d columns; at most %d are read.", sheet, len(header), MaxColumns)
		}
		cols := map[string]int{}
		for i, h := range header {
			h = strings.TrimSpace(h)
			if h == "" {
				continue
			}
			cell, _ := excelize.CoordinatesToCellName(i+1, 1)
			if j, dup := cols[strings.ToLower(h)]; dup {
				first, _ := excelize.CoordinatesToCellName(j+1, 1)
				p.Addf(fmt.Sprintf("%s!%s", sheet, cell), "Header %q repeats %s.", h, first)
			}
			cols[strings.ToLower(h)] = i
		}
		for n, cells := range grid[1:] {
			fields := map[string]string{}
			for i, v := range cells {
				if i >= len(header) {
					break
				}
				h := strings.TrimSpace(header[i])
				if v = strings.TrimSpace(v); h == "" || v == "" || strings.EqualFold(v, emptyMarker) {
					continue
				}
				fields[h] = v
			}
			if len(fields) == 0 {
				continue
			}
			out = append(out, newRow(sheet, n+2, k, fields))
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadJSON reads the test set's rows as JSON (see the package doc).
// Returns PAYLOAD_TOO_LARGE above MaxSize, INVALID_JSON for malformed
// JSON, and VALIDATION_FAILED with a detail per unknown list or value that
// is not a string or a number.
func ReadJSON(body []byte) ([]*sello.CertificationRow, error) {
	if len(body) > MaxSize {
		return nil, sello.Errorf(sello.CodePayloadTooLarge, "The test set has more than %d bytes.", MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var set map[string]json.RawMessage
	if err := dec.Decode(&set); err != nil {
		return nil, sello.Errorf(sello.CodeInvalidJSON, "The test set must be a JSON object {\"ecf\":[…],\"rfce\":[…],\"acecf\":[…]}: %s.", err.Error()).WithErr(err)
	} else if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON: unexpected data after the test set.")
	}
	var p sello.Problems
	for _, k := range sortedKeys(set) {
		switch sello.CertificationKind(k) {
		case sello.CertificationECF, sello.CertificationRFCE, sello.CertificationACECF:
		default:
			p.Add(k, "Unknown list: the test set has ecf, rfce and acecf.")
		}
	}
	var out []*sello.CertificationRow
	for _, k := range sello.CertificationKinds {
		raw, ok := set[string(k)]
		if !ok || string(raw) == "null" {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var rows []map[string]any
		if err := d.Decode(&rows); err != nil {
			p.Add(string(k), "Must be a list of rows, each an object of header → value.")
			continue
		}
		for n, row := range rows {
			fields := map[string]string{}
			for _, h := range sortedKeys(row) {
				path := fmt.Sprintf("%s[%d].%s", k, n, h)
				switch v := row[h].(type) {
				case nil:
				case string:
					if v = strings.TrimSpace(v); v != "" && !strings.EqualFold(v, emptyMarker) {
						fields[strings.TrimSpace(h)] = v
					}
				case json.Number:
					fields[strings.TrimSpace(h)] = v.String()
				default:
					p.Add(path, "Must be a string or a number.")
				}
			}
			if len(fields) == 0 {
				p.Add(fmt.Sprintf("%s[%d]", k, n), "The row is empty.")
				continue
			}
			out = append(out, newRow(string(k), n+1, k, fields))
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// newRow is row n of sheet, of kind k unless it is a type 32 under DOP
// 250,000 in an e-CF sheet, which goes as an RFCE.
func newRow(sheet string, n int, k sello.CertificationKind, fields map[string]string) *sello.CertificationRow {
	r := &sello.CertificationRow{Sheet: sheet, SheetRow: n, Kind: k, Fields: fields}
	for h, v := range fields {
		if strings.EqualFold(h, "eNCF") {
			r.ENCF = v
		}
	}
	if k == sello.CertificationECF && fields["TipoeCF"] == string(sello.TypeConsumo) {
		if m, err := decimal.NewFromString(fields["MontoTotal"]); err == nil && m.LessThan(consumoLimit) {
			r.Kind = sello.CertificationRFCE
		}
	}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Write writes rows as DGII's workbook: a sheet per kind (ECF, RFCE,
// ACECF), the header the union of the rows' headers in the order first
// seen (ordered by order, when given, for the headers it lists), every
// cell text.
func Write(w io.Writer, rows []*sello.CertificationRow, order func(a, b string) int) error {
	f := excelize.NewFile()
	defer f.Close()
	first := true
	for _, k := range sello.CertificationKinds {
		var headers []string
		seen := map[string]bool{}
		var mine []*sello.CertificationRow
		for _, r := range rows {
			if r.Kind != k {
				continue
			}
			mine = append(mine, r)
			for _, h := range sortedKeys(r.Fields) {
				if !seen[h] {
					seen[h] = true
					headers = append(headers, h)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		if order != nil {
			sort.SliceStable(headers, func(i, j int) bool { return order(headers[i], headers[j]) < 0 })
		}
		name := sheetNames[k]
		if first {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				return err
			}
			first = false
		} else if _, err := f.NewSheet(name); err != nil {
			return err
		}
		sw, err := f.NewStreamWriter(name)
		if err != nil {
			return err
		}
		row := make([]any, len(headers))
		for i, h := range headers {
			row[i] = h
		}
		if err := sw.SetRow("A1", row); err != nil {
			return err
		}
		for n, r := range mine {
			row := make([]any, len(headers))
			for i, h := range headers {
				row[i] = r.Fields[h]
			}
			cell, _ := excelize.CoordinatesToCellName(1, n+2)
			if err := sw.SetRow(cell, row); err != nil {
				return err
			}
		}
		if err := sw.Flush(); err != nil {
			return err
		}
	}
	return f.Write(w)
}
