// Package module is text2vec-am as an in-process Weaviate v1.39.0 module: a
// text2vec vectorizer that embeds objects with Attentive Mimicking, using the
// same vectorizer and persistent context memory as the text2vec-am adapter
// (adapter/vectorizer, adapter/memory), without any HTTP hop.
//
// It is modelled on Weaviate's text2vec-model2vec and reuses Weaviate's
// module components (usecases/modulecomponents) the same way, so class
// names, property selection, skip and vectorizePropertyName behave exactly
// as in Weaviate's other text2vec modules.
//
// Weaviate has no plugin mechanism; `text2vec-am build-weaviate` (package
// module/buildweaviate) builds a weaviate-server that registers this module
// when ENABLE_MODULES names text2vec-am. The server-wide configuration comes
// from environment variables (see LoadEnvConfig), the per-collection settings
// from moduleConfig (weighting, sifA, frequentMin, rareMin, maxContexts,
// teach).
package module

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"
	objectsvectorizer "github.com/weaviate/weaviate/usecases/modulecomponents/vectorizer"
	libvectorizer "github.com/weaviate/weaviate/usecases/vectorizer"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// Name is the module's name in ENABLE_MODULES and in collection settings.
const Name = "text2vec-am"

// memoryDirName is the default memory directory inside Weaviate's data path.
const memoryDirName = "text2vec-am-memory"

// Module is the text2vec-am Weaviate module. Create it with New; Weaviate
// calls Init and InitExtension before use.
type Module struct {
	env       EnvConfig
	modelName string
	vec       *vectorizer.Vectorizer
	mem       *memory.Memory      // nil: no memory of this node's own
	remote    *weaviatemem.Store  // the cluster's memory kept in Weaviate (TEXT2VEC_AM_MEMORY_WEAVIATE); nil: none
	colls     *memory.Collections // the memory (contexts and passage counts) of each collection and tenant, beside mem
	empty     *memory.Memory      // an empty memory: what a query of a collection never taught reads
	cacheMu   sync.Mutex
	caches    map[string]*vectorizer.Cache // AM vectors of each collection's and tenant's memory
	objects   *objectsvectorizer.ObjectVectorizer
	adm       *gate // of the module's own endpoints (RootHandler)
	logger    logrus.FieldLogger

	nearTextTransformer modulecapabilities.TextTransform
	searcher            *nearText.Searcher[[]float32]
	graphqlProvider     *nearText.GraphQLArgumentsProvider
	additionalProvider  modulecapabilities.AdditionalProperties
}

// New returns an uninitialized module.
func New() *Module {
	return &Module{objects: objectsvectorizer.New(), adm: newGate(),
		additionalProvider: additional.NewText2VecProvider()}
}

// Name returns "text2vec-am".
func (m *Module) Name() string { return Name }

// Type says the module is a text-to-vector module.
func (m *Module) Type() modulecapabilities.ModuleType { return modulecapabilities.Text2Vec }

// Init loads the model and opens the context memory as the environment says.
func (m *Module) Init(ctx context.Context, params moduletools.ModuleInitParams) error {
	m.logger = params.GetLogger()
	if u, ok := simd.UnavailableSet(); ok {
		m.logger.WithFields(logrus.Fields{"T2V_SIMD": u.Want, "available": u.Available, "using": u.Using}).
			Warn(simd.UnavailableMessage)
	}
	env, err := LoadEnvConfig(os.Getenv)
	if err != nil {
		return fmt.Errorf("init %s: %w", Name, err)
	}
	for _, w := range env.Warnings {
		m.logger.Warn(w)
	}
	dataPath := ""
	if sp := params.GetStorageProvider(); sp != nil {
		dataPath = sp.DataPath()
	}
	return m.initWith(env, dataPath)
}

