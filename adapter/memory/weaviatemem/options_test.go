package weaviatemem

import (
	"errors"
	"testing"
)

// TestCheckRefusesBadAPIKeys: a key that cannot travel in an Authorization
// header is refused as the APIKey option, whatever its white space or
// control character; a plain key passes.
func TestCheckRefusesBadAPIKeys(t *testing.T) {
	for _, key := range []string{"a b", "a\tb", "a\nb", "a\x00b", "a\x1bb", "a\x7fb", "a\u0085b"} {
		err := Options{URL: "http://weaviate:8080", APIKey: key}.CheckAccess()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "APIKey" {
			t.Errorf("key %q: err %v, want an APIKey OptionError", key, err)
		}
	}
	if err := (Options{URL: "http://weaviate:8080", APIKey: "s3cr3t-K3y"}).CheckAccess(); err != nil {
		t.Errorf("plain key: %v", err)
	}
}
