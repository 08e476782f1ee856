package module

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/schema"
	basesettings "github.com/weaviate/weaviate/usecases/modulecomponents/settings"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// Environment variables read by Init (the server-wide configuration).
const (
	// EnvModel is the path of the model (weights file or serving bundle);
	// empty means the embedded default model.
	EnvModel = "TEXT2VEC_AM_MODEL"
	// EnvMemoryDir is the context memory's directory; empty means
	// text2vec-am-memory inside Weaviate's PERSISTENCE_DATA_PATH, "off" keeps
	// no memory at all.
	EnvMemoryDir = "TEXT2VEC_AM_MEMORY_DIR"
	// EnvMemorySync is the memory's fsync policy: always, interval (default) or never.
	EnvMemorySync = "TEXT2VEC_AM_MEMORY_SYNC"
	// EnvWeighting is the default word weighting: sif-collection (default:
	// SIF times b/(b + df(w)/N), the document frequencies counted over the
	// passages that teach the memory and persisted in it), sif or mean.
	EnvWeighting = "TEXT2VEC_AM_WEIGHTING"
	// EnvSIFA is the default SIF constant a.
	EnvSIFA = "TEXT2VEC_AM_SIF_A"
	// EnvFrequentMin is the default count from which a word uses its base vector.
	EnvFrequentMin = "TEXT2VEC_AM_FREQUENT_MIN"
	// EnvRareMin is the default count from which a non-frequent word uses its AM+skip vector.
	EnvRareMin = "TEXT2VEC_AM_RARE_MIN"
	// EnvMaxContexts is the default number of contexts fed to AM per word.
	EnvMaxContexts = "TEXT2VEC_AM_MAX_CONTEXTS"
	// EnvTeach is the default of the collection setting teach: true (default) or false.
	EnvTeach = "TEXT2VEC_AM_TEACH"
	// EnvMemoryWeaviateTimeout bounds one request to the memory kept in
	// Weaviate (EnvMemoryWeaviate; a Go duration, default 30s), as serve's
	// --memory-weaviate-timeout.
	EnvMemoryWeaviateTimeout = "TEXT2VEC_AM_MEMORY_WEAVIATE_TIMEOUT"
	// EnvMemoryTimeoutDeprecated is the deprecated name of
	// EnvMemoryWeaviateTimeout, read when that is unset (with a warning).
	EnvMemoryTimeoutDeprecated = "TEXT2VEC_AM_MEMORY_TIMEOUT"
	// EnvVectorsEndpoint set to true serves POST /v1/modules/text2vec-am/vectors
	// (the vector this node gives a text as a query), a diagnostic for
	// comparing nodes. Off by default: Weaviate does not authenticate module
	// endpoints.
	EnvVectorsEndpoint = "TEXT2VEC_AM_VECTORS_ENDPOINT"
)

// Collection settings (moduleConfig of the collection, or of a named vector's
// vectorizer) besides Weaviate's usual vectorizeClassName and properties.
const (
	// SettingWeighting is "sif-collection" (the default), "sif" or "mean".
	SettingWeighting = "weighting"
	// SettingSIFA is the SIF constant a (> 0).
	SettingSIFA = "sifA"
	// SettingFrequentMin is the count from which a word uses its base vector.
	SettingFrequentMin = "frequentMin"
	// SettingRareMin is the count from which a non-frequent word uses its AM+skip vector.
	SettingRareMin = "rareMin"
	// SettingMaxContexts is the number of contexts fed to AM per word.
	SettingMaxContexts = "maxContexts"
	// SettingTeach says whether importing objects teaches the context memory.
	SettingTeach = "teach"

	settingVectorizeClassName = "vectorizeClassName"
	settingProperties         = "properties"
)

// Default values of Weaviate's own text2vec settings for this module. As in
// text2vec-model2vec, the class name is not vectorized unless asked.
const (
	DefaultVectorizeClassName    = false
	DefaultPropertyIndexed       = true
	DefaultVectorizePropertyName = false
)

// EnvConfig is the server-wide configuration, read from the environment.
type EnvConfig struct {
	// ModelPath is the model file; "" means the embedded default model.
	ModelPath string
	// MemoryDir is the memory directory; "" means the default inside the
	// data path; MemoryOff means no memory.
	MemoryDir string
	// MemorySync is the memory's fsync policy.
	MemorySync memory.SyncPolicy
	// Defaults are the vectorizer options collections start from.
	Defaults vectorizer.Options
	// Teach is the default of the collection setting teach.
	Teach bool
	// MemoryTimeout bounds one request to the memory kept in Weaviate.
	MemoryTimeout time.Duration
	// VectorsEndpoint serves the diagnostic vectors endpoint.
	VectorsEndpoint bool
	// Warnings are what Init logs as warnings: deprecated variables set.
	Warnings []string
	// Weaviate is the memory kept in Weaviate (EnvMemoryWeaviate; nil: none).
	Weaviate *weaviatemem.Options
}

// MemoryOff as EnvMemoryDir disables the context memory.
const MemoryOff = "off"

