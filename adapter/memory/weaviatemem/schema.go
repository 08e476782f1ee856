package weaviatemem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// The properties of the memory's objects.
const (
	propKind         = "kind"         // kindLesson, kindContext or kindPassage
	propContextWords = "contextWords" // a lesson's contexts' words
	propContexts     = "contexts"     // a lesson's contexts' texts
	propPassages     = "passages"     // a lesson's passages: hash (16 hex digits), ":", number of words
	propWords        = "words"        // a passage's distinct words (a lesson's: of each passage in turn)
	propWord         = "word"         // a context object's word
	propContext      = "context"      // a context object's text
	propHash         = "hash"         // a passage object's content hash (16 hex digits)
)

// The kinds of object: a lesson is written; a context and a passage are
// read (a memory written before lessons holds them).
const (
	kindLesson  = "lesson"
	kindContext = "context"
	kindPassage = "passage"
)

// properties are the memory's properties and their data types; a class
// that lacks some of them (made before lessons) gets them added.
var properties = [][2]string{{propKind, "text"}, {propWord, "text"}, {propContext, "text"}, {propHash, "text"},
	{propWords, "text[]"}, {propContextWords, "text[]"}, {propContexts, "text[]"}, {propPassages, "text[]"}}

// propertyNames returns the names of the memory's properties.
func propertyNames() []string {
	names := make([]string, len(properties))
	for i, p := range properties {
		names[i] = p[0]
	}
	return names
}

// propertyDefinition returns the definition of the property name of dataType:
// nothing indexed.
func propertyDefinition(name, dataType string) map[string]any {
	return map[string]any{"name": name, "dataType": []string{dataType}, "tokenization": "field",
		"indexFilterable": false, "indexSearchable": false, "indexRangeFilters": false}
}

// classDefinition is the collection that holds the memory: no vectorizer,
// no vector index, one tenant per scope, creation times indexed (the
// incremental reads filter and sort by them), nothing else indexed.
func classDefinition(class string, replicas int) map[string]any {
	props := make([]any, len(properties))
	for i, p := range properties {
		props[i] = propertyDefinition(p[0], p[1])
	}
	return map[string]any{
		"class":       class,
		"description": "The context memory of text2vec-am: contexts of rare words and passage keys (written by text2vec-am serve)",
		"vectorizer":  "none",
		"vectorIndexConfig": map[string]any{
			"skip": true,
		},
		"invertedIndexConfig": map[string]any{"indexTimestamps": true},
		"multiTenancyConfig":  map[string]any{"enabled": true, "autoTenantCreation": true, "autoTenantActivation": true},
		"replicationConfig":   map[string]any{"factor": replicas},
		"properties":          props,
	}
}

// errNotAMemory reports an existing class that cannot hold the memory.
var errNotAMemory = errors.New("is not a text2vec-am memory")

// ClassError is the error of a memory whose collection cannot hold it (not
// multi-tenant, properties missing or of other types): usually a collection
// Weaviate's auto-schema created, from a write that reached Weaviate after
// the memory's collection was deleted. It wraps memstore.ErrRefused and
// memstore.ErrUnavailable: nothing is vectorized until an operator deletes
// the collection and rebuilds the memory, or names another class.
type ClassError struct {
	Class, URL string
	Replicas   int
	Scopes     bool     // a scope per collection (the in-process module)
	Problems   []string // what keeps the class from holding the memory
	Auto       bool     // Weaviate's auto-schema created the class
}

func (e *ClassError) Error() string {
	why := ""
	if e.Auto {
		why = " (Weaviate's auto-schema created it, from a write that reached Weaviate after the memory's collection " +
			"was deleted)"
	}
	rebuild := "text2vec-am memory rebuild --memory-weaviate URL --memory-weaviate-class " + e.Class +
		replicasFlag(e.Replicas)
	if e.Scopes {
		rebuild += " --module-scopes"
	}
	return fmt.Sprintf("class %s at %s %s: %s%s; delete it (curl -X DELETE %s/v1/schema/%s, with Weaviate's API key "+
		"if it needs one) and rebuild the memory (%s --class C, for each collection C, then refresh), or name another "+
		"class (--memory-weaviate-class, TEXT2VEC_AM_MEMORY_WEAVIATE_CLASS in the module)", e.Class, e.URL,
		errNotAMemory, strings.Join(e.Problems, ", "), why, e.URL, url.PathEscape(e.Class), rebuild)
}

