package portal

import (
	"fmt"
	"html"
	"strings"

	"github.com/boombuler/barcode/qr"
)

// qrSVG draws text as a QR code in SVG (one path of black modules on a
// white square with the standard 4-module quiet zone), to show inline in
// a page: no script, no style, no image request. title is its accessible
// name.
func qrSVG(text, title string) (string, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", fmt.Errorf("qr: %w", err)
	}
	n := code.Bounds().Dx()
	const quiet = 4
	size := n + 2*quiet
	var path strings.Builder
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if r, _, _, _ := code.At(x, y).RGBA(); r == 0 {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img" aria-labelledby="qr-title"><title id="qr-title">%s</title><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		size, size, html.EscapeString(title), size, size, path.String()), nil
}
