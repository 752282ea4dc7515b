package sello

import (
	"cmp"
	"fmt"
	"time"
)

// Date is a calendar date without a time or zone, as DGII uses for
// FechaVencimientoSecuencia and FechaEmision.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// TodayInDR returns the current date in the Dominican Republic.
func TodayInDR(now time.Time) Date { return DateOf(now.In(DRZone)) }

// ParseDate accepts DGII's dd-MM-yyyy or ISO 8601 yyyy-MM-dd. Returns
// INVALID_REQUEST.
func ParseDate(s string) (Date, error) {
	for _, layout := range []string{"02-01-2006", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return DateOf(t), nil
		}
	}
	return Date{}, Errorf(CodeInvalidRequest, "Date %q must be dd-MM-yyyy or yyyy-MM-dd.", s)
}

// After reports whether d is after o.
func (d Date) After(o Date) bool { return d.Compare(o) > 0 }

// Compare returns -1, 0 or +1.
func (d Date) Compare(o Date) int {
	switch {
	case d.Year != o.Year:
		return cmp.Compare(d.Year, o.Year)
	case d.Month != o.Month:
		return cmp.Compare(int(d.Month), int(o.Month))
	}
	return cmp.Compare(d.Day, o.Day)
}

// String formats the date as ISO 8601 (yyyy-MM-dd), Sello's API form.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// DGII formats the date as dd-MM-yyyy, DGII's form.
func (d Date) DGII() string { return fmt.Sprintf("%02d-%02d-%04d", d.Day, d.Month, d.Year) }

// MarshalText implements encoding.TextMarshaler (ISO form).
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler (either form).
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