// Is makes errors.Is find errNotAMemory, memstore.ErrRefused and memstore.ErrUnavailable.
func (e *ClassError) Is(target error) bool {
	return target == errNotAMemory || target == memstore.ErrRefused || target == memstore.ErrUnavailable
}

// ensureClass creates the memory's class, or checks the one that exists,
// unless Weaviate's witness says it existed and was deleted (dropped.go);
// created is whether this store created it. Weaviate's refusal (4xx other
// than 404, 408 and 429: a key refused, a definition it does not take)
// wraps memstore.ErrRefused.
func (s *Store) ensureClass(ctx context.Context) (created bool, err error) {
	err = s.checkClass(ctx)
	if notFound(err) {
		created, err = s.createClass(ctx)
	}
	if err != nil && refused(err) && !errors.Is(err, memstore.ErrRefused) {
		err = fmt.Errorf("%w: %w", memstore.ErrRefused, err)
	}
	return created, err
}

// notFound reports whether err is Weaviate's 404.
func notFound(err error) bool {
	var he *weaviateapi.HTTPError
	return errors.As(err, &he) && he.Status == http.StatusNotFound
}

// createClass creates the memory's class, which is not there; created is
// false when another server created it meanwhile.
func (s *Store) createClass(ctx context.Context) (created bool, err error) {
	if appeared, err := s.checkNotDropped(ctx); appeared || err != nil {
		return false, err
	}
	factor, nodes, err := s.createFactor(ctx)
	if err != nil {
		return false, err
	}
	err = s.call(ctx, http.MethodPost, "/v1/schema", classDefinition(s.o.Class, factor), nil)
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusUnprocessableEntity && strings.Contains(he.Body, "already exists") {
		return false, s.checkClass(ctx) // another server created it meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("create class %s: %w", s.o.Class, err)
	}
	s.setFactor(factor)
	if s.o.Replicas == 0 {
		s.o.Logger.Info("context memory: created its collection in Weaviate with one replica on each of Weaviate's nodes",
			"url", s.base, "class", s.o.Class, "nodes", nodes, "replicas", factor)
		return true, nil
	}
	s.o.Logger.Info("context memory: created its collection in Weaviate", "url", s.base, "class", s.o.Class, "replicas", factor)
	return true, nil
}

// classProperty is a property of a class definition.
type classProperty struct {
	Name     string   `json:"name"`
	DataType []string `json:"dataType"`
}

// classInfo is what checkClass reads of a class definition.
type classInfo struct {
	Description  string          `json:"description"`
	Properties   []classProperty `json:"properties"`
	MultiTenancy struct {
		Enabled bool `json:"enabled"`
	} `json:"multiTenancyConfig"`
	Inverted struct {
		IndexTimestamps bool `json:"indexTimestamps"`
	} `json:"invertedIndexConfig"`
	Replication struct {
		Factor int `json:"factor"`
	} `json:"replicationConfig"`
}

// has reports whether the class has the property name.
func (c *classInfo) has(name string) bool {
	return slices.ContainsFunc(c.Properties, func(p classProperty) bool { return p.Name == name })
}

// checkClass reads the class and checks that it can hold the memory: a
// class made before lessons (it has the properties of context and passage
// objects) gets the properties of lessons added.
func (s *Store) checkClass(ctx context.Context) error {
	c, err := s.inspectClass(ctx)
	if err != nil {
		return err
	}
	s.setFactor(c.Replication.Factor)
	if c.Replication.Factor != 0 && s.o.Replicas != 0 && c.Replication.Factor != s.o.Replicas {
		s.o.Logger.Warn("context memory: the collection in Weaviate keeps its replication factor", "class", s.o.Class,
			"factor", c.Replication.Factor, "asked", s.o.Replicas)
	}
	return s.addProperties(ctx, c)
}

