package vectorizer

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
)

// settingCase is a good and a bad value of one setting (as a string; JSON
// surfaces get the number, boolean or string it spells) and the field's value
// after the good one.
type settingCase struct {
	good, bad string
	want      func(o Options) bool
}

var settingCases = map[string]settingCase{ // by flag name
	"weighting":             {"mean", "idf", func(o Options) bool { return o.Weighting == WeightMean }},
	"sif-a":                 {"0.5", "2", func(o Options) bool { return o.SIFA == 0.5 }},
	"frequent-min":          {"100", "-5", func(o Options) bool { return o.FrequentMin == 100 }},
	"rare-min":              {"2", "-1", func(o Options) bool { return o.RareMin == 2 }},
	"max-contexts":          {"8", "5000", func(o Options) bool { return o.MaxContexts == 8 }},
	"collection-b":          {"0.05", "2", func(o Options) bool { return o.CollectionB == 0.05 }},
	"mix-text-contexts":     {"true", "maybe", func(o Options) bool { return o.MixTextContexts }},
	"query-memory-only":     {"true", "yes", func(o Options) bool { return o.QueryMemoryOnly }},
	"text-context-discount": {"0.25", "1.5", func(o Options) bool { return o.TextContextDiscount == 0.25 }},
	"common-components":     {"2", "17", func(o Options) bool { return o.CommonComponents == 2 }},
	"max-am-words":          {"10", "-1", func(o Options) bool { return o.MaxAMWords == 10 }},
}

// jsonOf is s as a JSON decoder would give it for setting st.
func jsonOf(st *Setting, s string) any {
	switch st.Kind {
	case KindFloat, KindInt:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case KindBool:
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
		return 1.0 // a number where a boolean belongs
	}
	return s
}

// TestEverySurfaceAcceptsAndValidatesEverySetting applies a good and a bad
// value of every setting on every surface that offers it: the good one lands
// in its field, the bad one is a *FieldError whose message spells the setting
// as that surface does.
func TestEverySurfaceAcceptsAndValidatesEverySetting(t *testing.T) {
	if len(settingCases) != len(Settings()) {
		t.Fatalf("%d cases for %d settings", len(settingCases), len(Settings()))
	}
	for _, st := range Settings() {
		c, ok := settingCases[st.Flag]
		if !ok {
			t.Fatalf("no case for setting %q", st.Flag)
		}
		for _, on := range []Surface{SurfaceRequest, SurfaceFlag, SurfaceEnv, SurfaceModuleConfig} {
			name := st.Name(on)
			if name == "" {
				continue
			}
			got, err := apply(on, &st, c.good)
			if err != nil || !c.want(got) {
				t.Errorf("surface %d: %s = %s: options %+v, error %v", on, name, c.good, got, err)
			}
			_, err = apply(on, &st, c.bad)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("surface %d: %s = %s: error %v, want a *FieldError", on, name, c.bad, err)
				continue
			}
			if msg := Describe(err, on); fe.Setting.Name(on) != name || !strings.Contains(msg, name) {
				t.Errorf("surface %d: %s = %s: %q does not name %s", on, name, c.bad, msg, name)
			}
		}
	}
	if _, err := DefaultOptions().WithValues(SurfaceModuleConfig, map[string]any{"sif_a": 0.5}); !errors.Is(err, ErrUnknownSetting) {
		t.Errorf("a request key as a moduleConfig key: %v, want ErrUnknownSetting", err)
	}
	if _, err := DefaultOptions().WithOverrides(map[string]any{"max_am_words": 1.0}); !errors.Is(err, ErrUnknownSetting) {
		t.Errorf("max_am_words as a request key: %v, want ErrUnknownSetting (a request cannot raise its own limit)", err)
	}
}

