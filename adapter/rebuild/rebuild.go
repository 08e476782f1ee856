// Package rebuild recomputes the context memory of a collection from the
// objects stored in Weaviate (the "text2vec-am memory rebuild" command): it
// reads them through Weaviate's cursor API as refresh does, assembles each
// object's text as refresh does (package refresh), and teaches every text as
// an import with teaching on would: the contexts of its rare words and, under
// sif-collection, one passage count per distinct text.
//
// The memory is a set function of the texts (bottom-k contexts, passages
// counted once by content hash), so a rebuild gives the same memory whatever
// the order of the objects, and rebuilding twice changes nothing.
package rebuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/model"
)

// Options configure one rebuild. Exactly one of MemoryDir, ModuleDir and
// Weaviate names the memory rebuilt.
type Options struct {
	// Source is the collection read: Weaviate, Class, Tenant, APIKey,
	// Batch, LowerCase, Targets and HTTP as refresh reads them. A
	// multi-tenant collection with no Tenant is read tenant by tenant.
	Source refresh.Options
	// Model is the model whose tokenizer and vocabulary decide which words
	// are rare (the one the vectorizer serves).
	Model *model.Model
	// ModelName is the model's name as serve's /meta reports it: a memory
	// directory rebuilt records it with the model's vocabulary fingerprint
	// (memory.ClaimModel), as serve and memory warm do.
	ModelName string
	// Vectorizer are the vectorizer options imports ran with: serve's flags,
	// or the module's defaults, which a text2vec-am collection's own
	// settings override.
	Vectorizer vectorizer.Options
	// Memory are the options the local memory is opened with.
	Memory memory.Options
	// MemoryDir is the memory of `text2vec-am serve --memory-dir` (the stock
	// path: vectors made by the stock modules that call serve, refresh.Modules).
	MemoryDir string
	// ModuleDir is the in-process module's memory directory
	// (<Weaviate data path>/text2vec-am-memory): the collection's own memory
	// there, of Source.Tenant when set (vectors made by text2vec-am).
	ModuleDir string
	// Weaviate is the memory kept in Weaviate (package weaviatemem), taught
	// through its store with the options of Memory: serve's one shared
	// scope (`serve --memory-weaviate`, the stock path), or with
	// ModuleScopes the in-process module's scope of the collection, of
	// each tenant read, whose passages count in the shared scope too
	// (TEXT2VEC_AM_MEMORY_WEAVIATE, vectors made by text2vec-am). Its
	// Replicas 0 keeps the factor of the collection that exists, or creates
	// it with one replica on each of Weaviate's nodes and logs the factor
	// (weaviatemem.Options.Replicas).
	Weaviate     *weaviatemem.Options
	ModuleScopes bool
	// Flush is the number of texts taught to the memory in Weaviate in one
	// request (default 256).
	Flush int
	// Progress receives a line at most every ProgressEvery (default 2 s)
	// while objects are read; nil: none.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// ErrTarget marks options that name no memory, or more than one.
var ErrTarget = errors.New("name exactly one memory to rebuild")

// Result says what a rebuild did.
type Result struct {
	refresh.WalkStats
	Class string `json:"class"`
	// Targets names the vectors whose texts were taught ("" is the class
	// vector); Modules the vectorizer module that makes each.
	Targets []string `json:"targets"`
	Modules []string `json:"modules"`
	// Follow names the vectors read that the memory rebuilt makes, the ones
	// to refresh after it: Targets and the text2vec-am vectors whose imports
	// do not teach (they read the same memory). Others names the vectors
	// read that another memory makes (text2vec-am's for serve's memory, the
	// stock modules' for the module's): the rebuild taught nothing from
	// them, and refreshing them is another memory's business.
	Follow []string `json:"follow"`
	Others []string `json:"others,omitempty"`
	// VectorizerURL is the text2vec-am server that the collection's settings
	// name for a vector taught that a stock module makes (inferenceUrl,
	// passageInferenceUrl or baseURL; as Weaviate reaches it), "" when none
	// names one: refresh's --vectorizer for those vectors.
	VectorizerURL string `json:"vectorizer_url,omitempty"`
	// Taught counts the texts taught; Refused those over max-am-words, which
	// an import refuses and which teach nothing.
	Taught  int `json:"taught"`
	Refused int `json:"refused"`
	// Tenants names the tenants read (none: the collection is not
	// multi-tenant).
	Tenants []string `json:"tenants,omitempty"`
	// NewPassages counts the passages the rebuild counted (not counted
	// before); Memories are the summaries of the local memories taught, one
	// per tenant of the module's memory of a multi-tenant collection.
	NewPassages int64          `json:"new_passages"`
	Memories    []memory.Stats `json:"memories,omitempty"`
	// Written counts the objects written to the memory in Weaviate (none
	// when it held all the rebuild teaches already); Scopes are the copies
	// of the scopes taught (and of the shared scope counting their
	// passages) after the rebuild.
	Written int64                          `json:"written,omitempty"`
	Scopes  map[string]memstore.ScopeStats `json:"scopes,omitempty"`
}

// Run rebuilds the memory o names from the collection's objects.
func Run(ctx context.Context, o Options) (Result, error) {
	var res Result
	if n := countTrue(o.MemoryDir != "", o.ModuleDir != "", o.Weaviate != nil); n != 1 {
		return res, fmt.Errorf("%w (a memory directory, the module's memory directory or "+
			"the memory kept in Weaviate; %d given)", ErrTarget, n)
	}
	if o.ModuleScopes && o.Weaviate == nil {
		return res, fmt.Errorf("%w: the module's scopes are those of the memory kept in Weaviate", ErrTarget)
	}
	if o.Model == nil {
		return res, errors.New("no model")
	}
	if err := o.Vectorizer.Validate(); err != nil {
		return res, fmt.Errorf("vectorizer options: %w", err)
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 2 * time.Second
	}
	coll, err := refresh.ReadCollection(ctx, o.Source)
	if err != nil {
		return res, err // ReadCollection says what it could not read
	}
	res.Class = coll.Class()
	plan, err := planTargets(coll, o)
	if err != nil {
		return res, err
	}
	scopes, err := tenantScopes(ctx, coll)
	if err != nil {
		return res, err
	}
	s, err := openSink(ctx, o, coll.Class())
	if err != nil {
		return res, err
	}
	for _, t := range coll.Targets() {
		if (t.Module == refresh.ModuleAM) == o.module() {
			res.Follow = append(res.Follow, t.Name)
		} else {
			res.Others = append(res.Others, t.Name)
		}
	}
	for _, p := range plan {
		res.Targets = append(res.Targets, p.name)
		res.Modules = append(res.Modules, p.module)
		if res.VectorizerURL == "" {
			res.VectorizerURL = p.url
		}
	}
	for _, sc := range scopes {
		if err = walkScope(ctx, &o, s, sc, plan, &res); err != nil {
			break
		}
	}
	if cerr := s.close(&res); err == nil {
		err = cerr
	}
	return res, err
}

// tenantScopes returns coll, or, for a multi-tenant collection read with
// no tenant named, coll read as each of its tenants.
func tenantScopes(ctx context.Context, coll *refresh.Collection) ([]*refresh.Collection, error) {
	if !coll.MultiTenant() || coll.Tenant() != "" {
		return []*refresh.Collection{coll}, nil
	}
	names, err := coll.Tenants(ctx)
	if err != nil {
		return nil, err // Tenants names the class and what failed
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("class %s is multi-tenant and has no tenants", coll.Class())
	}
	out := make([]*refresh.Collection, len(names))
	for i, n := range names {
		out[i] = coll.ForTenant(n)
	}
	return out, nil
}

// walkScope teaches s the objects of one collection or tenant.
func walkScope(ctx context.Context, o *Options, s sink, sc *refresh.Collection, plan []plan, res *Result) error {
	if err := s.scope(sc.Tenant()); err != nil {
		return err
	}
	scope := sc.Class()
	if sc.Tenant() != "" {
		res.Tenants = append(res.Tenants, sc.Tenant())
		scope += " tenant " + sc.Tenant()
	}
	before, last, seen := s.passages(), time.Now(), 0
	ws, err := sc.Walk(ctx, func(obj refresh.Object) error {
		if seen++; o.Progress != nil && time.Since(last) >= o.ProgressEvery {
			last = time.Now()
			fmt.Fprintf(o.Progress, "rebuild %s: %d objects with text read, %d texts taught in all\n", scope, seen, res.Taught)
		}
		for _, p := range plan {
			if text := obj.Texts[p.index]; text != "" {
				if err := s.teach(ctx, p, text, res); err != nil {
					return fmt.Errorf("object %s (%s): %w", obj.ID, p.label(), err)
				}
			}
		}
		return nil
	})
	res.Read, res.Empty, res.Repeated = res.Read+ws.Read, res.Empty+ws.Empty, res.Repeated+ws.Repeated
	if err == nil {
		err = s.flush(ctx, res)
	}
	res.NewPassages += s.passages() - before
	if err != nil && sc.Tenant() != "" {
		return fmt.Errorf("%w (%s)", err, scope)
	}
	return err
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// plan is one target taught: its options and the collection its passages
// count for ("" = none: the stock path's requests name none).
type plan struct {
	index      int
	name       string
	module     string
	url        string // the text2vec-am server a stock module's settings name
	opts       vectorizer.Options
	collection string
}

func (p plan) label() string {
	if p.name == "" {
		return "the class vector"
	}
	return fmt.Sprintf("named vector %q", p.name)
}

// planTargets returns the targets whose imports taught the memory o names:
// text2vec-am's (with the collection's settings, unless it does not teach)
// for the module's memory, the stock modules' for serve's memory.
func planTargets(coll *refresh.Collection, o Options) ([]plan, error) {
	var out []plan
	var skipped []string
	for i, t := range coll.Targets() {
		am := t.Module == refresh.ModuleAM
		if (o.module() && !am) || (o.serve() && am) {
			skipped = append(skipped, fmt.Sprintf("%s by %s", plan{name: t.Name}.label(), t.Module))
			continue
		}
		p := plan{index: i, name: t.Name, module: t.Module, opts: o.Vectorizer}
		if !am {
			p.url = serverURL(t.Settings)
		}
		if am {
			p.collection = coll.Class()
			opts, teach, err := moduleOptions(o.Vectorizer, t.Settings)
			if err != nil {
				return nil, fmt.Errorf("%s of class %s: %w", p.label(), coll.Class(), err)
			}
			if !teach {
				skipped = append(skipped, fmt.Sprintf("%s (its imports do not teach)", p.label()))
				continue
			}
			p.opts = opts
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		where := "serve's memory (--memory-dir, --memory-weaviate) holds the stock modules' contexts"
		if o.serve() {
			where = "the in-process module's memory (--module-memory, --memory-weaviate --module-scopes) holds text2vec-am's contexts"
		}
		return nil, fmt.Errorf("%w: class %s has no vector whose imports teach this memory (%v): %s",
			refresh.ErrSchema, coll.Class(), skipped, where)
	}
	return out, nil
}

// serverURL returns the URL of the server that a stock module's settings
// name ("" when they name none).
func serverURL(settings map[string]any) string {
	for _, key := range []string{"inferenceUrl", "passageInferenceUrl", "baseURL"} {
		if u, _ := settings[key].(string); u != "" {
			return u
		}
	}
	return ""
}

// module reports whether o names the in-process module's memory, which
// text2vec-am's imports teach.
func (o Options) module() bool { return o.ModuleDir != "" || (o.Weaviate != nil && o.ModuleScopes) }

// serve reports whether o names serve's memory, which the stock modules'
// imports teach.
func (o Options) serve() bool { return o.MemoryDir != "" || (o.Weaviate != nil && !o.ModuleScopes) }

// settingTeach is the text2vec-am collection setting that turns teaching
// off for a collection's imports.
const settingTeach = "teach"

// moduleOptions applies a text2vec-am collection's settings to the
// module's defaults as the module does, and says whether its imports teach.
func moduleOptions(defaults vectorizer.Options, settings map[string]any) (vectorizer.Options, bool, error) {
	teach := true
	if b, ok := settings[settingTeach].(bool); ok {
		teach = b
	}
	known := vectorizer.Names(vectorizer.SurfaceModuleConfig)
	over := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		if slices.Contains(known, name) {
			over[name] = settings[name]
		}
	}
	if len(over) == 0 {
		return defaults, teach, nil
	}
	opts, err := defaults.WithValues(vectorizer.SurfaceModuleConfig, over)
	if err != nil {
		return defaults, teach, fmt.Errorf("settings: %s", vectorizer.Describe(err, vectorizer.SurfaceModuleConfig))
	}
	return opts, teach, nil
}
