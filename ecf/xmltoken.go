package ecf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sello-do/sello/internal/xmlchar"
)

// The package's XML readers (ParseECFHeader, ParseACECF, ParseARECF,
// ParseSemilla, ECFIdentity, ReadXML, ReadReceivedECF) read tokens: start
// and end elements and text, as encoding/xml's Decoder.Token gives them
// (names translated to their namespaces), comments and the XML
// declaration left out. One pass over a document can feed several readers
// (tokenReader), each stopping at its own first error as if it read alone.
//
// The tokens come from a one-pass tokenizer over the bytes (fastTokens)
// for what Sello and most senders write: ASCII names, attribute values
// without references or line ends, text with the predefined and character
// references, comments, a plain XML declaration. On anything else (CDATA,
// processing instructions, a DOCTYPE, non-ASCII names, anything malformed)
// it gives up, and the readers read the document again from the start
// with encoding/xml, whose answer, errors included, is the one returned:
// the fast tokenizer yields exactly encoding/xml's tokens, or gives up
// (FuzzTokens checks it). It allocates little: text is a slice of the
// input unless it holds references, and the element names of DGII's
// documents are not copied.

// xmlTokenKind is what an xmlToken is.
type xmlTokenKind int

const (
	tokStart xmlTokenKind = iota + 1
	tokEnd
	tokText
)

// xmlToken is a token as the readers see it. Its slices are valid until
// the next token.
type xmlToken struct {
	kind  xmlTokenKind
	name  xml.Name   // tokStart
	attrs []xml.Attr // tokStart
	text  []byte     // tokText
	// at is where text starts in the document read when it is a slice of
	// it (no reference decoded), else -1.
	at int
}

// tokenReader reads a document token by token. An error from token or end
// is the reader's answer: it gets no more tokens.
type tokenReader interface {
	// reset makes the reader ready to read a document from its start.
	reset()
	token(t *xmlToken) error
	// end is called after the document's last token.
	end() error
}

// errGiveUp is the fast tokenizer's: the document is outside what it
// reads.
var errGiveUp = errors.New("outside the fast tokenizer")

// readTokens reads data once for every reader and returns their answers,
// in order. A UTF-8 byte order mark is skipped. A document over xmlchar's
// limits (attributes per element, namespace declarations) is refused where
// the fast tokenizer meets the element over them, or before encoding/xml
// reads anything: every reader's answer is then bad's error, as it is for a
// document that is not well-formed XML, in UTF-8 and without a DOCTYPE.
func readTokens(data []byte, bad func(format string, args ...any) error, readers ...tokenReader) []error {
	errs := make([]error, len(readers))
	data = xmlchar.TrimBOM(data)
	if feed(newFastTokens(data).next, readers, errs) != errGiveUp {
		return errs
	}
	if err := xmlchar.CheckLimits(data); err != nil {
		for i := range errs {
			errs[i] = bad("%v", err)
		}
		return errs
	}
	clear(errs)
	for _, r := range readers {
		r.reset()
	}
	feed(strictTokens(data, bad), readers, errs)
	return errs
}

// feed reads the tokens of next into the readers whose errs is nil,
// recording their answers, until they all have one. It returns errGiveUp
// when next does.
func feed(next func(*xmlToken) error, readers []tokenReader, errs []error) error {
	var t xmlToken
	reading := len(readers)
	for reading > 0 {
		err := next(&t)
		if err == errGiveUp {
			return err
		}
		for i, r := range readers {
			if errs[i] != nil {
				continue
			}
			switch {
			case err == io.EOF:
				errs[i] = r.end()
				if errs[i] == nil {
					errs[i] = io.EOF // read to the end
				}
			case err != nil:
				errs[i] = err
			default:
				errs[i] = r.token(&t)
			}
			if errs[i] != nil {
				reading--
			}
		}
	}
	for i := range errs {
		if errs[i] == io.EOF {
			errs[i] = nil
		}
	}
	return nil
}

