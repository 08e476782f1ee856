package refresh

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Modules are the vectorizer modules refresh knows, with their default of
// vectorizeClassName: the stock text2vec-transformers, text2vec-model2vec,
// text2vec-cohere and text2vec-openai (each calling a text2vec-am server,
// the last two when a baseURL names it; all four build an object's text with
// Weaviate's base class settings, not lower-cased) and the in-process
// text2vec-am module.
var Modules = map[string]bool{
	"text2vec-transformers": true,
	"text2vec-model2vec":    true,
	"text2vec-cohere":       true,
	"text2vec-openai":       true,
	ModuleAM:                false,
}

// viaBaseURL are the Modules that call a text2vec-am server only when a
// collection's baseURL names one (by default they call their vendor's API):
// a target made by one of them without a baseURL is not refresh's.
var viaBaseURL = map[string]bool{"text2vec-cohere": true, "text2vec-openai": true}

// ours reports whether refresh recomputes the vectors mod makes with
// settings: a module of Modules, which for those of viaBaseURL has a
// baseURL set.
func ours(mod string, settings map[string]any) bool {
	if _, ok := Modules[mod]; !ok {
		return false
	}
	u, _ := settings["baseURL"].(string)
	return !viaBaseURL[mod] || u != ""
}

// ModuleAM is the in-process module's name.
const ModuleAM = "text2vec-am"

// classSchema is the part of a Weaviate class definition refresh reads.
type classSchema struct {
	Class        string                    `json:"class"`
	Vectorizer   string                    `json:"vectorizer"`
	ModuleConfig map[string]map[string]any `json:"moduleConfig"`
	VectorConfig map[string]struct {
		Vectorizer map[string]map[string]any `json:"vectorizer"`
	} `json:"vectorConfig"`
	Properties []struct {
		Name         string                    `json:"name"`
		DataType     []string                  `json:"dataType"`
		ModuleConfig map[string]map[string]any `json:"moduleConfig"`
	} `json:"properties"`
}

// Target is one vector of a collection that refresh recomputes: the class
// vector (Name "") or a named vector.
type Target struct {
	Name   string
	Module string
	// Settings are the module settings of the collection or named vector.
	Settings map[string]any
	Text     TextSettings
}

// label names the target in messages.
func (t Target) label() string {
	if t.Name == "" {
		return "the class vector"
	}
	return fmt.Sprintf("named vector %q", t.Name)
}

// parseTargets returns the targets of the class definition raw: the named
// vectors in names (every one made by a module refresh knows when names is
// empty), or the class vector of a collection without named vectors.
func parseTargets(raw []byte, names []string, lowerCase bool) (string, []Target, error) {
	var c classSchema
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", nil, fmt.Errorf("class definition: %w", err)
	}
	var out []Target
	if len(c.VectorConfig) == 0 {
		if len(names) > 0 {
			return "", nil, fmt.Errorf("class %s has no named vectors (asked for %s)", c.Class, strings.Join(names, ", "))
		}
		if !ours(c.Vectorizer, c.ModuleConfig[c.Vectorizer]) {
			return "", nil, fmt.Errorf("class %s is vectorized by %q, not by one of %s%s", c.Class, c.Vectorizer, moduleList(),
				baseURLNote)
		}
		out = append(out, newTarget(&c, "", c.Vectorizer, c.ModuleConfig[c.Vectorizer], lowerCase))
		return c.Class, out, nil
	}
	all := make([]string, 0, len(c.VectorConfig))
	for name := range c.VectorConfig {
		all = append(all, name)
	}
	sort.Strings(all)
	for _, name := range all {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		mod, settings := "", map[string]any(nil)
		for m, s := range c.VectorConfig[name].Vectorizer {
			mod, settings = m, s
		}
		if !ours(mod, settings) {
			if len(names) > 0 {
				return "", nil, fmt.Errorf("named vector %q of class %s is made by %q, not by one of %s%s", name, c.Class, mod,
					moduleList(), baseURLNote)
			}
			continue
		}
		out = append(out, newTarget(&c, name, mod, settings, lowerCase))
	}
	for _, n := range names {
		if _, ok := c.VectorConfig[n]; !ok {
			return "", nil, fmt.Errorf("class %s has no named vector %q (it has %s)", c.Class, n, strings.Join(all, ", "))
		}
	}
	if len(out) == 0 {
		return "", nil, fmt.Errorf("no named vector of class %s is made by one of %s", c.Class, moduleList())
	}
	return c.Class, out, nil
}

// baseURLNote ends the errors that name Modules.
const baseURLNote = " (text2vec-cohere and text2vec-openai with a baseURL naming a text2vec-am server)"

func moduleList() string {
	names := make([]string, 0, len(Modules))
	for m := range Modules {
		names = append(names, m)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// newTarget reads the text settings of one target as Weaviate's
// BaseClassSettings does.
func newTarget(c *classSchema, name, mod string, settings map[string]any, lowerCase bool) Target {
	t := Target{Name: name, Module: mod, Settings: settings, Text: TextSettings{
		VectorizeClassName: Modules[mod],
		LowerCase:          lowerCase,
		Skip:               map[string]bool{},
		PropertyName:       map[string]bool{},
		DataTypes:          map[string]string{},
	}}
	if b, ok := settings["vectorizeClassName"].(bool); ok {
		t.Text.VectorizeClassName = b
	}
	if ps, ok := settings["properties"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				t.Text.Properties = append(t.Text.Properties, s)
			}
		}
	}
	for _, p := range c.Properties {
		if len(p.DataType) > 0 {
			t.Text.DataTypes[p.Name] = p.DataType[0]
		}
		pc := p.ModuleConfig[mod]
		if b, ok := pc["skip"].(bool); ok {
			t.Text.Skip[p.Name] = b
		}
		if b, ok := pc["vectorizePropertyName"].(bool); ok {
			t.Text.PropertyName[p.Name] = b
		}
	}
	return t
}
