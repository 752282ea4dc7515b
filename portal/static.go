package portal

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// The portal's static files: htmx (npm htmx.org, HTMXVersion, vendored
// whole: make vendor-htmx), the one stylesheet, and copy.js (the copy
// buttons of secrets shown once). They are embedded in the binary; no page
// loads anything from another site.
//
//go:embed static/htmx.min.js static/sello.css static/copy.js
var staticFS embed.FS

// HTMXVersion is the vendored htmx (npm htmx.org), static/htmx.min.js.
const HTMXVersion = "2.0.11"

// staticPrefix is where the static files are served.
const staticPrefix = "/portal/static/"

// asset is one static file, read and compressed once.
type asset struct {
	body, gzipped []byte
	ctype, etag   string
}

// assets holds every static file by name, and the URL of each: its path
// with a version (the start of its hash), so that it can be cached for
// good and a new binary's file is fetched anew.
var assets, assetURLs = loadAssets()

func loadAssets() (map[string]*asset, map[string]string) {
	byName, urls := map[string]*asset{}, map[string]string{}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		name := path.Base(p)
		byName[name] = &asset{body: b, gzipped: gz.Bytes(), ctype: mime.TypeByExtension(path.Ext(name)), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		urls[name] = staticPrefix + name + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		panic("portal: static files: " + err.Error())
	}
	return byName, urls
}

// assetURL is the versioned URL of a static file.
func assetURL(name string) string {
	u, ok := assetURLs[name]
	if !ok {
		panic("portal: no static file " + name)
	}
	return u
}

// handleStatic serves a static file, gzipped to clients that take it,
// cached for a year (its URL changes with its content).
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", a.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	w.Write(body)
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
