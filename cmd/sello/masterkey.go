package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sello-do/sello"
)

// masterKeyFile is where demo mode keeps a generated master key.
const masterKeyFile = "master.key"

// masterKey returns the key that seals secrets at rest: SELLO_MASTER_KEY,
// else the key file in the data folder. With generate (demo mode) a missing
// key is created there (mode 0600, in a folder of mode 0700: see
// secureData). Production deployments set
// SELLO_MASTER_KEY from a secret manager and back it up: without it the
// stored certificate keys cannot be opened.
func (f *storageFlags) masterKey(getenv func(string) string, generate bool) (*sello.MasterKey, error) {
	if v := getenv("SELLO_MASTER_KEY"); v != "" {
		k, err := sello.ParseMasterKey(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("SELLO_MASTER_KEY: %s", sello.ErrorMessageOf(err))
		}
		return k, nil
	}
	path := filepath.Join(f.data, masterKeyFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := f.secureData(); err != nil {
			return nil, err
		}
		k, err := sello.ParseMasterKey(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %s", path, sello.ErrorMessageOf(err))
		}
		return k, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read master key: %w", err)
	case !generate:
		return nil, usageError{"SELLO_MASTER_KEY is not set (and " + path + " does not exist): set it to 32 random bytes in base64, e.g. openssl rand -base64 32"}
	}
	if err := f.secureData(); err != nil {
		return nil, err
	}
	key := sello.GenerateMasterKey()
	if err := os.WriteFile(path, []byte(key+"\n"), keyFileMode); err != nil {
		return nil, fmt.Errorf("write master key: %w", err)
	}
	return sello.ParseMasterKey(key)
}