// LoadEnvConfig reads the configuration through getenv (os.Getenv in
// Weaviate). Every bad value is an error naming the variable.
func LoadEnvConfig(getenv func(string) string) (EnvConfig, error) {
	cfg := EnvConfig{
		ModelPath:  strings.TrimSpace(getenv(EnvModel)),
		MemoryDir:  strings.TrimSpace(getenv(EnvMemoryDir)),
		MemorySync: memory.DefaultOptions().Sync,
		Defaults:   vectorizer.DefaultOptions(),
		Teach:      true,
	}
	for _, name := range []string{"TEXT2VEC_AM_MEMORY_URL", "TEXT2VEC_AM_MEMORY_TOKEN"} {
		if strings.TrimSpace(getenv(name)) != "" {
			return cfg, fmt.Errorf("environment variable %s is not supported: a cluster keeps its memory in Weaviate "+
				"with %s (docs/operations.md, \"A Weaviate cluster: one memory\")", name, EnvMemoryWeaviate)
		}
	}
	if s := strings.TrimSpace(getenv(EnvMemorySync)); s != "" {
		p, err := memory.ParseSyncPolicy(s)
		if err != nil {
			return cfg, fmt.Errorf("environment variable %s=%q: %w", EnvMemorySync, s, err)
		}
		cfg.MemorySync = p
	}
	if err := cfg.loadRequests(getenv); err != nil {
		return cfg, err
	}
	if err := cfg.loadWeaviate(getenv); err != nil {
		return cfg, err
	}
	if s := strings.TrimSpace(getenv(EnvTeach)); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return cfg, fmt.Errorf("environment variable %s=%q: want true or false", EnvTeach, s)
		}
		cfg.Teach = b
	}
	opts, err := cfg.Defaults.FromEnv(getenv)
	if err != nil {
		return cfg, fmt.Errorf("text2vec-am environment: %s", vectorizer.Describe(err, vectorizer.SurfaceEnv))
	}
	cfg.Defaults = opts
	return cfg, nil
}

// classSettings reads one collection's (or named vector's) settings.
type classSettings struct {
	*basesettings.BaseClassSettings
	cfg moduletools.ClassConfig
}

func newClassSettings(cfg moduletools.ClassConfig) *classSettings {
	return &classSettings{cfg: cfg, BaseClassSettings: basesettings.NewBaseClassSettings(cfg, false)}
}

// VectorizeClassName overrides the base default (true) with this module's (false).
func (s *classSettings) VectorizeClassName() bool {
	if s.cfg == nil {
		return DefaultVectorizeClassName
	}
	if b, ok := s.GetSettings()[settingVectorizeClassName].(bool); ok {
		return b
	}
	return DefaultVectorizeClassName
}

// options returns the vectorizer options of the collection: defaults with
// the collection's settings applied, and whether imports teach the memory.
func (s *classSettings) options(env EnvConfig) (vectorizer.Options, bool, error) {
	opts := env.Defaults
	teach := env.Teach
	settings := s.GetSettings()
	overrides := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		val := settings[name]
		switch name {
		case settingVectorizeClassName:
			if _, ok := val.(bool); !ok {
				return opts, teach, fmt.Errorf("text2vec-am setting %q: want true or false, got %v (%T)", name, val, val)
			}
		case settingProperties:
			// validated by BaseClassSettings.ValidateClassSettings
		case SettingTeach:
			b, ok := val.(bool)
			if !ok {
				return opts, teach, fmt.Errorf("text2vec-am setting %q: want true or false, got %v (%T)", name, val, val)
			}
			teach = b
		default:
			if !slices.Contains(vectorizer.Names(vectorizer.SurfaceModuleConfig), name) {
				return opts, teach, fmt.Errorf("text2vec-am setting %q is unknown: the settings are %s", name, strings.Join(knownSettings(), ", "))
			}
			overrides[name] = val
		}
	}
	if len(overrides) == 0 {
		return opts, teach, nil
	}
	next, err := opts.WithValues(vectorizer.SurfaceModuleConfig, overrides)
	if err != nil {
		return opts, teach, fmt.Errorf("text2vec-am settings: %s", vectorizer.Describe(err, vectorizer.SurfaceModuleConfig))
	}
	return next, teach, nil
}

// knownSettings lists every collection setting name, sorted.
func knownSettings() []string {
	names := append([]string{settingVectorizeClassName, settingProperties, SettingTeach}, vectorizer.Names(vectorizer.SurfaceModuleConfig)...)
	slices.Sort(names)
	return names
}

// validate checks the collection settings against class.
func (s *classSettings) validate(class *models.Class, env EnvConfig) error {
	if err := s.BaseClassSettings.Validate(class); err != nil {
		return fmt.Errorf("text2vec-am: %w", err)
	}
	_, _, err := s.options(env)
	return err
}

// ClassConfigDefaults returns the collection settings' defaults.
func (m *Module) ClassConfigDefaults() map[string]any {
	return map[string]any{
		settingVectorizeClassName: DefaultVectorizeClassName,
	}
}

// PropertyConfigDefaults returns the property settings' defaults.
func (m *Module) PropertyConfigDefaults(dt *schema.DataType) map[string]any {
	return map[string]any{
		"skip":                  !DefaultPropertyIndexed,
		"vectorizePropertyName": DefaultVectorizePropertyName,
	}
}

// ValidateClass refuses bad collection settings with a message naming the setting.
func (m *Module) ValidateClass(ctx context.Context, class *models.Class, cfg moduletools.ClassConfig) error {
	return newClassSettings(cfg).validate(class, m.env)
}
