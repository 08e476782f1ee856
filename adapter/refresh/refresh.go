package refresh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/model"
)

// Options configure one refresh.
type Options struct {
	// Weaviate is the base URL of Weaviate's REST API, e.g. http://127.0.0.1:8080.
	Weaviate string
	// Class is the collection.
	Class string
	// Targets are the named vectors to refresh; empty: every one made by a
	// module refresh knows (or the class vector).
	Targets []string
	// Vectorizer is the base URL of a text2vec-am server (its /vectors/batch).
	// Empty: for the in-process module, Weaviate's module endpoint
	// <Weaviate>/v1/modules/text2vec-am; for the other modules it is required.
	Vectorizer string
	// All writes every object's vector; otherwise only the vectors that
	// differ from the vectorizer's current ones (cosine < 1 − Tolerance;
	// 0 means DefaultTolerance).
	All       bool
	Tolerance float64
	// Batch is the number of objects per page, vectorizer call and write.
	Batch int
	// State is a file recording the cursor after every written page; a run
	// with the same State resumes after it. Empty: no state.
	State string
	// LowerCase mirrors Weaviate's LOWERCASE_VECTORIZATION_INPUT.
	LowerCase bool
	// Tenant is the tenant of a multi-tenant collection.
	Tenant string
	// APIKey is Weaviate's API key, sent as "Authorization: Bearer APIKey"
	// on every call to Weaviate (never to a separate Vectorizer); empty:
	// anonymous.
	APIKey string
	// Progress receives one line per page (at most every ProgressEvery) and a
	// summary; nil: none.
	Progress      io.Writer
	ProgressEvery time.Duration
	// HTTP is the client (default: one with a 5-minute timeout).
	HTTP *http.Client
}

// Stats count one refresh (a resumed run includes the runs before it).
type Stats struct {
	Read      int `json:"read"`      // objects listed
	Updated   int `json:"updated"`   // objects written with new vectors
	Unchanged int `json:"unchanged"` // objects whose vectors were current
	Empty     int `json:"empty"`     // objects with no text to vectorize (no vector, as Weaviate)
	Failed    int `json:"failed"`    // objects the vectorizer gave no vector (left as they are)
	// Repeated counts objects the cursor listed again within a pass (ids not
	// after the cursor): they are not processed twice, and their presence
	// makes refresh check the collection with another pass.
	Repeated int `json:"repeated"`
	// Passes is the number of passes over the collection.
	Passes int `json:"passes"`
	// Elapsed is this run's time.
	Elapsed time.Duration `json:"-"`
}

// DefaultTolerance is the Tolerance when none is given: vectors computed
// from the same memory by different requests agree to about 1e-12 in
// cosine, so only a real change of the memory moves a vector past it.
const DefaultTolerance = 1e-6

// ErrSchema marks a collection refresh cannot work on.
var ErrSchema = errors.New("unsuitable collection")

