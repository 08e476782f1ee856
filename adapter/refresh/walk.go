package refresh

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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
	r           *run
	multiTenant bool
}

// ReadCollection reads the definition of the collection o.Class as Run does
// (the same client, API key, retries and size limits) and returns it, ready
// to Walk. o.Vectorizer, All, Tolerance and State are not used.
func ReadCollection(ctx context.Context, o Options) (*Collection, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	raw, err := o.readClass(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the definition of class %s: %w", o.Class, err)
	}
	class, targets, err := parseTargets(raw, o.Targets, o.LowerCase)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	var mt struct {
		MultiTenancyConfig struct {
			Enabled bool `json:"enabled"`
		} `json:"multiTenancyConfig"`
	}
	_ = json.Unmarshal(raw, &mt) // parseTargets decoded raw: it is a JSON object
	return &Collection{r: &run{o: o, class: class, targets: targets, state: &state{Class: class}, textOnly: true},
		multiTenant: mt.MultiTenancyConfig.Enabled}, nil
}

// MultiTenant reports whether the collection is multi-tenant: Walk then
// reads the objects of one tenant (Options.Tenant, or ForTenant).
func (c *Collection) MultiTenant() bool { return c.multiTenant }

// Tenant returns the tenant Walk reads ("" for none).
func (c *Collection) Tenant() string { return c.r.o.Tenant }

// ForTenant returns the collection read as tenant.
func (c *Collection) ForTenant(tenant string) *Collection {
	r := *c.r
	r.o.Tenant, r.state = tenant, &state{Class: r.class}
	return &Collection{r: &r, multiTenant: c.multiTenant}
}

// maxTenants bounds the tenants Tenants reads.
const maxTenants = 100_000

// Tenants lists the tenants of a multi-tenant collection, sorted by name
// (GET /v1/schema/{class}/tenants).
func (c *Collection) Tenants(ctx context.Context) ([]string, error) {
	var ans []struct {
		Name string `json:"name"`
	}
	o := &c.r.o
	if err := o.callWeaviate(ctx, http.MethodGet, o.Weaviate+"/v1/schema/"+url.PathEscape(c.r.class)+"/tenants", nil, &ans); err != nil {
		return nil, fmt.Errorf("list the tenants of class %s: %w", c.r.class, err)
	}
	if len(ans) > maxTenants {
		return nil, fmt.Errorf("class %s has %d tenants, more than the %d read at once: name one (tenant)", c.r.class, len(ans), maxTenants)
	}
	names := make([]string, 0, len(ans))
	for _, t := range ans {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names, nil
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
