package pdf

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
)

// qrVersion is the QR version DGII asks for the timbre [IT §17.2.3].
const qrVersion = 8

// qrQuiet is the least quiet zone around the symbol, in modules
// (ISO/IEC 18004); DGII also wants a margin of at least qrMarginMM.
const (
	qrQuiet    = 4
	qrMarginMM = 3.0
)

// qrModulePixels is the size of one module in the PNG. The PDF scales the
// image, so this only has to be an integer that keeps edges sharp.
const qrModulePixels = 8

// timbreQR is the timbre's QR symbol as a PNG with its quiet zone, and the
// number of modules across (quiet zone included) so that the layout can size
// the symbol itself.
type timbreQR struct {
	png     []byte
	version int
	modules int // symbol modules across, without the quiet zone
	quiet   int // quiet-zone modules on each side, in the PNG
}

// encodeQR encodes url at the error-correction level that brings the symbol
// closest to DGII's version 8, preferring the stronger level on a tie. The
// QR library picks the smallest version for a level and cannot be told one;
// DGII's URL (about 200 characters) fits version 8 at level L up to 192
// bytes, else it takes version 9 or 10.
//
// symbolMM is the printed size of the symbol: the PNG's quiet zone is wide
// enough for DGII's 3 mm margin at that size.
func encodeQR(url string, symbolMM float64) (timbreQR, error) {
	// Versions grow with the level, so go from L up and stop past 8: a
	// typical URL is version 9 at L already and costs one encoding (each
	// costs milliseconds: the library scores all eight masks).
	var best barcode.Barcode
	bestDist := -1
	for _, level := range []qr.ErrorCorrectionLevel{qr.L, qr.M, qr.Q, qr.H} {
		code, err := qr.Encode(url, level, qr.Auto)
		if err != nil {
			break // too long for this level, so for the stronger ones too
		}
		v := versionOf(code)
		d := v - qrVersion
		if d < 0 {
			d = -d
		}
		if bestDist < 0 || d <= bestDist {
			best, bestDist = code, d
		}
		if v >= qrVersion {
			break
		}
	}
	if best == nil {
		return timbreQR{}, fmt.Errorf("encode qr: %d bytes do not fit a QR code", len(url))
	}
	n := best.Bounds().Dx()
	quiet := max(qrQuiet, int(math.Ceil(qrMarginMM*float64(n)/symbolMM)))
	side := (n + 2*quiet) * qrModulePixels
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if !isDark(best.At(x, y)) {
				continue
			}
			x0, y0 := (x+quiet)*qrModulePixels, (y+quiet)*qrModulePixels
			for yy := y0; yy < y0+qrModulePixels; yy++ {
				row := img.Pix[yy*img.Stride+x0 : yy*img.Stride+x0+qrModulePixels]
				for i := range row {
					row[i] = 0
				}
			}
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return timbreQR{}, fmt.Errorf("encode qr png: %w", err)
	}
	return timbreQR{png: buf.Bytes(), version: versionOf(best), modules: n, quiet: quiet}, nil
}

// versionOf returns the QR version of a symbol from its size: 17 + 4·version
// modules across.
func versionOf(code barcode.Barcode) int { return (code.Bounds().Dx() - 17) / 4 }

func isDark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r+g+b < 3*0x8000
}
