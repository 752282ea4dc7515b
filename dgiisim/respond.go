package dgiisim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
)

// obj is a response object whose keys keep their order, so that one
// definition renders as DGII's JSON or as its XML.
type obj []kv

type kv struct {
	k string
	v any // string, int, bool, nil, json.Number, obj, []obj, []string
}

// MarshalJSON renders o with its keys in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeXML renders v as the element name (a list as repeated elements).
func writeXML(b *bytes.Buffer, name string, v any) {
	switch v := v.(type) {
	case []obj:
		for _, x := range v {
			writeXML(b, name, x)
		}
		return
	case []string:
		for _, x := range v {
			writeXML(b, name, x)
		}
		return
	case nil:
		fmt.Fprintf(b, `<%s xsi:nil="true" />`, name)
		return
	}
	fmt.Fprintf(b, "<%s>", name)
	switch v := v.(type) {
	case obj:
		for _, f := range v {
			writeXML(b, f.k, f.v)
		}
	case string:
		xml.EscapeText(b, []byte(v))
	default:
		fmt.Fprint(b, v)
	}
	fmt.Fprintf(b, "</%s>", name)
}

// wantsXML reports whether the client asked for XML rather than JSON.
func wantsXML(r *http.Request) bool {
	a := strings.ToLower(r.Header.Get("Accept"))
	return strings.Contains(a, "xml") && !strings.Contains(a, "json")
}

// respond writes body as JSON, or as XML with root xmlRoot when the client
// asked for XML. A list body becomes <xmlRoot><xmlItem>…</xmlItem>…</xmlRoot>.
func respond(w http.ResponseWriter, r *http.Request, status int, body any, xmlRoot, xmlItem string) {
	if wantsXML(r) {
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
		switch body.(type) {
		case []obj:
			fmt.Fprintf(&b, `<%s xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`, xmlRoot)
			writeXML(&b, xmlItem, body)
			fmt.Fprintf(&b, "</%s>", xmlRoot)
		default:
			// Root attributes go on a wrapper-free root.
			var inner bytes.Buffer
			if o, ok := body.(obj); ok {
				for _, f := range o {
					writeXML(&inner, f.k, f.v)
				}
			}
			fmt.Fprintf(&b, `<%s xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">%s</%s>`, xmlRoot, inner.Bytes(), xmlRoot)
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(status)
		w.Write(b.Bytes())
		return
	}
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}
