package refresh

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Object is one object Walk read: its id and, for each target whose text it
// has, the text Weaviate vectorized for that target (Texts[i] belongs to the
// Walk's targets[i]; "" when the object has no text for it).
type Object struct {
	ID    string
	Texts []string
}

// WalkStats count one Walk.
type WalkStats struct {
	Read     int `json:"read"`     // objects listed
	Empty    int `json:"empty"`    // objects with no text for any target
	Repeated int `json:"repeated"` // objects the cursor listed again (not passed on twice)
}

// Collection is a collection Walk reads: its class definition, read by
// ReadCollection.
type Collection struct {
	r *run
}

// ReadCollection reads the definition of the collection o.Class as Run does
// (the same client, API key, retries and size limits) and returns it, ready
// to Walk. o.Vectorizer, All, Tolerance and State are not used.
func ReadCollection(ctx context.Context, o Options) (*Collection, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := o.callWeaviate(ctx, http.MethodGet, o.Weaviate+"/v1/schema/"+url.PathEscape(o.Class), nil, &raw); err != nil {
		return nil, fmt.Errorf("read the definition of class %s: %w", o.Class, err)
	}
	class, targets, err := parseTargets(raw, o.Targets, o.LowerCase)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	return &Collection{r: &run{o: o, class: class, targets: targets, state: &state{Class: class}, textOnly: true}}, nil
}

// Class returns the collection's class name as Weaviate spells it.
func (c *Collection) Class() string { return c.r.class }

// Targets returns the vectors whose texts Walk assembles, in the order of
// Object.Texts.
func (c *Collection) Targets() []Target { return c.r.targets }

// Walk reads the collection once through Weaviate's cursor API, as Run
// reads it (the same page size, cursor and tenant), without its vectors,
// and calls fn for every object with a text, in the order of the cursor,
// with the text of each target assembled as Run assembles it.
func (c *Collection) Walk(ctx context.Context, fn func(Object) error) (WalkStats, error) {
	var ws WalkStats
	r := c.r
	r.state.After = ""
	stalled := 0
	for {
		page, fresh, err := r.next(ctx)
		if err != nil || len(page) == 0 {
			return ws, err
		}
		ws.Repeated += len(page) - len(fresh)
		for _, obj := range fresh {
			ws.Read++
			out := Object{ID: obj.ID, Texts: make([]string, len(r.targets))}
			empty := true
			for i, t := range r.targets {
				if text, isEmpty := t.Text.Text(r.class, obj.Properties); !isEmpty {
					out.Texts[i], empty = text, false
				}
			}
			if empty {
				ws.Empty++
				continue
			}
			if err := fn(out); err != nil {
				return ws, err
			}
		}
		if err := r.advance(page, &stalled); err != nil {
			return ws, err
		}
	}
}
