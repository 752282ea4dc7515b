package xmldsig

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
	"github.com/sello-do/sello/internal/xmlchar"
)

// Algorithm identifiers of the profile.
const (
	nsDSig           = "http://www.w3.org/2000/09/xmldsig#"
	algC14N10        = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
	algRSASHA256     = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
	algSHA256        = "http://www.w3.org/2001/04/xmlenc#sha256"
	algEnveloped     = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
	nsXML            = "http://www.w3.org/XML/1998/namespace"
	xmlWhitespaceSet = " \t\r\n"
)

// prepare returns b without its byte order mark, or ErrLimit when it has
// more attributes or namespace declarations than a document of the
// profile (xmlchar.CheckLimits): what every reader of an input does first.
func prepare(b []byte) ([]byte, error) {
	b = xmlchar.TrimBOM(b)
	return b, checkLimits(b)
}

// checkLimits is xmlchar.CheckLimits, whose error is ErrLimit. The fast
// paths check the same limits as they read, and give up over them.
func checkLimits(b []byte) error {
	if err := xmlchar.CheckLimits(b); err != nil {
		return fmt.Errorf("%w: %w", ErrLimit, err)
	}
	return nil
}

// parseDocument parses b, prepared, as one UTF-8 XML document: no
// DOCTYPE, one root element, and outside it only the XML declaration,
// comments and whitespace.
func parseDocument(b []byte) (*etree.Document, error) {
	if bytes.Contains(b, []byte("<!DOCTYPE")) {
		return nil, ErrDoctype
	}
	doc := etree.NewDocument()
	doc.ReadSettings.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") {
			return r, nil
		}
		return nil, fmt.Errorf("encoding %q is not utf-8", charset)
	}
	doc.ReadSettings.PreserveDuplicateAttrs = true // to refuse them below
	if err := doc.ReadFromBytes(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	roots := 0
	for _, t := range doc.Child {
		switch t := t.(type) {
		case *etree.Element:
			roots++
		case *etree.ProcInst:
			if t.Target != "xml" {
				return nil, fmt.Errorf("%w: processing instruction %q outside the root", ErrMalformed, t.Target)
			}
		case *etree.Comment:
		case *etree.CharData:
			if !isWhitespace(t.Data) {
				return nil, fmt.Errorf("%w: text outside the root", ErrMalformed)
			}
		case *etree.Directive:
			return nil, ErrDoctype
		default:
			return nil, fmt.Errorf("%w: unexpected %T outside the root", ErrMalformed, t)
		}
	}
	if roots != 1 {
		return nil, fmt.Errorf("%w: %d root elements", ErrMalformed, roots)
	}
	if err := checkAttrs(doc.Root()); err != nil {
		return nil, err
	}
	return doc, nil
}

// checkAttrs refuses duplicate attributes and namespace declarations XML
// 1.0 forbids (xmlns:p="", xmlns:xmlns, xml bound elsewhere), which
// encoding/xml lets through and other parsers read differently. Its cost
// is linear in the attributes, whatever their number.
func checkAttrs(el *etree.Element) error {
	var seen map[attrName]bool // only for elements with several attributes
	if len(el.Attr) > 1 {
		seen = make(map[attrName]bool, len(el.Attr))
	}
	for _, a := range el.Attr {
		if a.Space == "xmlns" && (a.Value == "" || a.Key == "xmlns" || a.Key == "xml" && a.Value != nsXML) {
			return fmt.Errorf("%w: namespace declaration %s=%q on %s", ErrMalformed, a.FullKey(), a.Value, el.FullTag())
		}
		if seen != nil {
			n := attrName{a.Space, a.Key}
			if seen[n] {
				return fmt.Errorf("%w: duplicate attribute %s on %s", ErrMalformed, a.FullKey(), el.FullTag())
			}
			seen[n] = true
		}
	}
	for _, t := range el.Child {
		if c, ok := t.(*etree.Element); ok {
			if err := checkAttrs(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// attrName is an attribute's name as written: prefix and local name.
type attrName struct{ space, key string }

func isWhitespace(s string) bool {
	return strings.Trim(s, xmlWhitespaceSet) == ""
}

// compact removes whitespace-only text nodes and comments from el and its
// descendants.
func compact(el *etree.Element) {
	n := 0
	for _, t := range el.Child {
		switch t := t.(type) {
		case *etree.CharData:
			if isWhitespace(t.Data) {
				continue
			}
		case *etree.Comment:
			continue
		case *etree.Element:
			compact(t)
		}
		el.Child[n] = t
		n++
	}
	clear(el.Child[n:])
	el.Child = el.Child[:n]
	el.ReindexChildren()
}
