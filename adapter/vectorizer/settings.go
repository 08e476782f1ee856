package vectorizer

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Surface is a place where the vectorizer's settings are spelled.
type Surface uint8

const (
	// SurfaceRequest is a request's "config" object (WithOverrides): sif_a.
	SurfaceRequest Surface = iota
	// SurfaceFlag is a command-line flag of serve, memory warm, eval retrieval and eval wordsim: --sif-a.
	SurfaceFlag
	// SurfaceEnv is an environment variable of the Weaviate module: TEXT2VEC_AM_SIF_A.
	SurfaceEnv
	// SurfaceModuleConfig is a key of a collection's moduleConfig: sifA.
	SurfaceModuleConfig
)

// Kind is the type of a setting's value.
type Kind uint8

// The kinds of settings.
const (
	KindWeighting Kind = iota // "sif", "mean" or "sif-collection"
	KindFloat
	KindInt
	KindBool
)

// Setting is one vectorizer option with its name on every surface ("" where
// it is not offered), its kind and its field of Options.
type Setting struct {
	Request, Flag, Env, ModuleConfig string
	Kind                             Kind
	Usage                            string
	// field returns a pointer to the setting's field of o: *Weighting,
	// *float64, *int64, *int or *bool.
	field func(o *Options) any
}

// Name returns the setting's name on surface s ("" when not offered there).
func (s *Setting) Name(on Surface) string {
	switch on {
	case SurfaceFlag:
		return s.Flag
	case SurfaceEnv:
		return s.Env
	case SurfaceModuleConfig:
		return s.ModuleConfig
	}
	return s.Request
}

// label is how a message on surface on names the setting. A setting the
// surface does not offer (the server-wide max-am-words has no request key
// and no moduleConfig key) is named as the surfaces that offer it spell it.
func (s *Setting) label(on Surface) string {
	if s.Name(on) == "" {
		var names []string
		for _, other := range []Surface{SurfaceFlag, SurfaceEnv, SurfaceRequest, SurfaceModuleConfig} {
			if s.Name(other) != "" {
				names = append(names, s.label(other))
			}
		}
		if len(names) == 0 {
			return "an unnamed setting"
		}
		if len(names) == 1 {
			return names[0]
		}
		return fmt.Sprintf("%s (%s)", names[0], strings.Join(names[1:], ", "))
	}
	switch on {
	case SurfaceFlag:
		return "--" + s.Flag
	case SurfaceEnv:
		return "environment variable " + s.Env
	case SurfaceModuleConfig:
		return fmt.Sprintf("setting %q", s.ModuleConfig)
	}
	return fmt.Sprintf("config key %q", s.Request)
}