// xmlTokens returns encoding/xml's tokens of data: strict, UTF-8 only,
// and refusing DOCTYPEs and other directives (so no entity is ever
// defined). Its errors are bad's, or io.EOF at the end.
func xmlTokens(data []byte, bad func(format string, args ...any) error) func() (xml.Token, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = func(label string, _ io.Reader) (io.Reader, error) {
		return nil, fmt.Errorf("the encoding must be UTF-8, not %q", label)
	}
	return func() (xml.Token, error) {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil, err
		} else if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, bad("line %d: %s", se.Line, se.Msg)
			}
			return nil, bad("%v", err)
		}
		if _, ok := tok.(xml.Directive); ok {
			return nil, bad("DOCTYPE and other declarations are not accepted")
		}
		return tok, nil
	}
}

// strictTokens returns xmlTokens' elements and text as the readers'
// tokens.
func strictTokens(data []byte, bad func(format string, args ...any) error) func(*xmlToken) error {
	next := xmlTokens(data, bad)
	return func(t *xmlToken) error {
		for {
			tok, err := next()
			if err != nil {
				return err
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				*t = xmlToken{kind: tokStart, name: tok.Name, attrs: tok.Attr}
				return nil
			case xml.EndElement:
				*t = xmlToken{kind: tokEnd}
				return nil
			case xml.CharData:
				*t = xmlToken{kind: tokText, text: tok, at: -1}
				return nil
			}
		}
	}
}

// fastTokens is the one-pass tokenizer.
type fastTokens struct {
	in       []byte
	pos      int
	open     [][]byte // the names of the open elements, as written
	scopes   []int    // len(ns) when each open element started
	ns       []nsDecl // namespace declarations in scope, innermost last
	declared int      // namespace declarations read: over xmlchar.MaxNamespaces, CheckLimits reports it
	attrs    []xml.Attr
	text     []byte     // decoded text with references
	closing  bool       // the end of an empty element is next
	names    [64]string // intern's cache
}

// nsDecl binds prefix ("" for the default namespace) to uri.
type nsDecl struct{ prefix, uri string }

// newFastTokens returns the tokenizer of in, which must be valid UTF-8
// and hold only characters XML allows (else it gives up at once).
func newFastTokens(in []byte) *fastTokens {
	s := &fastTokens{in: in}
	if !utf8.Valid(in) || bytes.Contains(in, []byte("\uFFFE")) || bytes.Contains(in, []byte("\uFFFF")) {
		s.pos = -1
		return s
	}
	for _, decl := range []string{
		`<?xml version="1.0" encoding="utf-8"?>`, `<?xml version="1.0" encoding="UTF-8"?>`, `<?xml version="1.0"?>`,
	} {
		if bytes.HasPrefix(in, []byte(decl)) {
			s.pos = len(decl)
			break
		}
	}
	return s
}

// next reads the next token into t: io.EOF at the end, errGiveUp for
// anything outside what the tokenizer reads, malformed input included.
func (s *fastTokens) next(t *xmlToken) error {
	if s.pos < 0 {
		return errGiveUp
	}
	if s.closing {
		s.closing = false
		s.pop()
		*t = xmlToken{kind: tokEnd}
		return nil
	}
	for {
		if s.pos >= len(s.in) {
			if len(s.open) > 0 {
				return errGiveUp // encoding/xml's "unexpected EOF"
			}
			return io.EOF
		}
		rest := s.in[s.pos:]
		switch {
		case rest[0] != '<':
			return s.readText(t)
		case bytes.HasPrefix(rest, []byte("</")):
			return s.endTag(t)
		case bytes.HasPrefix(rest, []byte("<!--")):
			// The first "--" must end the comment.
			end := bytes.Index(rest[4:], []byte("--"))
			if end < 0 || 4+end+2 >= len(rest) || rest[4+end+2] != '>' {
				return errGiveUp
			}
			s.pos += 4 + end + 3
		case len(rest) > 1 && (rest[1] == '!' || rest[1] == '?'):
			return errGiveUp // CDATA, a DOCTYPE, a processing instruction
		default:
			return s.startTag(t)
		}
	}
}

