package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildScriptEnv is the environment for running scripts/build-default-model.sh:
// the caller's without the script's own settings, plus set (NAME=value).
func buildScriptEnv(set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "FORM_SHARE", "GATE_COVERAGE", "HOLD_FORMS", "NGRAMS", "OUT", "WORK":
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...)
}

// runBuildScript runs scripts/build-default-model.sh on corpus with the
// settings set (NAME=value) and returns its output and exit status; it skips
// the test without bash.
func runBuildScript(t *testing.T, corpus string, set ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	cmd := exec.Command("bash", "scripts/build-default-model.sh", corpus)
	cmd.Env = buildScriptEnv(set...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("running the build script: %v", err)
	return "", 0
}

// TestBuildScriptRefusesBadSettings runs scripts/build-default-model.sh with
// settings it must refuse before any work, on an existing corpus directory:
// each exits with status 2, a message naming the variable and the value, and
// the work directory not created.
func TestBuildScriptRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"FORM_SHARE", "1", "got 1"},
		{"FORM_SHARE", "0", "got 0"},
		{"FORM_SHARE", "0.0", "got 0.0"},
		{"FORM_SHARE", "-0.25", "got -0.25"},
		{"FORM_SHARE", "0.25x", "got 0.25x"},
		{"FORM_SHARE", "half", "got half"},
		{"FORM_SHARE", "0.99999999999999999999", "got 0.99999999999999999999"}, // 1 as a float64
		{"FORM_SHARE", "0." + strings.Repeat("0", 400) + "1", "got 0.000"},     // 0 as a float64
		{"GATE_COVERAGE", "2", "got 2"},
	} {
		dir := t.TempDir()
		work := filepath.Join(dir, "work")
		msg, code := runBuildScript(t, dir, tc.env+"="+tc.value, "WORK="+work)
		name := tc.env + "=" + tc.value[:min(len(tc.value), 24)]
		if code != 2 {
			t.Errorf("%s: exit status %d, want 2 (output %q)", name, code, msg)
			continue
		}
		if !strings.Contains(msg, tc.env) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q does not name the variable and its value", name, msg)
		}
		if _, err := os.Stat(work); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the work directory exists after the refusal (%v)", name, err)
		}
	}
}

// TestBuildScriptFormShareWithHeldForms: FORM_SHARE does not apply to a
// HOLD_FORMS build, which the script refuses rather than ignore the setting.
func TestBuildScriptFormShareWithHeldForms(t *testing.T) {
	out, code := runBuildScript(t, "/nonexistent-corpus", "FORM_SHARE=0.25", "HOLD_FORMS=0.5", "WORK="+t.TempDir())
	if code != 2 || !strings.Contains(out, "FORM_SHARE does not apply") {
		t.Errorf("FORM_SHARE=0.25 HOLD_FORMS=0.5: exit status %d, %q; want 2 naming FORM_SHARE", code, out)
	}
}

// TestBuildScriptAcceptsFormShare: a decimal between 0 and 1, or none, passes
// the settings' checks, so the script goes on to the corpus, which it reports
// missing.
func TestBuildScriptAcceptsFormShare(t *testing.T) {
	for _, v := range []string{"", "0.25", ".1", "0.5", "0.999"} {
		out, _ := runBuildScript(t, "/nonexistent-corpus", "FORM_SHARE="+v, "WORK="+t.TempDir())
		if !strings.Contains(out, "corpus /nonexistent-corpus not found") {
			t.Errorf("FORM_SHARE=%s: %q, want the missing corpus reported", v, out)
		}
	}
}