// initWith loads the model and opens the memory; dataPath is Weaviate's
// persistence directory (the default home of the memory).
func (m *Module) initWith(env EnvConfig, dataPath string) error {
	m.env = env
	mdl, name, err := loadModel(env.ModelPath)
	if err != nil {
		return fmt.Errorf("init %s: %w", Name, err)
	}
	m.modelName = name

	dir := env.MemoryDir
	if env.Weaviate != nil {
		if err := m.openWeaviate(*env.Weaviate); err != nil {
			return err
		}
		dir = MemoryOff
	}
	if dir == "" {
		if dataPath == "" {
			return fmt.Errorf("init %s: no memory directory: set %s (or %s=%s) or Weaviate's PERSISTENCE_DATA_PATH", Name, EnvMemoryDir, EnvMemoryDir, MemoryOff)
		}
		dir = filepath.Join(dataPath, memoryDirName)
	}
	var store vectorizer.ContextStore
	if dir != MemoryOff {
		opts := memory.DefaultOptions()
		opts.Sync = env.MemorySync
		mem, err := memory.Open(dir, opts)
		if err != nil {
			return fmt.Errorf("init %s: open context memory %s (%s): %w", Name, dir, EnvMemoryDir, err)
		}
		m.mem = mem
		store = mem
		m.claimMemory(mdl, name)
		m.colls = memory.NewCollections(dir, opts, memory.MaxCollections)
		m.caches = map[string]*vectorizer.Cache{}
		ro := opts
		ro.ReadOnly = true
		if m.empty, err = memory.Open("", ro); err != nil {
			mem.Close()
			return fmt.Errorf("init %s: %w", Name, err)
		}
	}
	vec, err := vectorizer.New(mdl, store, env.Defaults)
	if err != nil {
		m.closeMemory()
		return fmt.Errorf("init %s: %w", Name, err)
	}
	m.vec = vec
	if m.logger != nil && m.mem == nil && m.remote == nil && env.Defaults.Weighting == vectorizer.WeightSIFCollection {
		m.logger.WithField("module", Name).Warnf("%s=%s: the passage counts of weighting %s live in RAM and are lost at restart, "+
			"after which queries are weighted differently from the stored vectors; set %s=sif for a memory-less setup",
			EnvMemoryDir, MemoryOff, env.Defaults.Weighting, EnvWeighting)
	}
	if m.logger != nil {
		m.logger.WithField("module", Name).WithField("model", name).WithField("dim", vec.Dim()).
			WithField("memory", dir).Info("text2vec-am ready")
	}
	return nil
}

// claimMemory records in the memory's directory that mdl, loaded as name,
// writes it (memory.ClaimModel), and warns when another model wrote it.
func (m *Module) claimMemory(mdl *model.Model, name string) {
	id := memory.ModelID{Name: name, Fingerprint: mdl.Base.VocabularyFingerprint()}
	rec, err := m.mem.ClaimModel(id)
	if m.logger == nil {
		return
	}
	log := m.logger.WithField("module", Name)
	switch {
	case err != nil:
		log.WithError(err).Warn("the context memory's model is not known")
	case rec.Fingerprint != id.Fingerprint:
		log.Warnf("the context memory in %s was written with model %s, not %s: it holds contexts of the words "+
			"that model's vocabulary chose; warm it again with this model, or clear it", m.mem.Stats().Dir, rec, id)
	}
}

// loadModel loads the model at path, or the embedded default when path is empty.
func loadModel(path string) (*model.Model, string, error) {
	mdl, err := defaultmodel.Open(path)
	switch {
	case err != nil && defaultmodel.IsDefault(path):
		return nil, "", fmt.Errorf("%w (set %s to a model file)", err, EnvModel)
	case err != nil:
		return nil, "", fmt.Errorf("%w (%s)", err, EnvModel)
	case defaultmodel.IsDefault(path):
		return mdl, defaultmodel.Name, nil
	case mdl.Base == nil:
		return nil, "", fmt.Errorf("model %s (%s) holds %w", path, EnvModel, defaultmodel.ErrNotBundle)
	}
	return mdl, path, nil
}

// InitExtension picks up a nearText transformer from other modules and sets
// up nearText, as text2vec-model2vec does.
func (m *Module) InitExtension(modules []modulecapabilities.Module) error {
	for _, module := range modules {
		if module.Name() == m.Name() {
			continue
		}
		if arg, ok := module.(modulecapabilities.TextTransformers); ok && arg != nil && arg.TextTransformers() != nil {
			m.nearTextTransformer = arg.TextTransformers()["nearText"]
		}
	}
	m.searcher = nearText.NewSearcher[[]float32](m)
	m.graphqlProvider = nearText.New(m.nearTextTransformer)
	return nil
}

// Close closes the context memory (fsync and snapshot).
func (m *Module) Close() error {
	return m.closeMemory()
}

func (m *Module) closeMemory() error {
	var err error
	if m.remote != nil {
		err = m.remote.Close()
	}
	if m.mem == nil {
		return err
	}
	if m.colls != nil {
		err = m.colls.Close()
	}
	if cerr := m.mem.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return fmt.Errorf("close %s context memory: %w", Name, err)
	}
	return nil
}

