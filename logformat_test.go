package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mainArgsEnv passes the arguments of main when the test binary runs itself
// as the text2vec-am binary.
const mainArgsEnv = "T2V_TEST_MAIN_ARGS"

// Every stderr line of a command is in one format, slog's text, also the
// messages of packages that log through slog's default logger (eval
// retrieval's): none in the log package's "2006/01/02 15:04:05 INFO" form.
func TestLogLinesOneFormat(t *testing.T) {
	if args := os.Getenv(mainArgsEnv); args != "" {
		os.Args = append([]string{"text2vec-am"}, strings.Split(args, "\x1f")...)
		main()
		return
	}
	dir := t.TempDir()
	docs, queries := filepath.Join(dir, "docs.jsonl"), filepath.Join(dir, "q.jsonl")
	writeTestFile(t, docs, `{"id":"d1","text":"restart the network daemon"}`+"\n"+
		`{"id":"d2","text":"install the printer driver"}`+"\n")
	writeTestFile(t, queries, `{"id":"q1","text":"network daemon restart","relevant":["d1"]}`+"\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLogLinesOneFormat$")
	args := []string{"eval", "retrieval", "--model", "default", docs, queries}
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(args, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("eval retrieval: %v\n%s", err, stderr.String())
	}
	stdLog := regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)
	if stdLog.MatchString(stderr.String()) || !strings.Contains(stderr.String(), "level=INFO msg=retrieval") {
		t.Errorf("stderr %s\nwant slog text lines only", stderr.String())
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The warning about a T2V_SIMD set this CPU or build cannot run comes in the
// command's log format: slog's text for commands, JSON for serve
// --log-format json.
func TestSIMDWarningInLogFormat(t *testing.T) {
	if args := os.Getenv(mainArgsEnv); args != "" {
		os.Args = append([]string{"text2vec-am"}, strings.Split(args, "\x1f")...)
		main()
		return
	}
	stdLog := regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"version"}, `level=WARN msg="simd: the kernel set named by T2V_SIMD is not available on this CPU or ` +
			`build; using the fastest" T2V_SIMD=bogus`},
		{[]string{"serve", "--log-format", "json", "--explain", "neither"},
			`"level":"WARN","msg":"simd: the kernel set named by T2V_SIMD is not available on this CPU or build; ` +
				`using the fastest","T2V_SIMD":"bogus"`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSIMDWarningInLogFormat$")
		cmd.Env = append(os.Environ(), "T2V_SIMD=bogus", mainArgsEnv+"="+strings.Join(c.args, "\x1f"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run() // serve exits for its --explain
		if got := stderr.String(); stdLog.MatchString(got) || strings.Count(got, "simd:") != 1 ||
			!strings.Contains(got, c.want) {
			t.Errorf("%s: stderr %s\nwant the warning once, as %s", c.args[0], got, c.want)
		}
	}
}
