package sqlite

import (
	"errors"
	"fmt"

	"github.com/sello-do/sello"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// errorKind classifies driver errors. It is the one place this package looks
// at SQLite's result codes.
func errorKind(err error) int {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return 0
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return kindUnique
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return kindForeignKey
	}
	switch e.Code() & 0xff { // primary code: SQLITE_BUSY_SNAPSHOT is busy too
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return kindBusy
	}
	return 0
}

const (
	kindUnique = iota + 1
	kindForeignKey
	kindBusy
)

// dbError translates a driver error into the domain's: a unique violation
// is CONFLICT, a missing referenced row NOT_FOUND, a database locked beyond
// the busy timeout UNAVAILABLE. Anything else is wrapped with op and stays
// INTERNAL. Callers that can say more check errorKind first.
func dbError(err error, op string) error {
	if err == nil {
		return nil
	}
	var se *sello.Error
	if errors.As(err, &se) {
		return err
	}
	switch errorKind(err) {
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "The resource already exists.", Err: fmt.Errorf("%s: %w", op, err)}
	case kindForeignKey:
		return &sello.Error{Code: sello.CodeNotFound, Message: "A resource it refers to does not exist.", Err: fmt.Errorf("%s: %w", op, err)}
	case kindBusy:
		return &sello.Error{Code: sello.CodeUnavailable, Message: "The database is busy; retry shortly.", Err: fmt.Errorf("%s: %w", op, err)}
	}
	return fmt.Errorf("%s: %w", op, err)
}
