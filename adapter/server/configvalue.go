package server

import (
	"bytes"
	"encoding/json"
	"errors"
)

// requestConfigMap is a request's "config" object. Its values are scalars
// (a string, number, boolean or null): an object or array value is refused
// as it is decoded, before it takes memory in proportion to its elements.
type requestConfigMap map[string]configValue

// configValue is one scalar value of a request's config.
type configValue struct{ v any }

// errConfigNotScalar reports a config value that is an object or an array.
var errConfigNotScalar = errors.New("config values are strings, numbers, booleans or null")

// UnmarshalJSON decodes a scalar, keeping numbers as json.Number.
func (c *configValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		return errConfigNotScalar
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(&c.v)
}

// values returns the config as the vectorizer's overrides take it.
func (m requestConfigMap) values() map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v.v
	}
	return out
}
