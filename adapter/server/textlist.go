package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// textList is the "texts" of a batch (or the field named by field): decoded
// one string at a time and refused (413, --max-batch) at the first string
// beyond limit, before the strings beyond it take memory.
type textList struct {
	field string // "texts" when empty
	limit int
	texts []string
	set   bool // present and not null
}

func (l *textList) name() string {
	if l.field == "" {
		return "texts"
	}
	return l.field
}

// UnmarshalJSON decodes a JSON array of strings (or null).
func (l *textList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return errorf(http.StatusBadRequest, "malformed JSON: field %q: want an array of strings", l.name())
	}
	l.set = true
	for dec.More() {
		if len(l.texts) == l.limit {
			return errorf(http.StatusRequestEntityTooLarge, "more than the limit of %d texts per batch (--max-batch)", l.limit)
		}
		var s *string
		if err := dec.Decode(&s); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return errorf(http.StatusBadRequest, "malformed JSON: field %q: text %d: want a string, got a JSON %s",
					l.name(), len(l.texts), typ.Value)
			}
			return errorf(http.StatusBadRequest, "malformed JSON: field %q: text %d: %v", l.name(), len(l.texts), err)
		}
		if s == nil {
			return errorf(http.StatusBadRequest, "field %q: text %d is null: want a string", l.name(), len(l.texts))
		}
		l.texts = append(l.texts, *s)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: %w", l.name(), err)
	}
	return nil
}
