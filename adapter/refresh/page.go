package refresh

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// objectPage is a page of GET /v1/objects that holds at most limit objects:
// a longer page is refused as it is decoded, before the objects beyond the
// limit take any memory.
type objectPage struct {
	limit   int
	Objects []object
}

// UnmarshalJSON decodes {"objects":[…], …} one object at a time.
func (p *objectPage) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("a page of objects: want a JSON object (%v)", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != "objects" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || (t != json.Delim('[') && t != nil) {
			return fmt.Errorf("a page of objects: \"objects\" is not an array (%v)", err)
		} else if t == nil {
			continue
		}
		for dec.More() {
			if len(p.Objects) == p.limit {
				return fmt.Errorf("the page holds more than the %d objects asked for", p.limit)
			}
			var o object
			if err := dec.Decode(&o); err != nil {
				return err
			}
			p.Objects = append(p.Objects, o)
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	return nil
}
