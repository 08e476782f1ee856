package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// textList is the "texts" of a batch: decoded one string at a time and
// refused (413, --max-batch) at the first string beyond limit, before the
// strings beyond it take memory.
type textList struct {
	limit int
	texts []string
	set   bool // present and not null
}

// UnmarshalJSON decodes a JSON array of strings (or null).
func (l *textList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return errorf(http.StatusBadRequest, "malformed JSON: field \"texts\": want an array of strings")
	}
	l.set = true
	for dec.More() {
		if len(l.texts) == l.limit {
			return errorf(http.StatusRequestEntityTooLarge, "more than the limit of %d texts per batch (--max-batch)", l.limit)
		}
		var s string
		if err := dec.Decode(&s); err != nil {
			return errorf(http.StatusBadRequest, "malformed JSON: field \"texts\": text %d: %v", len(l.texts), err)
		}
		l.texts = append(l.texts, s)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("texts: %w", err)
	}
	return nil
}
