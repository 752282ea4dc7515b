package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// fileMode is the mode of the database file and its companions: they hold
// buyers' data, API key hashes and sealed secrets, so only the owner reads
// them, whatever the umask.
const fileMode = 0o600

// companions are the suffixes of the files SQLite keeps beside the database
// (the write-ahead log, its shared-memory index, a rollback journal).
var companions = []string{"-wal", "-shm", "-journal"}

// createFile creates the database file at path with fileMode if it does not
// exist, and narrows its mode if it does, before the driver opens it: SQLite
// creates a file 0644 less the umask, and gives its companions the mode of
// the database file.
func createFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("create sqlite file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create sqlite file: %w", err)
	}
	return restrictFile(path)
}

// restrictFiles narrows the mode of the database file's companions that
// exist (made by an older Sello, or under another mode).
func restrictFiles(path string) error {
	for _, suffix := range companions {
		if err := restrictFile(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// restrictFile sets path's mode to fileMode unless it is that already.
func restrictFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() == fileMode {
		return nil
	}
	if err := os.Chmod(path, fileMode); err != nil {
		return fmt.Errorf("restrict sqlite file: %w", err)
	}
	return nil
}
