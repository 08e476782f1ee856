// Package refresh re-vectorizes the objects of a Weaviate collection from the
// vectorizer's current context memory and writes the new vectors back
// through Weaviate's REST API (the "text2vec-am refresh" command).
//
// Weaviate v1.39.0 does not call the vectorizer again for an object whose
// properties are unchanged, so re-importing never refreshes a vector: the
// objects imported while the memory was still filling keep the vectors they
// got then. refresh assembles each object's text exactly as Weaviate does
// (usecases/modulecomponents/vectorizer.ObjectVectorizer.Texts), asks the
// vectorizer for its current vector (as a query, so refreshing never teaches
// the memory) and writes the vector back with the object unchanged.
//
// It speaks plain HTTP and JSON: only module/ imports Weaviate's packages.
package refresh

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fatih/camelcase"
)

// TextSettings are the settings Weaviate's text2vec modules assemble an
// object's text with: the collection's (or named vector's) module settings
// and each property's.
type TextSettings struct {
	VectorizeClassName bool
	// Properties is the "properties" setting: when non-empty, only these
	// properties are vectorized, and non-text values are included too.
	Properties []string
	// LowerCase lower-cases the text (LOWERCASE_VECTORIZATION_INPUT).
	LowerCase bool
	// Skip and PropertyName are the per-property "skip" and
	// "vectorizePropertyName" settings, by property name.
	Skip, PropertyName map[string]bool
	// DataTypes are the properties' data types (the schema's dataType[0]).
	DataTypes map[string]string
}

func (s *TextSettings) indexed(prop string) bool {
	if len(s.Properties) > 0 {
		return slices.Contains(s.Properties, prop)
	}
	return !s.Skip[prop]
}

// Text returns the text Weaviate vectorizes for an object of class with
// properties props (as the REST API returns them), and whether it is empty
// (Weaviate then stores no vector).
func (s *TextSettings) Text(class string, props map[string]any) (string, bool) {
	var corpi []string
	hasSource := len(s.Properties) > 0
	if s.VectorizeClassName {
		corpi = append(corpi, separateCamelCase(class, s.LowerCase))
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !s.indexed(name) {
			continue
		}
		for _, v := range s.values(name, props[name], hasSource) {
			if s.LowerCase {
				v = strings.ToLower(v)
			}
			if s.PropertyName[name] {
				v = separateCamelCase(name, s.LowerCase) + " " + v
			}
			corpi = append(corpi, v)
		}
	}
	if !hasSource && len(corpi) == 0 {
		corpi = append(corpi, separateCamelCase(class, s.LowerCase))
	}
	text := strings.Join(corpi, " ")
	return text, text == ""
}

// values returns the strings Weaviate takes from one property value, by its
// data type as Weaviate's validator types it: text, text[] and blob always;
// numbers, booleans, dates and objects only when the "properties" setting
// names properties; uuids, geo coordinates, phone numbers, references and
// date arrays never.
func (s *TextSettings) values(name string, val any, hasSource bool) []string {
	dt := s.DataTypes[name]
	switch dt {
	case "text", "string", "blob":
		if v, ok := val.(string); ok {
			return []string{v}
		}
		return nil
	case "text[]", "string[]":
		return stringsOf(val, func(x any) (string, bool) { v, ok := x.(string); return v, ok })
	}
	if !hasSource {
		return nil
	}
	switch dt {
	case "int", "number", "boolean":
		if _, ok := val.([]any); ok {
			return nil
		}
		return []string{fmt.Sprintf("%v", val)}
	case "int[]", "number[]", "boolean[]":
		return stringsOf(val, func(x any) (string, bool) { return fmt.Sprintf("%v", x), true })
	case "date":
		v, ok := val.(string)
		if !ok {
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil
		}
		return []string{t.Format(time.RFC3339)}
	case "object", "object[]":
		if a, ok := val.([]any); ok && len(a) == 0 {
			return nil
		}
		b, err := json.Marshal(val)
		if err != nil {
			return []string{fmt.Sprintf("%v", val)}
		}
		return []string{string(b)}
	}
	return nil
}

func stringsOf(val any, conv func(any) (string, bool)) []string {
	a, ok := val.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		if v, ok := conv(x); ok {
			out = append(out, v)
		}
	}
	return out
}

// separateCamelCase splits "MyClass" into "My Class" (lower-cased when
// toLower), as Weaviate does with class and property names.
func separateCamelCase(in string, toLower bool) string {
	parts := camelcase.Split(in)
	var sb strings.Builder
	for i, part := range parts {
		if part == " " {
			continue
		}
		if i > 0 {
			sb.WriteString(" ")
		}
		if toLower {
			part = strings.ToLower(part)
		}
		sb.WriteString(part)
	}
	return sb.String()
}