// settings is THE table of the vectorizer's options: every surface's flags,
// request keys, environment variables and moduleConfig keys come from it.
var settings = [...]Setting{
	{"weighting", "weighting", "TEXT2VEC_AM_WEIGHTING", "weighting", KindWeighting,
		"combine word vectors by `sif-collection|sif|mean` (sif-collection: SIF times b/(b+df(w)/N), df counted over the imported passages and kept in the context memory)",
		func(o *Options) any { return &o.Weighting }},
	{"sif_a", "sif-a", "TEXT2VEC_AM_SIF_A", "sifA", KindFloat,
		"the a of the SIF weight a/(a+p(w)), 0 < a ≤ 1",
		func(o *Options) any { return &o.SIFA }},
	{"frequent_min", "frequent-min", "TEXT2VEC_AM_FREQUENT_MIN", "frequentMin", KindInt,
		"words with a base count ≥ this use their base vector",
		func(o *Options) any { return &o.FrequentMin }},
	{"rare_min", "rare-min", "TEXT2VEC_AM_RARE_MIN", "rareMin", KindInt,
		"words with rare-min ≤ count < frequent-min use the bundle's AM+skip vector; rarer words get live AM",
		func(o *Options) any { return &o.RareMin }},
	{"max_contexts", "max-contexts", "TEXT2VEC_AM_MAX_CONTEXTS", "maxContexts", KindInt,
		"contexts fed to AM per word, 0..4096 (the remembered ones; the ±25-token windows around the word in the text when none is remembered)",
		func(o *Options) any { return &o.MaxContexts }},
	{"collection_b", "collection-b", "TEXT2VEC_AM_COLLECTION_B", "collectionB", KindFloat,
		fmt.Sprintf("sif-collection: the b of the factor b/(b+df(w)/N), 0 < b ≤ 1 (0 means %g)", DefaultCollectionB),
		func(o *Options) any { return &o.CollectionB }},
	{"mix_text_contexts", "mix-text-contexts", "TEXT2VEC_AM_MIX_TEXT_CONTEXTS", "mixTextContexts", KindBool,
		"feed AM the text's own sentences after the remembered contexts (vectors then differ between a query and a passage)",
		func(o *Options) any { return &o.MixTextContexts }},
	{"query_memory_only", "query-memory-only", "TEXT2VEC_AM_QUERY_MEMORY_ONLY", "queryMemoryOnly", KindBool,
		"a query's rare words take their contexts from the memory alone, never from the query's own words",
		func(o *Options) any { return &o.QueryMemoryOnly }},
	{"text_context_discount", "text-context-discount", "TEXT2VEC_AM_TEXT_CONTEXT_DISCOUNT", "textContextDiscount", KindFloat,
		"0..1: AM's gate for a rare word times 1 − d × the share of its contexts that are the text's own sentences (all of them when the memory holds none)",
		func(o *Options) any { return &o.TextContextDiscount }},
	{"common_components", "common-components", "TEXT2VEC_AM_COMMON_COMPONENTS", "commonComponents", KindInt,
		"0..16: take out of a text's vector the corpus's mean word vector and its projection on this many principal directions of the base vectors, at most one per 50 dimensions (0: the weighted sum as it is)",
		func(o *Options) any { return &o.CommonComponents }},
	// Server-wide only: a request or a collection cannot raise its own limit.
	{"", "max-am-words", "TEXT2VEC_AM_MAX_AM_WORDS", "", KindInt,
		fmt.Sprintf("most distinct words needing AM inference in one text (more: 413; 0 means %d)", DefaultMaxAMWords),
		func(o *Options) any { return &o.MaxAMWords }},
}

// Settings returns the table of the vectorizer's settings.
func Settings() []Setting { return slices.Clone(settings[:]) }

func settingNamed(on Surface, name string) *Setting {
	for i := range settings {
		if n := settings[i].Name(on); n != "" && n == name {
			return &settings[i]
		}
	}
	return nil
}

// Values returns every setting that surface on offers with its value in o,
// keyed by its name there: a weighting by name, the others as numbers and
// booleans. A setting whose 0 stands for a default (collection_b) shows the
// value in effect. The server-wide max-am-words, which no request or
// collection sets, is AMWordsLimit.
func (o Options) Values(on Surface) map[string]any {
	o.CollectionB, o.MaxAMWords = o.collectionB(), o.maxAMWords()
	values := make(map[string]any, len(settings))
	for i := range settings {
		if name := settings[i].Name(on); name != "" {
			values[name] = fieldValue(settings[i].field(&o))
		}
	}
	return values
}

