package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sello-do/sello"
)

// errorKind classifies driver errors. It is the one place this package
// looks at SQLSTATEs.
func errorKind(err error) int {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return 0
	}
	switch e.Code {
	case "23505": // unique_violation
		return kindUnique
	case "23503": // foreign_key_violation
		return kindForeignKey
	case "40001", "40P01", "55P03": // serialization_failure, deadlock_detected, lock_not_available
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
// is CONFLICT, a missing referenced row NOT_FOUND, a serialization failure
// or deadlock UNAVAILABLE. Anything else is wrapped with op and stays
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