// readText reads the text up to the next '<' or the end.
func (s *fastTokens) readText(t *xmlToken) error {
	start := s.pos
	s.text = s.text[:0]
	decoded := false // s.text holds the text so far
	last := start    // the first byte not yet copied to s.text
	for ; s.pos < len(s.in); s.pos++ {
		switch c := s.in[s.pos]; {
		case c == '<':
			goto done
		case c == '&':
			r, n := xmlchar.Entity(s.in[s.pos:])
			if n == 0 {
				return errGiveUp
			}
			s.text = append(s.text, s.in[last:s.pos]...)
			s.text = utf8.AppendRune(s.text, r)
			decoded = true
			s.pos += n - 1
			last = s.pos + 1
		case c == '>':
			if s.pos-start >= 2 && s.in[s.pos-1] == ']' && s.in[s.pos-2] == ']' {
				return errGiveUp // "]]>" in text
			}
		case c == '\r': // line ends would need normalizing
			return errGiveUp
		case c < 0x20 && c != '\t' && c != '\n':
			return errGiveUp
		}
	}
done:
	if decoded {
		s.text = append(s.text, s.in[last:s.pos]...)
		*t = xmlToken{kind: tokText, text: s.text, at: -1}
	} else {
		*t = xmlToken{kind: tokText, text: s.in[start:s.pos], at: start}
	}
	return nil
}

// endTag reads an end tag, which must close the innermost open element.
func (s *fastTokens) endTag(t *xmlToken) error {
	s.pos += 2
	n := xmlchar.NameLen(s.in[s.pos:])
	if n == 0 || len(s.open) == 0 || !bytes.Equal(s.in[s.pos:s.pos+n], s.open[len(s.open)-1]) {
		return errGiveUp
	}
	s.pos += n
	s.space()
	if s.pos >= len(s.in) || s.in[s.pos] != '>' {
		return errGiveUp
	}
	s.pos++
	s.pop()
	*t = xmlToken{kind: tokEnd}
	return nil
}

// pop closes the innermost open element.
func (s *fastTokens) pop() {
	s.ns = s.ns[:s.scopes[len(s.scopes)-1]]
	s.scopes = s.scopes[:len(s.scopes)-1]
	s.open = s.open[:len(s.open)-1]
}

// space skips whitespace and reports whether there was any.
func (s *fastTokens) space() bool {
	n := xmlchar.SpaceLen(s.in[s.pos:])
	s.pos += n
	return n > 0
}

// name reads a name (xmlchar.NameLen) followed by whitespace or one of
// ends, or returns nil.
func (s *fastTokens) name(ends string) []byte {
	n := xmlchar.NameLen(s.in[s.pos:])
	if n == 0 || s.pos+n >= len(s.in) {
		return nil
	}
	if c := s.in[s.pos+n]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && strings.IndexByte(ends, c) < 0 {
		return nil
	}
	s.pos += n
	return s.in[s.pos-n : s.pos]
}