// Names returns the setting names offered on surface on, in table order.
func Names(on Surface) []string {
	var names []string
	for i := range settings {
		if n := settings[i].Name(on); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// ErrUnknownSetting reports a setting name no surface defines.
var ErrUnknownSetting = errors.New("unknown setting")

// FieldError reports a bad value of one setting. Error spells the setting as a
// request key; In spells it as surface on does, so every surface names the
// setting the way its user wrote it.
type FieldError struct {
	Setting *Setting
	Value   any    // the value given (nil when the field is named only)
	Reason  string // "want 0 < a ≤ 1"
	// Other is a second setting the reason refers to (frequent_min below rare_min).
	Other      *Setting
	OtherValue any
}

// In returns the message with the settings spelled as on surface on.
func (e *FieldError) In(on Surface) string {
	reason := e.Reason
	if e.Other != nil {
		reason = fmt.Sprintf("%s %s = %v", reason, e.Other.Name(on), e.OtherValue)
	}
	if e.Value == nil {
		return fmt.Sprintf("%s: %s", e.Setting.label(on), reason)
	}
	return fmt.Sprintf("%s = %v: %s", e.Setting.label(on), e.Value, reason)
}

func (e *FieldError) Error() string { return e.In(SurfaceRequest) }

// Describe returns err's message with a FieldError's settings spelled as on
// surface on (other errors as they are).
func Describe(err error, on Surface) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.In(on)
	}
	return err.Error()
}

// Validate reports the first option out of range as a *FieldError.
func (o Options) Validate() error {
	bad := func(name string, v any, reason string) error {
		return &FieldError{Setting: settingNamed(SurfaceRequest, name), Value: v, Reason: reason}
	}
	switch {
	case o.Weighting > WeightSIFCollection:
		return bad("weighting", int(o.Weighting), "unknown value")
	case !(o.SIFA > 0 && o.SIFA <= 1):
		return bad("sif_a", o.SIFA, "want 0 < a ≤ 1")
	case !(o.CollectionB >= 0 && o.CollectionB <= 1):
		return bad("collection_b", o.CollectionB, "want 0 < b ≤ 1 (0: the default)")
	case o.RareMin < 0:
		return bad("rare_min", o.RareMin, "want ≥ 0")
	case o.FrequentMin < o.RareMin:
		return &FieldError{Setting: settingNamed(SurfaceRequest, "frequent_min"), Value: o.FrequentMin,
			Reason: "is below", Other: settingNamed(SurfaceRequest, "rare_min"), OtherValue: o.RareMin}
	case o.MaxContexts < 0 || o.MaxContexts > 4096:
		return bad("max_contexts", o.MaxContexts, "want 0..4096")
	case !(o.TextContextDiscount >= 0 && o.TextContextDiscount <= 1):
		return bad("text_context_discount", o.TextContextDiscount, "want 0 ≤ d ≤ 1")
	case o.CommonComponents < 0 || o.CommonComponents > MaxCommonComponents:
		return bad("common_components", o.CommonComponents, fmt.Sprintf("want 0..%d", MaxCommonComponents))
	case o.MaxAMWords < 0:
		return &FieldError{Setting: settingNamed(SurfaceFlag, "max-am-words"), Value: o.MaxAMWords, Reason: fmt.Sprintf("want ≥ 0 (0: the default %d)", DefaultMaxAMWords)}
	}
	return nil
}

// set stores v, a value as JSON decodes it (string, float64, json.Number,
// bool; int and int64 too), or a string from a flag or the environment, into
// the setting's field of o.
func (s *Setting) set(o *Options, v any, fromString bool) error {
	fe := func(reason string) error { return &FieldError{Setting: s, Value: jsonValue(v), Reason: reason} }
	switch p := s.field(o).(type) {
	case *Weighting:
		str, ok := v.(string)
		if !ok {
			return &FieldError{Setting: s, Reason: "want a string (\"sif\", \"mean\" or \"sif-collection\"), got " + typeName(v)}
		}
		w, err := ParseWeighting(str)
		if err != nil {
			return fe(`want "sif", "mean" or "sif-collection"`)
		}
		*p = w
	case *bool:
		if str, ok := v.(string); ok && fromString {
			b, err := strconv.ParseBool(str)
			if err != nil {
				return fe("want true or false")
			}
			v = b
		}
		b, ok := v.(bool)
		if !ok {
			return &FieldError{Setting: s, Reason: "want a boolean, got " + typeName(v)}
		}
		*p = b
	case *float64:
		f, err := number(v, fromString)
		if err != nil {
			return &FieldError{Setting: s, Value: jsonValue(v), Reason: err.Error()}
		}
		*p = f
	case *int64, *int:
		f, err := number(v, fromString)
		if err != nil {
			return &FieldError{Setting: s, Value: jsonValue(v), Reason: err.Error()}
		}
		if f != math.Trunc(f) {
			return fe("want a whole number")
		}
		if math.Abs(f) > 1<<53 {
			return fe("out of range (|value| ≤ 2^53)")
		}
		if q, ok := p.(*int); ok {
			if f > math.MaxInt32 || f < math.MinInt32 {
				return fe("out of range")
			}
			*q = int(f)
		} else {
			*p.(*int64) = int64(f)
		}
	}
	return nil
}