// request is how one collection vectorizes.
type request struct {
	settings *classSettings
	opts     vectorizer.Options
	task     vectorizer.Task // for objects: passage when the collection teaches, else query
}

func (m *Module) request(cfg moduletools.ClassConfig) (request, error) {
	s := newClassSettings(cfg)
	opts, teach, err := s.options(m.env)
	if err != nil {
		return request{}, err
	}
	task := vectorizer.TaskQuery
	if teach {
		task = vectorizer.TaskPassage
	}
	return request{settings: s, opts: opts, task: task}, nil
}

// VectorizeObject returns the vector of obj's text (nil for an object with
// no text, as Weaviate's other text2vec modules).
func (m *Module) VectorizeObject(ctx context.Context, obj *models.Object, cfg moduletools.ClassConfig) ([]float32, models.AdditionalProperties, error) {
	req, err := m.request(cfg)
	if err != nil {
		return nil, nil, err
	}
	text, empty := m.objects.Texts(ctx, obj, req.settings)
	if empty {
		return nil, nil, nil
	}
	ctx = withTenant(ctx, obj.Tenant)
	vecs, errs, err := m.vectorizeTexts(ctx, obj.Class, []string{text}, req.task, req.opts.ForObjects())
	if err == nil {
		err = errs[0]
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: vectorize object %s: %w", Name, obj.ID, err)
	}
	return vecs[0], nil, nil
}

// VectorizeBatch vectorizes objs in parallel. Result i belongs to objs[i];
// objects with skipObject[i] set get no vector and no error.
func (m *Module) VectorizeBatch(ctx context.Context, objs []*models.Object, skipObject []bool, cfg moduletools.ClassConfig) ([][]float32, []models.AdditionalProperties, map[int]error) {
	vecs := make([][]float32, len(objs))
	addProps := make([]models.AdditionalProperties, len(objs))
	errs := make(map[int]error)
	if len(skipObject) != len(objs) {
		err := fmt.Errorf("%s: batch of %d objects with %d skip flags", Name, len(objs), len(skipObject))
		for i := range objs {
			errs[i] = err
		}
		return vecs, addProps, errs
	}
	req, err := m.request(cfg)
	if err != nil {
		for i := range objs {
			if !skipObject[i] {
				errs[i] = err
			}
		}
		return vecs, addProps, errs
	}
	texts := make([]string, 0, len(objs))
	index := make([]int, 0, len(objs)) // index[j]: the object texts[j] came from
	for i, obj := range objs {
		if skipObject[i] {
			continue
		}
		text, empty := m.objects.Texts(ctx, obj, req.settings)
		if empty {
			continue
		}
		texts = append(texts, text)
		index = append(index, i)
	}
	if len(texts) == 0 {
		return vecs, addProps, errs
	}
	if err := ctx.Err(); err != nil {
		for _, i := range index {
			errs[i] = fmt.Errorf("%s: %w", Name, err)
		}
		return vecs, addProps, errs
	}
	// Each tenant's objects against its own memory.
	for len(index) > 0 {
		tenant := objs[index[0]].Tenant
		var gt, rt []string
		var gi, ri []int
		for j, i := range index {
			if objs[i].Tenant == tenant {
				gt, gi = append(gt, texts[j]), append(gi, i)
			} else {
				rt, ri = append(rt, texts[j]), append(ri, i)
			}
		}
		m.vectorizeGroup(withTenant(ctx, tenant), objs, gt, gi, req, vecs, errs)
		texts, index = rt, ri
	}
	return vecs, addProps, errs
}

// vectorizeGroup vectorizes texts, those of objs[index[j]], of one tenant
// into vecs and errs.
func (m *Module) vectorizeGroup(ctx context.Context, objs []*models.Object, texts []string, index []int, req request,
	vecs [][]float32, errs map[int]error) {
	out, verrs, err := m.vectorizeTexts(ctx, objs[index[0]].Class, texts, req.task, req.opts.ForObjects())
	if err != nil {
		for _, i := range index {
			errs[i] = err
		}
		return
	}
	for j, i := range index {
		if j < len(verrs) && verrs[j] != nil {
			errs[i] = fmt.Errorf("%s: vectorize object %s: %w", Name, objs[i].ID, verrs[j])
			continue
		}
		if j >= len(out) || out[j] == nil {
			errs[i] = fmt.Errorf("%s: vectorize object %s: no vector returned", Name, objs[i].ID)
			continue
		}
		vecs[i] = out[j]
	}
}

