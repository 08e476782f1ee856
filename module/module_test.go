package module

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/schema"
	"github.com/weaviate/weaviate/usecases/config"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/model"
)

// fakeClassConfig is a collection's module configuration as Weaviate hands
// it to a module: the module's settings (of the class, or of the named
// vector) and per-property settings.
type fakeClassConfig struct {
	settings map[string]any
	props    map[string]map[string]any
	target   string
}

func (f fakeClassConfig) TargetVector() string { return f.target }
func (f fakeClassConfig) Tenant() string       { return "" }
func (f fakeClassConfig) Class() map[string]any {
	if f.settings == nil {
		return map[string]any{}
	}
	return f.settings
}
func (f fakeClassConfig) ClassByModuleName(name string) map[string]any {
	if name == Name {
		return f.Class()
	}
	return map[string]any{}
}
func (f fakeClassConfig) Property(name string) map[string]any {
	if p, ok := f.props[name]; ok {
		return p
	}
	return map[string]any{}
}
func (f fakeClassConfig) PropertiesDataTypes() map[string]schema.DataType { return nil }
func (f fakeClassConfig) Config() *config.Config                          { return nil }

// testModel is a small random AM model: frequent words w0…, rare words r0….
func testModel(t testing.TB) *model.Model {
	t.Helper()
	const frequent, rare = 300, 30
	var words []string
	var counts []int64
	for i := range frequent {
		words = append(words, fmt.Sprintf("w%d", i))
		counts = append(counts, 1000)
	}
	for i := range rare {
		words = append(words, fmt.Sprintf("r%d", i))
		counts = append(counts, 3)
	}
	m, err := testmodel.FromWords(testmodel.Words{
		Dim: 16, Words: words, Counts: counts, Ngram: model.DefaultNgramConfig(),
		NgramWords: append([]string{"zorblax", "quuxify", "frobnicate"}, words...),
		VectorSeed: [2]uint64{1, 2}, ModelSeed: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newTestModule is an initialized module over testModel with a memory in
// RAM (or none).
func newTestModule(t testing.TB, withMemory bool) *Module {
	t.Helper()
	env, err := LoadEnvConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	m.env = env
	var store vectorizer.ContextStore
	if withMemory {
		mem, err := memory.Open("", memory.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		m.mem = mem
		store = mem
	}
	m.vec, err = vectorizer.New(testModel(t), store, env.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	m.modelName = "test"
	if err := m.InitExtension(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func object(id int, props map[string]any) *models.Object {
	return &models.Object{
		Class:      "Doc",
		ID:         strfmt.UUID(fmt.Sprintf("00000000-0000-0000-0000-%012d", id)),
		Properties: props,
	}
}

func TestVectorizeBatchByIndexWithSkips(t *testing.T) {
	m := newTestModule(t, true)
	cfg := fakeClassConfig{settings: map[string]any{"teach": false}}
	texts := []string{
		"w1 w2 w3 zorblax. w4 w5",
		"w10 w11 r3 quuxify",
		"skipped w12 w13",
		"",
		"w20 frobnicate r7 w21. Another sentence w22 r7",
		"w30 w31",
	}
	objs := make([]*models.Object, len(texts))
	for i, s := range texts {
		props := map[string]any{"text": s}
		if s == "" {
			props = map[string]any{"count": 3} // no text at all
		}
		objs[i] = object(i, props)
	}
	skip := []bool{false, false, true, false, false, false}
	vecs, addProps, errs := m.VectorizeBatch(context.Background(), objs, skip, cfg)
	if len(vecs) != len(objs) || len(addProps) != len(objs) {
		t.Fatalf("got %d vectors and %d additional properties for %d objects", len(vecs), len(addProps), len(objs))
	}
	if len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	opts := m.vec.Options()
	for i, s := range texts {
		switch {
		case skip[i]:
			if vecs[i] != nil {
				t.Errorf("object %d is skipped but got a vector", i)
			}
		case s == "":
			// No text property: Weaviate's objects vectorizer falls back to
			// the class name, as for every text2vec module.
			want, err := m.vec.Vectorize("Doc", vectorizer.TaskQuery, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !sameVector(vecs[i], want) {
				t.Errorf("object %d has no text: want the vector of its class name", i)
			}
		default:
			want, err := m.vec.Vectorize(s, vectorizer.TaskQuery, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !sameVector(vecs[i], want) {
				t.Errorf("object %d: batch vector is not the vector of its own text %q", i, s)
			}
			single, _, err := m.VectorizeObject(context.Background(), objs[i], cfg)
			if err != nil || !sameVector(single, want) {
				t.Errorf("object %d: VectorizeObject differs from the batch (err %v)", i, err)
			}
		}
	}
	if st := m.mem.Stats(); st.Words != 0 {
		t.Errorf("teach=false import wrote %d words into the memory", st.Words)
	}
}

func TestVectorizeBatchErrorsByIndex(t *testing.T) {
	m := newTestModule(t, false)
	cfg := fakeClassConfig{settings: map[string]any{"teach": false}}
	// Punctuation only: text, but no word that yields a vector.
	objs := []*models.Object{object(0, map[string]any{"text": "w1 w2"}), object(1, map[string]any{"text": "?!… --"}), object(2, map[string]any{"text": "w3"})}
	vecs, _, errs := m.VectorizeBatch(context.Background(), objs, []bool{false, false, false}, cfg)
	if _, ok := errs[1]; !ok {
		t.Fatalf("object 1 has no usable word but got no error (errs %v)", errs)
	}
	if len(errs) != 1 || vecs[0] == nil || vecs[2] == nil || vecs[1] != nil {
		t.Errorf("errors %v, vectors present %v %v %v: want only object 1 failed", errs, vecs[0] != nil, vecs[1] != nil, vecs[2] != nil)
	}
	if !strings.Contains(errs[1].Error(), string(objs[1].ID)) {
		t.Errorf("error %q does not name the object", errs[1])
	}
	// Bad settings fail every object that is not skipped, by index.
	_, _, errs = m.VectorizeBatch(context.Background(), objs, []bool{true, false, false}, fakeClassConfig{settings: map[string]any{"weighting": "idf"}})
	if _, ok := errs[0]; ok || errs[1] == nil || errs[2] == nil {
		t.Errorf("bad settings: errors %v, want objects 1 and 2 only", errs)
	}
}

func TestTeachWritesMemory(t *testing.T) {
	m := newTestModule(t, true)
	probe := object(9, map[string]any{"text": "w1 zorblax w2"})
	query := fakeClassConfig{settings: map[string]any{"teach": false}}
	before, _, err := m.VectorizeObject(context.Background(), probe, query)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*models.Object
	for i := range 20 {
		objs = append(objs, object(i, map[string]any{"text": fmt.Sprintf("w%d w%d zorblax w%d r%d.", i, i+40, i+80, i%30)}))
	}
	_, _, errs := m.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), fakeClassConfig{settings: map[string]any{"teach": true}})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if st := m.mem.Stats(); st.Words == 0 || st.Contexts == 0 {
		t.Fatalf("teach=true import left the memory empty: %+v", st)
	}
	after, _, err := m.VectorizeObject(context.Background(), probe, query)
	if err != nil {
		t.Fatal(err)
	}
	if sameVector(before, after) {
		t.Error("the memory learnt contexts of zorblax but its vectors did not change")
	}
	// Queries never teach.
	words := m.mem.Stats().Words
	if _, err := m.VectorizeInput(context.Background(), "quuxify w3", query); err != nil {
		t.Fatal(err)
	}
	if m.mem.Stats().Words != words {
		t.Error("a query wrote the memory")
	}
}

func TestSettingsOfNamedVectorAndProperties(t *testing.T) {
	m := newTestModule(t, false)
	obj := object(1, map[string]any{"title": "w5 w6", "text": "w7 r2 w8", "docId": "w9"})
	cfg := fakeClassConfig{
		target:   "am",
		settings: map[string]any{"weighting": "mean", "teach": false, "vectorizeClassName": false},
		props:    map[string]map[string]any{"docId": {"skip": true}},
	}
	got, _, err := m.VectorizeObject(context.Background(), obj, cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := m.vec.Options()
	opts.Weighting = vectorizer.WeightMean
	// Weaviate's objects vectorizer: sorted property names, skipped docId left out.
	want, err := m.vec.Vectorize("w7 r2 w8 w5 w6", vectorizer.TaskQuery, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sameVector(got, want) {
		t.Error("vector is not the mean-weighted vector of text+title without the skipped docId")
	}
	sif, err := m.vec.Vectorize("w7 r2 w8 w5 w6", vectorizer.TaskQuery, m.vec.Options())
	if err != nil {
		t.Fatal(err)
	}
	if sameVector(got, sif) {
		t.Error("the weighting setting had no effect")
	}
	// The class name goes in when asked.
	cfg.settings["vectorizeClassName"] = true
	withClass, _, err := m.VectorizeObject(context.Background(), obj, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sameVector(withClass, got) {
		t.Error("vectorizeClassName=true did not change the vector")
	}
}

func TestValidateClass(t *testing.T) {
	m := newTestModule(t, false)
	class := &models.Class{Class: "Doc", Properties: []*models.Property{{Name: "text", DataType: []string{"text"}}}}
	ok := []map[string]any{
		nil,
		{"vectorizeClassName": false},
		{"weighting": "mean", "sifA": 0.01, "frequentMin": 0, "rareMin": 0, "maxContexts": 8, "teach": false},
		{"properties": []any{"text"}},
	}
	for _, s := range ok {
		if err := m.ValidateClass(context.Background(), class, fakeClassConfig{settings: s}); err != nil {
			t.Errorf("settings %v refused: %v", s, err)
		}
	}
	bad := []struct {
		settings map[string]any
		name     string
	}{
		{map[string]any{"weighting": "tfidf"}, "weighting"},
		{map[string]any{"weighting": 3.0}, "weighting"},
		{map[string]any{"sifA": -1.0}, "sifA"},
		{map[string]any{"sifA": "small"}, "sifA"},
		{map[string]any{"rareMin": 2.5}, "rareMin"},
		{map[string]any{"rareMin": 100.0}, "rareMin"},
		{map[string]any{"frequentMin": 5.0, "rareMin": 10.0}, "frequentMin"},
		{map[string]any{"maxContexts": 99999.0}, "maxContexts"},
		{map[string]any{"teach": "yes"}, "teach"},
		{map[string]any{"vectorizeClassName": "no"}, "vectorizeClassName"},
		{map[string]any{"rareMn": 3.0}, "rareMn"},
		{map[string]any{"properties": []any{}}, "properties"},
	}
	for _, b := range bad {
		err := m.ValidateClass(context.Background(), class, fakeClassConfig{settings: b.settings})
		if err == nil {
			t.Errorf("settings %v accepted", b.settings)
			continue
		}
		if !strings.Contains(err.Error(), b.name) {
			t.Errorf("settings %v refused with %q, which does not name %q", b.settings, err, b.name)
		}
	}
	noText := &models.Class{Class: "Doc", Properties: []*models.Property{{Name: "n", DataType: []string{"int"}}}}
	// Weaviate merges ClassConfigDefaults into the settings before validation.
	if err := m.ValidateClass(context.Background(), noText, fakeClassConfig{settings: m.ClassConfigDefaults()}); err == nil {
		t.Error("a collection without a text property was accepted")
	}
}

func TestLoadEnvConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cfg, err := LoadEnvConfig(env(map[string]string{
		EnvWeighting: "mean", EnvSIFA: "0.01", EnvFrequentMin: "0", EnvRareMin: "0", EnvMaxContexts: "16",
		EnvTeach: "false", EnvMemorySync: "always", EnvModel: " /m.am ", EnvMemoryDir: "off",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := vectorizer.DefaultOptions()
	want.Weighting, want.SIFA, want.FrequentMin, want.RareMin, want.MaxContexts = vectorizer.WeightMean, 0.01, 0, 0, 16
	if cfg.Defaults != want || cfg.Teach || cfg.MemorySync != memory.SyncAlways || cfg.ModelPath != "/m.am" || cfg.MemoryDir != MemoryOff {
		t.Errorf("got %+v", cfg)
	}
	// Unset, the weighting is sif-collection; sif stays available.
	for val, w := range map[string]vectorizer.Weighting{"": vectorizer.WeightSIFCollection, "sif": vectorizer.WeightSIF} {
		cfg, err := LoadEnvConfig(env(map[string]string{EnvWeighting: val}))
		if err != nil || cfg.Defaults.Weighting != w {
			t.Errorf("%s=%q: weighting %v, %v; want %v", EnvWeighting, val, cfg.Defaults.Weighting, err, w)
		}
	}
	for _, b := range []struct{ key, val string }{
		{EnvWeighting, "idf"}, {EnvSIFA, "x"}, {EnvSIFA, "2"}, {EnvRareMin, "1.5"}, {EnvMaxContexts, "-1"},
		{EnvTeach, "maybe"}, {EnvMemorySync, "sometimes"},
	} {
		_, err := LoadEnvConfig(env(map[string]string{b.key: b.val}))
		if err == nil || !strings.Contains(err.Error(), b.key) {
			t.Errorf("%s=%q: error %v does not name the variable", b.key, b.val, err)
		}
	}
}

func TestMetaInfoAndNearText(t *testing.T) {
	m := newTestModule(t, true)
	info, err := m.MetaInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info["dim"] != 16 || info["memory"] == nil || info["version"] != version.String() {
		t.Errorf("meta info %v", info)
	}
	// Every moduleConfig setting of the vectorizer's table is among the
	// defaults, by its key; the server-wide max-am-words among the limits.
	defaults, _ := info["defaults"].(map[string]any)
	want := m.env.Defaults.Values(vectorizer.SurfaceModuleConfig)
	for _, st := range vectorizer.Settings() {
		key := st.Name(vectorizer.SurfaceModuleConfig)
		if key == "" {
			continue
		}
		if got, ok := defaults[key]; !ok || got != want[key] {
			t.Errorf("meta defaults[%q] = %v, want %v: %v", key, got, want[key], defaults)
		}
	}
	if defaults[SettingTeach] != m.env.Teach {
		t.Errorf("meta defaults[%q] = %v, want %v", SettingTeach, defaults[SettingTeach], m.env.Teach)
	}
	if limits, _ := info["limits"].(map[string]any); limits["max_am_words"] != m.env.Defaults.AMWordsLimit() {
		t.Errorf("meta limits %v, want max_am_words %d", info["limits"], m.env.Defaults.AMWordsLimit())
	}
	// Importing an object counts it as a passage of the collection, and /v1/meta shows it.
	if _, _, err := m.VectorizeObject(context.Background(), object(7, map[string]any{"text": "w1 w2 zorblax"}), fakeClassConfig{}); err != nil {
		t.Fatal(err)
	}
	info, _ = m.MetaInfo()
	if mem := info["memory"].(map[string]any); mem["passages"] != int64(1) || mem["df_words"] != 3 {
		t.Errorf("meta memory after one import %v, want passages 1 and df_words 3", mem)
	}
	if _, ok := m.VectorSearches()["nearText"]; !ok {
		t.Error("no nearText vector search")
	}
	if _, ok := m.Arguments()["nearText"]; !ok {
		t.Error("no nearText GraphQL argument")
	}
	// Several concepts are combined as Weaviate's other text2vec modules do.
	cfg := fakeClassConfig{}
	a, _ := m.Texts(context.Background(), []string{"w1 w2"}, cfg)
	b, _ := m.Texts(context.Background(), []string{"w3 r4"}, cfg)
	ab, err := m.Texts(context.Background(), []string{"w1 w2", "w3 r4"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ab {
		if d := ab[i] - (a[i]+b[i])/2; d > 1e-6 || d < -1e-6 {
			t.Fatalf("combined concepts are not the mean of the concept vectors at %d", i)
		}
	}
	if New().Name() != Name {
		t.Error("name")
	}
}

func TestInitWithBadModelPath(t *testing.T) {
	m := New()
	err := m.initWith(EnvConfig{ModelPath: "/nonexistent/model.am", Defaults: vectorizer.DefaultOptions()}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), EnvModel) {
		t.Errorf("error %v does not name %s", err, EnvModel)
	}
}

// TestInitWithWeightsFile: a weights file without base embeddings and a
// missing file are refused with an error naming the file and EnvModel, the
// first as not a serving bundle, each saying "load model" at most once.
func TestInitWithWeightsFile(t *testing.T) {
	dir := t.TempDir()
	weights := filepath.Join(dir, "am.am")
	if err := testModel(t).SaveFile(weights, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{weights, filepath.Join(dir, "nope.am")} {
		err := New().initWith(EnvConfig{ModelPath: path, Defaults: vectorizer.DefaultOptions()}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), EnvModel) ||
			strings.Count(err.Error(), "load model") > 1 {
			t.Errorf("%s: error %v, want one naming the file and %s, with at most one \"load model\"", path, err, EnvModel)
		}
	}
	err := New().initWith(EnvConfig{ModelPath: weights, Defaults: vectorizer.DefaultOptions()}, t.TempDir())
	if !errors.Is(err, defaultmodel.ErrNotBundle) {
		t.Errorf("weights file: error %v, want defaultmodel.ErrNotBundle", err)
	}
}

// TestInitWithMemoryOfAnotherModel: the module records its model in a new
// memory, and /v1/meta's memory names the recorded model and warns when a
// memory was written with another.
func TestInitWithMemoryOfAnotherModel(t *testing.T) {
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "model.am")
	if err := testModel(t).SaveFile(modelPath, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	memDir := filepath.Join(dir, "mem")
	env := EnvConfig{ModelPath: modelPath, MemoryDir: memDir, Defaults: vectorizer.DefaultOptions()}
	metaMemory := func() map[string]any {
		t.Helper()
		m := New()
		if err := m.initWith(env, ""); err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		info, err := m.MetaInfo()
		if err != nil {
			t.Fatal(err)
		}
		return info["memory"].(map[string]any)
	}
	if mem := metaMemory(); mem["model"] == nil || mem["model_warning"] != nil {
		t.Errorf("a new memory: model %v, warning %v; want the module's model and no warning", mem["model"], mem["model_warning"])
	}
	other := filepath.Join(dir, "other.am")
	spec := testmodel.DefaultSpec()
	spec.Rare = 50
	om, err := testmodel.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := om.SaveFile(other, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	first := env.ModelPath
	env.ModelPath = other
	w, _ := metaMemory()["model_warning"].(string)
	if !strings.Contains(w, first) || !strings.Contains(w, other) {
		t.Errorf("memory of another model: warning %q, want one naming %s and %s", w, first, other)
	}
}

func sameVector(a, b []float32) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}

// TestInitFromEnvAndMemorySurvives initializes the module as Weaviate does
// (model file, memory in the data path), teaches it, closes it, and checks a
// second module over the same data path vectorizes with what was taught.
func TestInitFromEnvAndMemorySurvives(t *testing.T) {
	dir := t.TempDir()
	modelPath := dir + "/model.am"
	if err := testModel(t).SaveFile(modelPath, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	env, err := LoadEnvConfig(func(k string) string {
		if k == EnvModel {
			return modelPath
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	dataPath := dir + "/data"
	query := fakeClassConfig{settings: map[string]any{"teach": false}}
	probe := object(1, map[string]any{"text": "w1 quuxify w2"})

	first := New()
	if err := first.initWith(env, dataPath); err != nil {
		t.Fatal(err)
	}
	before, _, err := first.VectorizeObject(context.Background(), probe, query)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*models.Object
	for i := range 10 {
		objs = append(objs, object(i, map[string]any{"text": fmt.Sprintf("w%d quuxify w%d r%d.", i, i+50, i)}))
	}
	if _, _, errs := first.VectorizeBatch(context.Background(), objs, make([]bool, len(objs)), fakeClassConfig{settings: map[string]any{"teach": true}}); len(errs) != 0 {
		t.Fatal(errs)
	}
	taught, _, err := first.VectorizeObject(context.Background(), probe, query)
	if err != nil {
		t.Fatal(err)
	}
	if sameVector(before, taught) {
		t.Fatal("teaching did not change the probe's vector")
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := New()
	if err := second.initWith(env, dataPath); err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if d := second.mem.Dir(); d != dataPath+"/"+memoryDirName {
		t.Errorf("memory in %s, want inside the data path", d)
	}
	after, _, err := second.VectorizeObject(context.Background(), probe, query)
	if err != nil {
		t.Fatal(err)
	}
	if !sameVector(taught, after) {
		t.Error("after reopening, the probe's vector is not the taught one: the memory did not survive")
	}
}

func TestMemoryOffAndNoDataPath(t *testing.T) {
	dir := t.TempDir()
	modelPath := dir + "/model.am"
	if err := testModel(t).SaveFile(modelPath, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	env := EnvConfig{ModelPath: modelPath, MemoryDir: MemoryOff, Defaults: vectorizer.DefaultOptions(), Teach: true}
	m := New()
	if err := m.initWith(env, ""); err != nil {
		t.Fatal(err)
	}
	if m.mem != nil {
		t.Error("memory opened although it is off")
	}
	// Teaching without a memory is harmless.
	if _, _, err := m.VectorizeObject(context.Background(), object(1, map[string]any{"text": "w1 zorblax"}), fakeClassConfig{}); err != nil {
		t.Error(err)
	}
	if info, _ := m.MetaInfo(); info["memory"] != nil {
		t.Errorf("meta shows a memory: %v", info["memory"])
	}
	env.MemoryDir = ""
	if err := New().initWith(env, ""); err == nil || !strings.Contains(err.Error(), EnvMemoryDir) {
		t.Errorf("no memory directory and no data path: error %v does not name %s", err, EnvMemoryDir)
	}
}