// startTag reads a start tag: its namespace declarations come into scope
// and its names are translated, as encoding/xml's Decoder.Token does.
func (s *fastTokens) startTag(t *xmlToken) error {
	s.pos++
	raw := s.name("/>")
	if raw == nil {
		return errGiveUp
	}
	s.scopes = append(s.scopes, len(s.ns))
	s.open = append(s.open, raw)
	attrs := s.attrs[:0]
	count := 0 // attributes: over xmlchar.MaxAttrs, CheckLimits reports it
	for {
		sp := s.space()
		if s.pos >= len(s.in) {
			return errGiveUp
		}
		if c := s.in[s.pos]; c == '>' || c == '/' {
			if c == '/' {
				if s.pos+1 >= len(s.in) || s.in[s.pos+1] != '>' {
					return errGiveUp
				}
				s.pos++
				s.closing = true
			}
			s.pos++
			break
		}
		an := s.name("=")
		if !sp || an == nil {
			return errGiveUp
		}
		if count++; count > xmlchar.MaxAttrs {
			return errGiveUp
		}
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != '=' {
			return errGiveUp
		}
		s.pos++
		s.space()
		value, ok := s.attrValue()
		if !ok {
			return errGiveUp
		}
		a := xml.Attr{Name: s.splitName(an), Value: value}
		attrs = append(attrs, a)
		switch {
		case a.Name.Space == "xmlns":
			s.ns = append(s.ns, nsDecl{a.Name.Local, value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			s.ns = append(s.ns, nsDecl{"", value})
		default:
			continue
		}
		if s.declared++; s.declared > xmlchar.MaxNamespaces {
			return errGiveUp
		}
	}
	s.attrs = attrs
	name := s.splitName(raw)
	s.translate(&name, true)
	for i := range attrs {
		s.translate(&attrs[i].Name, false)
	}
	*t = xmlToken{kind: tokStart, name: name, attrs: attrs}
	return nil
}

// attrValue reads a quoted attribute value without references, '<' or
// line ends to normalize.
func (s *fastTokens) attrValue() (string, bool) {
	if s.pos >= len(s.in) || s.in[s.pos] != '"' && s.in[s.pos] != '\'' {
		return "", false
	}
	q := s.in[s.pos]
	end := bytes.IndexByte(s.in[s.pos+1:], q)
	if end < 0 {
		return "", false
	}
	raw := s.in[s.pos+1 : s.pos+1+end]
	for _, c := range raw {
		if c == '<' || c == '&' || c < 0x20 && c != '\t' && c != '\n' {
			return "", false
		}
	}
	s.pos += 1 + end + 1
	return string(raw), true
}

// translate is encoding/xml's Decoder.translate: n's prefix becomes the
// namespace it is bound to; an unprefixed element takes the default
// namespace, an unprefixed attribute none; an unbound prefix stays.
func (s *fastTokens) translate(n *xml.Name, element bool) {
	switch {
	case n.Space == "xmlns":
		return
	case n.Space == "" && !element:
		return
	case n.Space == "xml":
		n.Space = "http://www.w3.org/XML/1998/namespace"
		return
	case n.Space == "" && n.Local == "xmlns":
		return
	}
	for i := len(s.ns) - 1; i >= 0; i-- {
		if s.ns[i].prefix == n.Space {
			n.Space = s.ns[i].uri
			return
		}
	}
}

// splitName is a name (xmlchar.NameLen's: at most one colon, between
// non-empty parts) as encoding/xml reads it, the element names of DGII's
// documents not copied.
func (s *fastTokens) splitName(raw []byte) xml.Name {
	if i := bytes.IndexByte(raw, ':'); i >= 0 {
		return xml.Name{Space: string(raw[:i]), Local: s.intern(raw[i+1:])}
	}
	return xml.Name{Local: s.intern(raw)}
}

// intern returns name as a string, without allocating for the element
// names of DGII's documents. The names met last are kept by length and
// last letter, which tells an e-CF's apart: most are found there without
// hashing.
func (s *fastTokens) intern(name []byte) string {
	slot := &s.names[(len(name)*31+int(name[len(name)-1]))%len(s.names)]
	if *slot == string(name) {
		return *slot
	}
	str, ok := knownNames[string(name)]
	if !ok {
		str = string(name)
	}
	*slot = str
	return str
}

// knownNames holds the element names of the documents the package reads.
var knownNames = func() map[string]string {
	m := map[string]string{}
	var walk func(p *xmlPlan)
	walk = func(p *xmlPlan) {
		for _, f := range p.fields {
			m[f.name] = f.name
			if f.plan != nil {
				walk(f.plan)
			}
		}
	}
	walk(ecfPlan)
	for _, n := range []string{
		"ECF", "ACECF", "ARECF", "SemillaModel", "valor", "fecha", "xmlns",
		"DetalleAprobacionComercial", "DetalleAcusedeRecibo", "Version", "RNCEmisor", "eNCF", "FechaEmision",
		"MontoTotal", "RNCComprador", "Estado", "DetalleMotivoRechazo", "FechaHoraAprobacionComercial",
		"CodigoMotivoNoRecibido", "FechaHoraAcuseRecibo",
		"Signature", "SignedInfo", "CanonicalizationMethod", "SignatureMethod", "Reference", "Transforms",
		"Transform", "DigestMethod", "DigestValue", "SignatureValue", "KeyInfo", "X509Data", "X509Certificate",
	} {
		m[n] = n
	}
	return m
}()
