package sello

import "github.com/google/uuid"

// NewID returns a new time-ordered unique id (UUIDv7): the id of every
// record Sello creates, so ids sort by creation time.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