// jsonValue is v as a message shows it: strings quoted.
func jsonValue(v any) any {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	if v == nil {
		return "null"
	}
	return v
}

func number(v any, fromString bool) (float64, error) {
	if s, ok := v.(string); ok && fromString {
		v = json.Number(strings.TrimSpace(s))
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return 0, errors.New("not a number")
		}
		return f, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	}
	return 0, fmt.Errorf("want a number, got %s", typeName(v))
}

// WithValues returns o with values applied, keyed by their names on surface
// on (SurfaceRequest or SurfaceModuleConfig: values as JSON decodes them;
// SurfaceEnv or SurfaceFlag: strings). A name the surface does not define is
// an error wrapping ErrUnknownSetting; a bad value is a *FieldError. The
// result is validated.
func (o Options) WithValues(on Surface, values map[string]any) (Options, error) {
	for _, name := range slices.Sorted(maps.Keys(values)) { // errors in a stable order
		s := settingNamed(on, name)
		if s == nil {
			return o, fmt.Errorf("%w %q (known: %s)", ErrUnknownSetting, name, strings.Join(Names(on), ", "))
		}
		if err := s.set(&o, values[name], on == SurfaceEnv || on == SurfaceFlag); err != nil {
			return o, err
		}
	}
	return o, o.Validate()
}

// FromEnv returns o with every setting whose environment variable getenv
// finds non-empty applied, validated.
func (o Options) FromEnv(getenv func(string) string) (Options, error) {
	values := map[string]any{}
	for _, name := range Names(SurfaceEnv) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			values[name] = v
		}
	}
	return o.WithValues(SurfaceEnv, values)
}

// WithOverrides returns o with a request's config applied (request keys).
// Numbers may be float64 or json.Number (integers must be whole).
func (o Options) WithOverrides(cfg map[string]any) (Options, error) {
	return o.WithValues(SurfaceRequest, cfg)
}

// RegisterFlags defines a flag for every setting with a flag name, each
// writing its field of o (whose current values are the defaults shown).
// Check o.Validate() after parsing and print errors with Describe(err,
// SurfaceFlag).
func RegisterFlags(fs *flag.FlagSet, o *Options) {
	for i := range settings {
		s := &settings[i]
		if s.Flag == "" {
			continue
		}
		fs.Var(&settingFlag{s: s, o: o, isBool: s.Kind == KindBool}, s.Flag, s.Usage)
	}
}

type settingFlag struct {
	s      *Setting
	o      *Options
	isBool bool
}

func (f *settingFlag) String() string {
	if f.o == nil { // the zero value flag.PrintDefaults makes
		return ""
	}
	return fmt.Sprint(fieldValue(f.s.field(f.o)))
}

func (f *settingFlag) Set(v string) error {
	if err := f.s.set(f.o, v, true); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return errors.New(fe.Reason)
		}
		return err
	}
	return nil
}

// IsBoolFlag lets a boolean setting be given as --name alone.
func (f *settingFlag) IsBoolFlag() bool { return f.isBool }

// fieldValue is the value the field pointer p points to (a Weighting by name).
func fieldValue(p any) any {
	switch x := p.(type) {
	case *Weighting:
		return x.String()
	case *float64:
		return *x
	case *int64:
		return *x
	case *int:
		return *x
	case *bool:
		return *x
	}
	return p
}
