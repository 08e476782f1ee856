package module

import (
	"context"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// TestModuleSurfacesCoverTheSettingsTable: every vectorizer setting with an
// environment variable or a moduleConfig key is read by LoadEnvConfig and
// ValidateClass, and a bad value is refused naming the variable or key.
func TestModuleSurfacesCoverTheSettingsTable(t *testing.T) {
	good := map[vectorizer.Kind]string{vectorizer.KindWeighting: "mean", vectorizer.KindFloat: "0.5", vectorizer.KindInt: "8", vectorizer.KindBool: "true"}
	bad := map[vectorizer.Kind]string{vectorizer.KindWeighting: "idf", vectorizer.KindFloat: "2", vectorizer.KindInt: "-1", vectorizer.KindBool: "maybe"}
	goodJSON := map[vectorizer.Kind]any{vectorizer.KindWeighting: "mean", vectorizer.KindFloat: 0.5, vectorizer.KindInt: 8.0, vectorizer.KindBool: true}
	badJSON := map[vectorizer.Kind]any{vectorizer.KindWeighting: "idf", vectorizer.KindFloat: 2.0, vectorizer.KindInt: -1.0, vectorizer.KindBool: 1.0}
	m := newTestModule(t, false)
	class := &models.Class{Class: "Doc", Properties: []*models.Property{{Name: "text", DataType: []string{"text"}}}}
	envs, keys := 0, 0
	for _, st := range vectorizer.Settings() {
		if env := st.Env; env != "" {
			envs++
			getenv := func(v string) func(string) string {
				return func(k string) string {
					if k == env {
						return v
					}
					return ""
				}
			}
			if _, err := LoadEnvConfig(getenv(good[st.Kind])); err != nil {
				t.Errorf("%s=%s refused: %v", env, good[st.Kind], err)
			}
			if _, err := LoadEnvConfig(getenv(bad[st.Kind])); err == nil || !strings.Contains(err.Error(), env) {
				t.Errorf("%s=%s: error %v does not name the variable", env, bad[st.Kind], err)
			}
		}
		if key := st.ModuleConfig; key != "" {
			keys++
			if err := m.ValidateClass(context.Background(), class, fakeClassConfig{settings: map[string]any{key: goodJSON[st.Kind]}}); err != nil {
				t.Errorf("setting %s = %v refused: %v", key, goodJSON[st.Kind], err)
			}
			err := m.ValidateClass(context.Background(), class, fakeClassConfig{settings: map[string]any{key: badJSON[st.Kind]}})
			if err == nil || !strings.Contains(err.Error(), `"`+key+`"`) {
				t.Errorf("setting %s = %v: error %v does not name the key", key, badJSON[st.Kind], err)
			}
		}
	}
	if envs != len(vectorizer.Settings()) || keys != len(vectorizer.Settings())-1 {
		t.Errorf("%d environment variables and %d moduleConfig keys for %d settings", envs, keys, len(vectorizer.Settings()))
	}
}
