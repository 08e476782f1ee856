package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildScriptRefusesBadSettings runs scripts/build-default-model.sh with
// settings it must refuse before any work: each exits with status 2 and a
// message naming the variable and the value.
func TestBuildScriptRefusesBadSettings(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	for _, tc := range []struct{ env, value string }{
		{"FORM_SHARE", "1"},
		{"FORM_SHARE", "0"},
		{"FORM_SHARE", "0.0"},
		{"FORM_SHARE", "-0.25"},
		{"FORM_SHARE", "0.25x"},
		{"FORM_SHARE", "half"},
		{"GATE_COVERAGE", "2"},
	} {
		cmd := exec.Command("bash", "scripts/build-default-model.sh", "/nonexistent-corpus")
		work := t.TempDir()
		cmd.Env = append(os.Environ(), tc.env+"="+tc.value, "WORK="+work)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%s=%s: %v, want exit status 2 (stderr %q)", tc.env, tc.value, err, stderr.String())
			continue
		}
		if msg := stderr.String(); !strings.Contains(msg, tc.env) || !strings.Contains(msg, tc.value) {
			t.Errorf("%s=%s: message %q does not name the variable and its value", tc.env, tc.value, msg)
		}
		if entries, _ := os.ReadDir(work); len(entries) > 0 {
			t.Errorf("%s=%s: the script wrote %d entries to WORK before refusing", tc.env, tc.value, len(entries))
		}
	}
}

// TestBuildScriptAcceptsFormShare: a share between 0 and 1 passes the
// settings' checks, so the script goes on to the corpus, which it reports
// missing.
func TestBuildScriptAcceptsFormShare(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	for _, v := range []string{"0.25", ".1", "0.5", "0.999"} {
		cmd := exec.Command("bash", "scripts/build-default-model.sh", "/nonexistent-corpus")
		cmd.Env = append(os.Environ(), "FORM_SHARE="+v, "WORK="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "corpus /nonexistent-corpus not found") {
			t.Errorf("FORM_SHARE=%s: %q, want the missing corpus reported", v, out)
		}
	}
}
