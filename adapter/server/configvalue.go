package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/text2vec-am/text2vec-am/internal/jsonmsg"
)

// requestConfigMap is a request's "config" object. Its values are scalars
// (a string, number, boolean or null; numbers kept as json.Number): an
// object or array value is refused, naming its key, as it is decoded,
// before it takes memory in proportion to its elements.
type requestConfigMap map[string]any

// UnmarshalJSON decodes the config one key at a time.
func (m *requestConfigMap) UnmarshalJSON(b []byte) error {
	switch kind := jsonmsg.ValueKind(b); kind {
	case "null":
		*m = nil
		return nil
	case "object":
	default:
		return errorf(http.StatusBadRequest, "malformed JSON: field \"config\": want an object, got a JSON %s", kind)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the object's '{'
		return fmt.Errorf("config: %w", err)
	}
	out := requestConfigMap{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		key, _ := t.(string)
		// The value follows the key's ':' (and white space).
		if kind := jsonmsg.ValueKind(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n:")); kind == "object" || kind == "array" {
			return errorf(http.StatusBadRequest, "malformed JSON: config key %q: "+
				"want a string, number, boolean or null, got a JSON %s", key, kind)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("config key %q: %w", key, err)
		}
		out[key] = v
	}
	*m = out
	return nil
}