// Run refreshes the collection's vectors. It returns the counts so far with
// any error; with a State file the next run continues where it stopped.
func Run(ctx context.Context, o Options) (Stats, error) {
	if err := o.defaults(); err != nil {
		return Stats{}, err
	}
	raw, err := o.readClass(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("read the definition of class %s: %w", o.Class, err)
	}
	class, targets, err := parseTargets(raw, o.Targets, o.LowerCase)
	if err != nil {
		return Stats{}, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	vecURLs := make([]string, len(targets))
	for i, t := range targets {
		switch {
		case o.Vectorizer != "":
			vecURLs[i] = o.Vectorizer + "/vectors/batch"
		case t.Module == ModuleAM:
			vecURLs[i] = o.Weaviate + "/v1/modules/" + ModuleAM + "/vectors/batch"
		default:
			return Stats{}, fmt.Errorf("%w: %s of class %s is made by %s, which calls a text2vec-am server: give its URL (--vectorizer)", ErrSchema, t.label(), class, t.Module)
		}
	}
	st, err := loadState(o.State, class, targets)
	if err != nil {
		return Stats{}, err
	}
	r := &run{o: o, class: class, targets: targets, vecURLs: vecURLs, state: st, start: time.Now()}
	err = r.loop(ctx)
	r.state.Stats.Elapsed = time.Since(r.start)
	r.report(true)
	return r.state.Stats, err
}

func (o *Options) defaults() error {
	if o.Weaviate == "" || o.Class == "" {
		return errors.New("the Weaviate URL and the class are required")
	}
	o.Weaviate = strings.TrimRight(o.Weaviate, "/")
	o.Vectorizer = strings.TrimRight(o.Vectorizer, "/")
	if err := checkBaseURL("the Weaviate URL", o.Weaviate); err != nil {
		return err
	}
	if o.Vectorizer != "" {
		if err := checkBaseURL("the vectorizer URL", o.Vectorizer); err != nil {
			return err
		}
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.Batch > 1000 {
		return fmt.Errorf("batch %d is more than 1,000 (a vectorizer batch takes at most 1,024 texts)", o.Batch)
	}
	if err := checkAPIKey(o.APIKey); err != nil {
		return err
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.Tolerance < 0 || o.Tolerance >= 1 || math.IsNaN(o.Tolerance) {
		return fmt.Errorf("tolerance %v outside [0, 1)", o.Tolerance)
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 5 * time.Minute}
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 2 * time.Second
	}
	return nil
}

// checkBaseURL refuses a base URL that is not http:// or https:// with a
// host, naming it as what (its password redacted).
func checkBaseURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	return fmt.Errorf("%s %s: want http://host:port or https://host:port", what, weaviateapi.Redact(raw))
}

// run is one refresh in progress.
type run struct {
	o          Options
	class      string
	targets    []Target
	vecURLs    []string
	state      *state
	start      time.Time
	lastReport time.Time
	readAtRun  int  // objects read before this run (resumed)
	textOnly   bool // list objects without their vectors (Walk)
}

// maxPasses bounds the passes over a collection whose cursor moved while
// refresh wrote. Weaviate's cursor walks an LSM store that the writes (and
// any concurrent import) change; refresh does not assume it lists each
// object exactly once: ids not after the cursor are skipped, and a pass that
// met any, or read fewer objects than the collection holds at its end, is
// followed by a check pass that writes only changed vectors.
const maxPasses = 4

// maxStalledPages bounds the pages in a row that list nothing after the
// cursor (a moving cursor may jump back once; a server that ignores "after"
// would list the same page forever).
const maxStalledPages = 3

func (r *run) loop(ctx context.Context) error {
	r.readAtRun = r.state.Stats.Read
	if r.state.Pass > 0 {
		r.o.All = false // a resumed check pass
	}
	for {
		if err := r.pass(ctx); err != nil {
			return err
		}
		r.state.Stats.Passes = r.state.Pass + 1
		total, err := r.count(ctx)
		if err != nil {
			return err
		}
		clean := r.state.PassRepeated == 0 && r.state.PassRead >= total
		if clean || r.state.Pass+1 >= maxPasses {
			if !clean && r.o.Progress != nil {
				fmt.Fprintf(r.o.Progress, "refresh: after %d passes the cursor still lists %d objects again or misses some (%d read of %d): run refresh again\n",
					maxPasses, r.state.PassRepeated, r.state.PassRead, total)
			}
			r.state.Done = true
			return r.state.save(r.o.State)
		}
		// Check the whole collection again: only changed vectors are written.
		if r.o.Progress != nil {
			fmt.Fprintf(r.o.Progress, "refresh: pass %d listed %d objects again and read %d of %d: checking the collection again\n",
				r.state.Pass+1, r.state.PassRepeated, r.state.PassRead, total)
		}
		r.state.Pass++
		r.state.After, r.state.PassRead, r.state.PassRepeated = "", 0, 0
		r.o.All = false
	}
}

// pass walks the collection once from the cursor.
func (r *run) pass(ctx context.Context) error {
	stalled := 0 // pages in a row that did not move the cursor
	for {
		page, fresh, err := r.next(ctx)
		if err != nil || len(page) == 0 {
			return err
		}
		repeated := len(page) - len(fresh)
		r.state.Stats.Repeated += repeated
		r.state.PassRepeated += repeated
		if err := r.page(ctx, fresh); err != nil {
			return err
		}
		r.state.PassRead += len(fresh)
		if err := r.advance(page, &stalled); err != nil {
			return err
		}
		if err := r.state.save(r.o.State); err != nil {
			return err
		}
		r.report(false)
	}
}

// next lists the page after the cursor and returns it with the objects
// on it not listed before: ids come in ascending order, so one not after
// the cursor was.
func (r *run) next(ctx context.Context) (page, fresh []weaviateapi.Object, err error) {
	if page, err = r.list(ctx); err != nil {
		return nil, nil, err
	}
	for _, o := range page {
		if r.state.After == "" || strings.ToLower(o.ID) > r.state.After {
			fresh = append(fresh, o)
		}
	}
	return page, fresh, nil
}

// advance moves the cursor to the last id of page; stalled counts the
// pages in a row that did not move it, and too many is an error.
func (r *run) advance(page []weaviateapi.Object, stalled *int) error {
	if l := strings.ToLower(page[len(page)-1].ID); l > r.state.After {
		r.state.After, *stalled = l, 0
	} else if *stalled++; *stalled >= maxStalledPages {
		return fmt.Errorf("list %s after %q: %d pages in a row end at or before the cursor: the server does not move it", r.class, r.state.After, *stalled)
	}
	return nil
}

// count returns the number of objects in the collection.
func (r *run) count(ctx context.Context) (int, error) {
	n, err := weaviateapi.Count(ctx, r.o.call, r.class, r.o.Tenant)
	if err != nil {
		return 0, fmt.Errorf("count the objects: %w", err)
	}
	return n, nil
}

// list returns the next page of objects after the cursor, with vectors.
func (r *run) list(ctx context.Context) ([]weaviateapi.Object, error) {
	objs, err := weaviateapi.List(ctx, r.o.call, r.class, r.o.Tenant, r.state.After, r.o.Batch, !r.textOnly)
	if err != nil {
		return nil, fmt.Errorf("list the objects: %w", err)
	}
	return objs, nil
}

// page vectorizes one page for every target and writes the objects whose
// vectors changed.
func (r *run) page(ctx context.Context, objs []weaviateapi.Object) error {
	fresh := make([][][]float32, len(r.targets)) // fresh[t][i]: target t's new vector of objs[i]
	failed := make([]bool, len(objs))
	texted := make([]bool, len(objs)) // some target has text for objs[i]
	for ti, t := range r.targets {
		vecs, fails, err := r.vectorize(ctx, ti, t, objs)
		if err != nil {
			return err
		}
		fresh[ti] = vecs
		for i := range objs {
			failed[i] = failed[i] || fails[i]
			texted[i] = texted[i] || vecs[i] != nil || fails[i]
		}
	}
	var writes []map[string]any
	for i := range objs {
		r.state.Stats.Read++
		switch {
		case failed[i]:
			r.state.Stats.Failed++
			continue
		case !texted[i]:
			r.state.Stats.Empty++
			continue
		}
		w, changed := r.rewrite(&objs[i], fresh, i)
		if !changed {
			r.state.Stats.Unchanged++
			continue
		}
		writes = append(writes, w)
	}
	if len(writes) == 0 {
		return nil
	}
	if err := r.write(ctx, writes); err != nil {
		return err
	}
	r.state.Stats.Updated += len(writes)
	return nil
}

// rewrite returns obj as it is with the new vectors, and whether any of
// them differs from the stored one (always with All).
func (r *run) rewrite(obj *weaviateapi.Object, fresh [][][]float32, i int) (map[string]any, bool) {
	changed := r.o.All
	named := map[string]any{}
	for name, raw := range obj.Vectors {
		named[name] = raw
	}
	w := map[string]any{"class": r.class, "id": obj.ID, "properties": obj.Properties}
	if r.o.Tenant != "" {
		w["tenant"] = r.o.Tenant
	}
	for ti, t := range r.targets {
		v := fresh[ti][i]
		if v == nil {
			continue
		}
		if !changed {
			changed = model.Cosine(obj.VectorOf(t.Name), v) < 1-r.o.Tolerance
		}
		if t.Name == "" {
			w["vector"] = v
		} else {
			named[t.Name] = v
		}
	}
	if len(named) > 0 {
		w["vectors"] = named
	}
	return w, changed
}

// batchVectors is the answer of a text2vec-am server's /vectors/batch.
type batchVectors struct {
	Dims    int         `json:"dims"`
	Vectors [][]float32 `json:"vectors"`
	Errors  []*string   `json:"errors"`
}

// vectorize returns target t's current vector of every object (nil for an
// object with no text, or one the vectorizer refused: fails[i]).
func (r *run) vectorize(ctx context.Context, ti int, t Target, objs []weaviateapi.Object) ([][]float32, []bool, error) {
	vecs := make([][]float32, len(objs))
	fails := make([]bool, len(objs))
	var texts []string
	var index []int
	for i := range objs {
		text, isEmpty := t.Text.Text(r.class, objs[i].Properties)
		if isEmpty {
			continue
		}
		texts = append(texts, text)
		index = append(index, i)
	}
	if len(texts) == 0 {
		return vecs, fails, nil
	}
	body := map[string]any{"texts": texts, "config": map[string]any{"task_type": "query"}}
	if t.Module == ModuleAM {
		body = map[string]any{"texts": texts, "settings": t.Settings, "collection": r.class}
	}
	var ans batchVectors
	var err error
	if r.o.Vectorizer == "" { // Weaviate's endpoint of the in-process module
		err = r.o.callWeaviate(ctx, http.MethodPost, r.vecURLs[ti], body, &ans)
	} else {
		err = weaviateapi.Call(ctx, r.o.HTTP, http.MethodPost, r.vecURLs[ti], "", body, &ans)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("vectorize %d objects of %s (%s): %w", len(texts), r.class, t.label(), err)
	}
	if len(ans.Vectors) != len(texts) {
		return nil, nil, fmt.Errorf("the vectorizer returned %d vectors for %d texts", len(ans.Vectors), len(texts))
	}
	if err := checkDims(ans, objs, index); err != nil {
		return nil, nil, fmt.Errorf("vectorize %d objects of %s (%s): %w", len(texts), r.class, t.label(), err)
	}
	for j, i := range index {
		if ans.Vectors[j] == nil {
			fails[i] = true
			if r.state.Stats.Failed < 5 && r.o.Progress != nil {
				msg := "no vector"
				if j < len(ans.Errors) && ans.Errors[j] != nil {
					msg = *ans.Errors[j]
				}
				fmt.Fprintf(r.o.Progress, "refresh: object %s (%s) keeps its vector: %s\n", objs[i].ID, t.label(), msg)
			}
			continue
		}
		vecs[i] = ans.Vectors[j]
	}
	return vecs, fails, nil
}

// checkDims refuses an answer whose vectors are not all of one length, the
// "dims" it gives (when it gives one), and not empty: written, an empty
// vector would take the object's vector away, and one of another length
// fail at Weaviate after the objects before it.
func checkDims(ans batchVectors, objs []weaviateapi.Object, index []int) error {
	want, what := ans.Dims, "the answer's \"dims\""
	for j, v := range ans.Vectors {
		if v == nil {
			continue
		}
		if want <= 0 {
			want, what = len(v), "the length of the vector before it"
		}
		if len(v) == 0 {
			return fmt.Errorf("the vectorizer returned an empty vector for object %s", objs[index[j]].ID)
		}
		if len(v) != want {
			return fmt.Errorf("the vectorizer returned a vector of %d dimensions for object %s, want %d (%s)",
				len(v), objs[index[j]].ID, want, what)
		}
	}
	return nil
}

// write sends the rewritten objects in one batch and fails on any object
// Weaviate refused.
func (r *run) write(ctx context.Context, writes []map[string]any) error {
	if err := weaviateapi.Batch(ctx, r.o.call, writes, ""); err != nil {
		return fmt.Errorf("write the vectors of %s: %w", r.class, err)
	}
	return nil
}

// report prints a progress line (at most every ProgressEvery) or, when
// final, the summary.
func (r *run) report(final bool) {
	if r.o.Progress == nil || (!final && time.Since(r.lastReport) < r.o.ProgressEvery) {
		return
	}
	r.lastReport = time.Now()
	s := r.state.Stats
	el := time.Since(r.start)
	rate := float64(s.Read-r.readAtRun) / math.Max(el.Seconds(), 1e-9)
	word := "refresh"
	if final {
		word = "refresh done"
		if !r.state.Done {
			word = "refresh stopped"
		}
	}
	fmt.Fprintf(r.o.Progress, "%s %s: %d objects read, %d updated, %d unchanged, %d without text, %d without a vector · %.0f objects/s, %v\n",
		word, r.class, s.Read, s.Updated, s.Unchanged, s.Empty, s.Failed, rate, el.Round(time.Millisecond))
}