// apply sets one setting on surface on, the way that surface does.
func apply(on Surface, st *Setting, value string) (Options, error) {
	o := DefaultOptions()
	name := st.Name(on)
	switch on {
	case SurfaceFlag:
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		RegisterFlags(fs, &o)
		if err := fs.Parse([]string{"--" + name + "=" + value}); err != nil {
			// A value the flag cannot parse: report it as the surface would.
			return o, &FieldError{Setting: st, Value: value, Reason: err.Error()}
		}
		return o, o.Validate()
	case SurfaceEnv:
		return o.FromEnv(func(k string) string {
			if k == name {
				return value
			}
			return ""
		})
	}
	return o.WithValues(on, map[string]any{name: jsonOf(st, value)})
}

func TestFieldErrorSpellsTheOtherSetting(t *testing.T) {
	_, err := DefaultOptions().WithValues(SurfaceModuleConfig, map[string]any{"rareMin": 100.0})
	if msg := Describe(err, SurfaceModuleConfig); !strings.Contains(msg, `"frequentMin"`) || !strings.Contains(msg, "rareMin = 100") {
		t.Errorf("message %q", msg)
	}
	if msg := err.Error(); !strings.Contains(msg, `"frequent_min"`) || !strings.Contains(msg, "rare_min = 100") {
		t.Errorf("request spelling %q", msg)
	}
}

// TestFieldErrorOfAServerWideSetting: a bad MaxAMWords, which has no request
// key and no moduleConfig key, is named on every surface as the flag and the
// environment variable (it was named `config key ""`).
func TestFieldErrorOfAServerWideSetting(t *testing.T) {
	o := DefaultOptions()
	o.MaxAMWords = -1
	err := o.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Setting.Flag != "max-am-words" {
		t.Fatalf("Validate: %v, want a *FieldError of max-am-words", err)
	}
	for on, want := range map[Surface]string{
		SurfaceFlag:         "--max-am-words = -1: want ≥ 0",
		SurfaceEnv:          "environment variable TEXT2VEC_AM_MAX_AM_WORDS = -1: want ≥ 0",
		SurfaceRequest:      "--max-am-words (environment variable TEXT2VEC_AM_MAX_AM_WORDS) = -1",
		SurfaceModuleConfig: "--max-am-words (environment variable TEXT2VEC_AM_MAX_AM_WORDS) = -1",
	} {
		if msg := Describe(err, on); msg != want && !strings.HasPrefix(msg, want) {
			t.Errorf("surface %d: %q, want it to start with %q", on, msg, want)
		}
	}
	if msg := err.Error(); strings.Contains(msg, `""`) {
		t.Errorf("Error() %q names an empty key", msg)
	}
}

// TestWholeNumberSettings: a fraction is not a whole number; a whole number
// beyond what a float64 holds exactly is out of range, and the message says
// so rather than calling it a fraction.
func TestWholeNumberSettings(t *testing.T) {
	for _, c := range []struct {
		value any
		want  string
	}{{1.5, "want a whole number"}, {9.223372036854775807e18, "out of range"}, {-1e300, "out of range"}} {
		_, err := DefaultOptions().WithOverrides(map[string]any{"frequent_min": c.value})
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("frequent_min %v: %v, want a *FieldError saying %q", c.value, err, c.want)
		}
	}
}

// TestValues: Values lists every setting a surface offers by its name there,
// with the value in effect, and none it does not offer.
func TestValues(t *testing.T) {
	o := DefaultOptions()
	o.CollectionB, o.MaxAMWords = 0, 0
	for _, on := range []Surface{SurfaceRequest, SurfaceModuleConfig, SurfaceFlag, SurfaceEnv} {
		values := o.Values(on)
		names := Names(on)
		if len(values) != len(names) {
			t.Errorf("surface %d: %d values for %d settings: %v", on, len(values), len(names), values)
		}
		for _, n := range names {
			if _, ok := values[n]; !ok {
				t.Errorf("surface %d: no value for %q: %v", on, n, values)
			}
		}
	}
	v := o.Values(SurfaceRequest)
	if _, ok := v["max_am_words"]; ok {
		t.Errorf("values %v: max_am_words is no request key", v)
	}
	if v["collection_b"] != DefaultCollectionB || v["weighting"] != "sif-collection" {
		t.Errorf("values %v: want the defaults in effect", v)
	}
}
