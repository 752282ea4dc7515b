package ecf_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sello-do/sello/internal/jsonstrict"
)

// TestJSONDecodeTestdata: jsonstrict.Decode, which Decode reads bodies
// with, reads every JSON file of the package's tests (the documents of
// every type, the fuzz corpus) as encoding/json does.
func TestJSONDecodeTestdata(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, ok := jsonstrict.Decode(b)
		if !ok {
			if jsonstrict.Check(b) == nil {
				t.Errorf("%s: Decode gave up on a body Check passes", path)
			}
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Errorf("%s: Decode read what encoding/json refuses: %v", path, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Decode differs from encoding/json", path)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("%d files read, want the package's documents", n)
	}
}