// VectorizableProperties says every text property can be vectorized.
func (m *Module) VectorizableProperties(cfg moduletools.ClassConfig) (bool, []string, error) {
	return true, nil, nil
}

// VectorizeInput vectorizes a search input (hybrid search) as a query: it
// never teaches the memory.
func (m *Module) VectorizeInput(ctx context.Context, input string, cfg moduletools.ClassConfig) ([]float32, error) {
	return m.Texts(ctx, []string{input}, cfg)
}

// Texts vectorizes search inputs as queries and combines them as Weaviate's
// other text2vec modules do (the mean). nearText calls it.
func (m *Module) Texts(ctx context.Context, inputs []string, cfg moduletools.ClassConfig) ([]float32, error) {
	if len(inputs) == 0 {
		return nil, errors.New(Name + ": no text to vectorize")
	}
	req, err := m.request(cfg)
	if err != nil {
		return nil, err
	}
	vecs, errs, err := m.vectorizeTexts(withTenant(ctx, cfg.Tenant()), classOf(ctx), inputs, vectorizer.TaskQuery, req.opts)
	if err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: vectorize %q: %w", Name, inputs[i], err)
		}
	}
	if len(vecs) == 1 {
		return vecs[0], nil
	}
	return libvectorizer.CombineVectors(vecs), nil
}

// MetaInfo describes the version, the model, the defaults and the context
// memory (shown in Weaviate's /v1/meta): the node's passage counts and,
// under "collections", the memory of each collection and tenant in use since
// the start.
func (m *Module) MetaInfo() (map[string]any, error) {
	if m.vec == nil {
		return nil, errors.New(Name + ": module not initialized")
	}
	defaults := m.env.Defaults.Values(vectorizer.SurfaceModuleConfig)
	defaults[SettingTeach] = m.env.Teach
	info := map[string]any{
		"name":     Name,
		"version":  version.String(),
		"model":    m.modelName,
		"dim":      m.vec.Dim(),
		"defaults": defaults,
		"limits":   map[string]any{"max_am_words": m.env.Defaults.AMWordsLimit()},
	}
	if m.remote != nil {
		info["memory"] = m.remoteInfo()
	}
	if m.mem != nil {
		st := m.mem.Stats()
		mem := memorySummary(st)
		mem["dir"] = st.Dir
		if st.Model != "" {
			mem["model"] = st.Model
		}
		if st.ModelWarning != "" {
			mem["model_warning"] = st.ModelWarning
		}
		if m.colls != nil {
			open := map[string]any{}
			for scope, st := range m.colls.Open() {
				open[scope] = memorySummary(st)
			}
			mem["collections"] = open
		}
		info["memory"] = mem
	}
	return info, nil
}

// memorySummary is what MetaInfo says of one memory: the node's shared
// passage counts, or the contexts and counts of one collection or tenant.
func memorySummary(st memory.Stats) map[string]any {
	return map[string]any{
		"words":    st.Words,
		"contexts": st.Contexts,
		"records":  st.Records,
		"passages": st.Passages,
		"df_words": st.DocFreqWords,
	}
}

// AdditionalProperties are Weaviate's usual text2vec additional properties.
func (m *Module) AdditionalProperties() map[string]modulecapabilities.AdditionalProperty {
	return m.additionalProvider.AdditionalProperties()
}

// Arguments are the GraphQL arguments (nearText).
func (m *Module) Arguments() map[string]modulecapabilities.GraphQLArgument {
	return m.graphqlProvider.Arguments()
}

// VectorSearches are the vector searches (nearText).
func (m *Module) VectorSearches() map[string]modulecapabilities.VectorForParams[[]float32] {
	return withClass(m.searcher.VectorSearches())
}

// Interfaces the module implements.
var (
	_ = modulecapabilities.Module(New())
	_ = modulecapabilities.ModuleExtension(New())
	_ = modulecapabilities.ModuleWithClose(New())
	_ = modulecapabilities.Vectorizer[[]float32](New())
	_ = modulecapabilities.InputVectorizer[[]float32](New())
	_ = modulecapabilities.MetaProvider(New())
	_ = modulecapabilities.AdditionalProperties(New())
	_ = modulecapabilities.GraphQLArguments(New())
	_ = modulecapabilities.Searcher[[]float32](New())
	_ = modulecapabilities.ClassConfigurator(New())
	_ = modulecapabilities.ModuleWithHTTPHandlers(New())
)