// inspectClass reads the class: Weaviate's 404 when it is not there, a
// *ClassError when it cannot hold the memory.
func (s *Store) inspectClass(ctx context.Context) (*classInfo, error) {
	var c classInfo
	if err := s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class), nil, &c); err != nil {
		return nil, err
	}
	var problems []string
	if !c.MultiTenancy.Enabled {
		problems = append(problems, "not multi-tenant")
	}
	if !c.Inverted.IndexTimestamps {
		problems = append(problems, "creation times not indexed (invertedIndexConfig.indexTimestamps)")
	}
	for _, want := range []string{propKind, propWord, propContext, propHash, propWords} {
		if !c.has(want) {
			problems = append(problems, "no property "+want)
		}
	}
	for _, want := range properties {
		for _, p := range c.Properties {
			if got := strings.Join(p.DataType, ","); p.Name == want[0] && got != want[1] {
				problems = append(problems, fmt.Sprintf("property %s is of dataType %q, want %q", p.Name, got, want[1]))
			}
		}
	}
	if len(problems) > 0 {
		return nil, &ClassError{Class: s.o.Class, URL: s.base, Replicas: s.o.Replicas, Scopes: s.o.SharedCounts,
			Problems: problems, Auto: strings.Contains(c.Description, "auto-schema")}
	}
	return &c, nil
}

// addProperties adds the memory's properties that class c lacks.
func (s *Store) addProperties(ctx context.Context, c *classInfo) error {
	for _, p := range properties {
		if c.has(p[0]) {
			continue
		}
		err := s.call(ctx, http.MethodPost, "/v1/schema/"+url.PathEscape(s.o.Class)+"/properties",
			propertyDefinition(p[0], p[1]), nil)
		var again classInfo
		if err != nil && s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class), nil, &again) == nil &&
			again.has(p[0]) {
			err = nil // another server added it meanwhile
		}
		if err != nil {
			return fmt.Errorf("add property %s to class %s: %w", p[0], s.o.Class, err)
		}
		s.o.Logger.Info("context memory: added a property to its collection in Weaviate", "class", s.o.Class,
			"property", p[0])
	}
	return nil
}

// ensureTenant creates tenant (adding an existing tenant is allowed).
func (s *Store) ensureTenant(ctx context.Context, tenant string) error {
	err := s.call(ctx, http.MethodPost, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants",
		[]map[string]any{{"name": tenant}}, nil)
	if err != nil {
		return fmt.Errorf("create tenant %s of class %s: %w", tenant, s.o.Class, err)
	}
	return nil
}

// tenantRE is Weaviate's tenant name rule.
var tenantRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// sharedTenant is the tenant of the shared memory (scope ""): no collection
// name starts with "_".
const sharedTenant = "_shared"

// maxCollectionPart bounds the part of a tenant's name that names its
// collection, so that a collection's tenants have room for theirs.
const maxCollectionPart = 30

// tenantName returns the tenant that holds scope: "_shared" for "", the
// collection's part for a collection "Class", the collection's part, "--"
// and the tenant's part for "Class/tenant". A collection's part is its name
// ("-" is in no class name) or, beyond 30 bytes, its first 17 bytes, "-" and
// a hash of the name; a tenant's part is its name or, when that would break
// Weaviate's rule (64 bytes of [A-Za-z0-9_-]), the name with other bytes as
// "_", cut, "-" and a hash of the name. So the tenants of a collection's
// tenants are exactly those whose names start with its part and "--".
func tenantName(scope string) string {
	if scope == "" {
		return sharedTenant
	}
	coll, tenant, ok := strings.Cut(scope, "/")
	cp := collectionPart(coll)
	if !ok {
		return cp
	}
	if name := cp + "--" + tenant; tenantRE.MatchString(name) {
		return name
	}
	clean := cleanName(tenant)
	room := 64 - len(cp) - len("--") - len("-") - 2*hashBytes
	return cp + "--" + clean[:min(len(clean), room)] + "-" + nameHash(tenant)
}

// collectionPart is the part of tenant names that names collection.
func collectionPart(collection string) string {
	clean := cleanName(collection)
	if clean == collection && len(collection) <= maxCollectionPart && collection != "" {
		return collection
	}
	return clean[:min(len(clean), maxCollectionPart-len("-")-2*hashBytes)] + "-" + nameHash(collection)
}

// hashBytes is the bytes of a name's hash in a tenant's name (in hex digits: twice as many).
const hashBytes = 6

func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:hashBytes])
}

// cleanName returns name with each byte out of [A-Za-z0-9_] as "_".
func cleanName(name string) string {
	clean := []byte(name)
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			clean[i] = '_'
		}
	}
	return string(clean)
}
