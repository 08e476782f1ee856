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
		case "AM_EPOCHS", "DIM", "EPOCHS", "FASTTEXT", "FASTTEXT_COMMAND", "FORM_SHARE", "GATE_COVERAGE", "HOLD_FORMS", "MAX_WORDS", "NGRAMS",
			"OUT", "WORK":
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
	return scriptOutput(t, cmd)
}

// scriptOutput runs cmd, the build script, and returns its output and exit
// status.
func scriptOutput(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
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
		{"DIM", "0", "got 0"},
		{"DIM", "20x", "got 20x"},
		{"EPOCHS", "-1", "got -1"},
		{"AM_EPOCHS", "1.5", "got 1.5"},
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

// fakeGo is a `go` command for the build script's tests: `go build -o BIN .`
// writes BIN as a stand-in for text2vec-am that appends its arguments to
// $FAKE_LOG and writes a line to each file its --out, --counts-out,
// --ngrams-out and --bundle-out name; with FAKE_INTERRUPT=1, `train` (with
// FAKE_INTERRUPT_STEP1=1, `train-embeddings`) writes only its checkpoint
// (<--out>.ckpt) and fails, as after Ctrl-C.
const fakeGo = `#!/bin/sh
[ "$1" = build ] && [ "$2" = -o ] || { echo "fake go: $*" >&2; exit 1; }
cat >"$3" <<'BIN'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
cmd=$1
outs=
while [ $# -gt 0 ]; do
  case $1 in
    --out) outs="$outs $2"; last=$2; shift ;;
    --counts-out|--ngrams-out|--bundle-out) outs="$outs $2"; shift ;;
  esac
  shift
done
if { [ "$cmd" = train ] && [ "${FAKE_INTERRUPT:-}" = 1 ]; } ||
  { [ "$cmd" = train-embeddings ] && [ "${FAKE_INTERRUPT_STEP1:-}" = 1 ]; }; then
  echo x >"$last.ckpt"
  exit 1
fi
for f in $outs; do echo x >"$f"; done
exit 0
BIN
chmod +x "$3"
`

// fakeBuild is a copy of the repository's build script in a directory of
// its own (with defaultmodel/ for --install) and a fake go on PATH
// (fakeGo), so the script runs in seconds and its commands can be read.
type fakeBuild struct {
	root, log, path string
}

func newFakeBuild(t *testing.T) fakeBuild {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	root := t.TempDir()
	script, err := os.ReadFile("scripts/build-default-model.sh")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	for _, d := range []string{"scripts", "defaultmodel", "bin"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "build-default-model.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	return fakeBuild{root: root, log: filepath.Join(root, "commands.log"), path: bin + ":" + os.Getenv("PATH")}
}

// run runs the script from dir with args and the settings set (NAME=value)
// and returns its output and exit status.
func (b fakeBuild) run(t *testing.T, dir string, args []string, set ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(b.root, "scripts", "build-default-model.sh")}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(buildScriptEnv(set...), "PATH="+b.path, "FAKE_LOG="+b.log)
	return scriptOutput(t, cmd)
}

// commands returns the text2vec-am command lines the script ran, by
// subcommand (train-embeddings, train).
func (b fakeBuild) commands(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(b.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	cmds := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sub, _, _ := strings.Cut(line, " ")
		cmds[sub] = append(cmds[sub], line)
	}
	return cmds
}

// corpusDir makes a corpus directory and a corpus file in dir and returns
// their names.
func corpusDir(t *testing.T, dir string) (string, string) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, "general"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join("general", "a.txt"), "mydocs.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("some text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "general", "mydocs.txt"
}

// TestBuildScriptPathsFromCaller: corpus paths and WORK given relative are
// taken from the caller's directory, every corpus path is read by both steps,
// and --install is seen after them.
func TestBuildScriptPathsFromCaller(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	general, mydocs := corpusDir(t, caller)
	out, code := b.run(t, caller, []string{general, mydocs, "--install"}, "WORK=work")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	cmds := b.commands(t)
	want := "--corpus " + filepath.Join(caller, general) + " --corpus " + filepath.Join(caller, mydocs) + " "
	for _, sub := range []string{"train-embeddings", "train"} {
		if len(cmds[sub]) != 1 || !strings.Contains(cmds[sub][0], want) {
			t.Errorf("%s ran as %q, want it once with %q", sub, cmds[sub], want)
		}
	}
	if _, err := os.Stat(filepath.Join(caller, "work", "model.am")); err != nil {
		t.Errorf("the model is not in WORK under the caller's directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b.root, "defaultmodel", "default.am")); err != nil {
		t.Errorf("--install after the corpus paths did not install the model: %v", err)
	}
}

// TestBuildScriptHelpAndUnknownOption: --help and -h print the usage and
// exit 0, an unknown option is refused with status 2 naming it; neither
// runs a step.
func TestBuildScriptHelpAndUnknownOption(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	for _, arg := range []string{"--help", "-h"} {
		out, code := b.run(t, caller, []string{arg}, "WORK=work")
		if code != 0 || !strings.Contains(out, "usage: bash scripts/build-default-model.sh") ||
			!strings.Contains(out, "OUT=FILE") || !strings.Contains(out, "DIM=N") {
			t.Errorf("%s: exit status %d, %q; want 0 and the usage", arg, code, out)
		}
	}
	out, code := b.run(t, caller, []string{"mydocs.txt", "--bogus"}, "WORK=work")
	if code != 2 || !strings.Contains(out, "unknown option --bogus") {
		t.Errorf("--bogus: exit status %d, %q; want 2 naming the option", code, out)
	}
	if cmds := b.commands(t); cmds != nil {
		t.Errorf("steps ran: %q", cmds)
	}
	if _, err := os.Stat(filepath.Join(caller, "work")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the work directory exists (%v)", err)
	}
}

// TestBuildScriptTrialSettings: DIM, EPOCHS and AM_EPOCHS reach the steps'
// --dim and --epochs, and OUT names the model.
func TestBuildScriptTrialSettings(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	_, mydocs := corpusDir(t, caller)
	out, code := b.run(t, caller, []string{mydocs}, "WORK=work", "DIM=8", "EPOCHS=1", "AM_EPOCHS=3", "OUT=trial.am")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	cmds := b.commands(t)
	if len(cmds["train-embeddings"]) != 1 || !strings.Contains(cmds["train-embeddings"][0], "--dim 8 ") ||
		!strings.Contains(cmds["train-embeddings"][0], "--epochs 1 ") {
		t.Errorf("train-embeddings ran as %q, want --dim 8 and --epochs 1", cmds["train-embeddings"])
	}
	if len(cmds["train"]) != 1 || !strings.Contains(cmds["train"][0], "--epochs 3 ") ||
		!strings.Contains(cmds["train"][0], "--bundle-out "+filepath.Join(caller, "trial.am")) {
		t.Errorf("train ran as %q, want --epochs 3 and --bundle-out trial.am", cmds["train"])
	}
}

// TestBuildScriptResumes: a build run again after step 2 was interrupted
// uses step 1's files again and resumes step 2 from its checkpoint; the
// checkpoint goes once the model is written, and a checkpoint of a build
// with other settings is refused rather than overwritten or resumed.
func TestBuildScriptResumes(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	_, mydocs := corpusDir(t, caller)
	ckpt := filepath.Join(caller, "work", "am.am.ckpt")
	if _, code := b.run(t, caller, []string{mydocs}, "WORK=work", "FAKE_INTERRUPT=1"); code == 0 {
		t.Fatal("the interrupted build exited 0")
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Fatalf("no checkpoint after the interrupted build: %v", err)
	}
	out, code := b.run(t, caller, []string{mydocs}, "WORK=work", "AM_EPOCHS=5")
	if code != 2 || !strings.Contains(out, ckpt) || !strings.Contains(out, "other settings") {
		t.Errorf("a build with other settings over the checkpoint: exit status %d, %q; want 2 naming it", code, out)
	}
	if out, code := b.run(t, caller, []string{mydocs}, "WORK=work"); code != 0 {
		t.Fatalf("the build run again: exit status %d: %s", code, out)
	}
	cmds := b.commands(t)
	if len(cmds["train-embeddings"]) != 1 {
		t.Errorf("train-embeddings ran %d times, want once: %q", len(cmds["train-embeddings"]), cmds["train-embeddings"])
	}
	if len(cmds["train"]) != 2 || strings.Contains(cmds["train"][0], "--resume") ||
		!strings.Contains(cmds["train"][1], "--resume "+ckpt) {
		t.Errorf("train ran as %q, want without --resume and then with --resume %s", cmds["train"], ckpt)
	}
	if _, err := os.Stat(ckpt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint is left after the model was written (%v)", err)
	}
}

// TestBuildScriptResumesStep1: a build run again after step 1 was
// interrupted resumes step 1 from its checkpoint and goes on to step 2; the
// checkpoint goes once step 1's files are complete, and a checkpoint of a
// step 1 with other settings is refused rather than overwritten or resumed.
func TestBuildScriptResumesStep1(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	_, mydocs := corpusDir(t, caller)
	work := filepath.Join(caller, "work")
	ckpt := filepath.Join(work, "subwords.bin.ckpt")
	if _, code := b.run(t, caller, []string{mydocs}, "WORK=work", "FAKE_INTERRUPT_STEP1=1"); code == 0 {
		t.Fatal("the interrupted build exited 0")
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Fatalf("no checkpoint after the interrupted step 1: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "step1.settings")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("step1.settings written after the interrupted step 1 (%v)", err)
	}
	out, code := b.run(t, caller, []string{mydocs}, "WORK=work", "DIM=8")
	if code != 2 || !strings.Contains(out, ckpt) || !strings.Contains(out, "other settings") {
		t.Errorf("a build with other settings over step 1's checkpoint: exit status %d, %q; want 2 naming it", code, out)
	}
	out, code = b.run(t, caller, []string{mydocs}, "WORK=work")
	if code != 0 || !strings.Contains(out, "step 1 resumes from "+ckpt) {
		t.Fatalf("the build run again: exit status %d: %s", code, out)
	}
	cmds := b.commands(t)
	if sub := cmds["train-embeddings"]; len(sub) != 2 || strings.Contains(sub[0], "--resume") ||
		!strings.Contains(sub[1], "--resume "+ckpt) {
		t.Errorf("train-embeddings ran as %q, want without --resume and then with --resume %s", sub, ckpt)
	}
	if len(cmds["train"]) != 1 || strings.Contains(cmds["train"][0], "--resume") {
		t.Errorf("train ran as %q, want once without --resume", cmds["train"])
	}
	for _, f := range []string{ckpt, filepath.Join(work, "step1.started")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after step 1 completed (%v)", f, err)
		}
	}
	if _, code := b.run(t, caller, []string{mydocs}, "WORK=work"); code != 0 || len(b.commands(t)["train-embeddings"]) != 2 {
		t.Errorf("a third build: exit status %d, train-embeddings ran again: %q", code, b.commands(t)["train-embeddings"])
	}
}

// TestBuildScriptFastText: FASTTEXT=FILE makes step 1 import that fastText
// model instead of training the subword model, and step 2 train AM on what
// it wrote; a missing model and the settings of the subword model it
// replaces are refused before any work.
func TestBuildScriptFastText(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	_, mydocs := corpusDir(t, caller)
	if err := os.WriteFile(filepath.Join(caller, "ft.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]string{{"FASTTEXT=none.bin"}, {"FASTTEXT=ft.bin", "DIM=50"}, {"FASTTEXT=ft.bin", "EPOCHS=2"},
		{"FASTTEXT=ft.bin", "HOLD_FORMS=0.5"}, {"MAX_WORDS=5"}, {"FASTTEXT=ft.bin", "MAX_WORDS=-1"}} {
		out, code := b.run(t, caller, []string{mydocs}, append(set, "WORK=refused")...)
		if code != 2 || !strings.Contains(out, strings.Split(set[len(set)-1], "=")[0]) {
			t.Errorf("%q: exit status %d, %q; want 2 naming the setting", set, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(caller, "refused")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused build made its work directory (%v)", err)
	}
	if out, code := b.run(t, caller, []string{mydocs}, "FASTTEXT=ft.bin", "MAX_WORDS=5000", "WORK=work"); code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	cmds := b.commands(t)
	work := filepath.Join(caller, "work")
	if len(cmds["train-embeddings"]) != 0 || len(cmds["import-fasttext"]) != 1 ||
		!strings.Contains(cmds["import-fasttext"][0], "--fasttext "+filepath.Join(caller, "ft.bin")+" ") ||
		!strings.Contains(cmds["import-fasttext"][0], "--max-words 5000 --ngrams-max 140000 ") ||
		!strings.Contains(cmds["import-fasttext"][0], "--ngrams-out "+filepath.Join(work, "ngrams.bin")) {
		t.Fatalf("step 1 ran %q", cmds)
	}
	if len(cmds["train"]) != 1 || !strings.Contains(cmds["train"][0], "--embeddings "+filepath.Join(work, "subwords.bin")) ||
		!strings.Contains(cmds["train"][0], "--form-share 0.3 ") {
		t.Errorf("step 2 ran %q, want it on the imported vectors with --form-share 0.3", cmds["train"])
	}
	if out, code := b.run(t, caller, []string{mydocs}, "FASTTEXT=ft.bin", "FORM_SHARE=0.5", "WORK=work5"); code != 0 {
		t.Fatalf("FORM_SHARE=0.5: exit status %d: %s", code, out)
	}
	if train := b.commands(t)["train"]; len(train) != 2 || !strings.Contains(train[1], "--form-share 0.5 ") {
		t.Errorf("FASTTEXT with FORM_SHARE=0.5: step 2 ran %q", train)
	}
}

// fakeFastText is a `fasttext` command for the build script's tests: it
// appends its arguments to $FAKE_LOG and writes <-output>.bin.
const fakeFastText = `#!/bin/sh
echo "fasttext $*" >>"$FAKE_LOG"
while [ $# -gt 0 ]; do
  [ "$1" = -output ] && echo x >"$2.bin"
  shift
done
`

// TestBuildScriptFastTextTrain: FASTTEXT=train tokenizes the corpus, trains
// fastText on it at DIM and EPOCHS on one thread, imports that model and
// trains AM on it; the same WORK uses step 1 again, another fastText
// command trains again. A missing fastText command, HOLD_FORMS, and
// FASTTEXT_COMMAND without FASTTEXT=train are refused before any work.
func TestBuildScriptFastTextTrain(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	_, mydocs := corpusDir(t, caller)
	ft := filepath.Join(caller, "ft")
	if err := os.WriteFile(ft, []byte(fakeFastText), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]string{{"FASTTEXT=train", "FASTTEXT_COMMAND=" + filepath.Join(caller, "none")},
		{"FASTTEXT=train", "FASTTEXT_COMMAND=" + ft, "HOLD_FORMS=0.5"}, {"FASTTEXT_COMMAND=" + ft}} {
		out, code := b.run(t, caller, []string{mydocs}, append(set, "WORK=refused")...)
		if want := strings.Split(set[len(set)-1], "=")[0]; code != 2 || !strings.Contains(out, want) {
			t.Errorf("%q: exit status %d, %q; want 2 naming %s", set, code, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(caller, "refused")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused build made its work directory (%v)", err)
	}
	set := []string{"FASTTEXT=train", "FASTTEXT_COMMAND=" + ft, "DIM=50", "EPOCHS=2", "WORK=work"}
	for run := 0; run < 2; run++ {
		if out, code := b.run(t, caller, []string{mydocs}, set...); code != 0 {
			t.Fatalf("exit status %d: %s", code, out)
		}
	}
	cmds := b.commands(t)
	work := filepath.Join(caller, "work")
	tokens := filepath.Join(work, "tokens.txt")
	if len(cmds["tokenize"]) != 1 || cmds["tokenize"][0] != "tokenize --corpus "+filepath.Join(caller, mydocs)+" --out "+tokens {
		t.Fatalf("tokenize ran %q", cmds["tokenize"])
	}
	wantFT := "fasttext skipgram -input " + tokens + " -output " + filepath.Join(work, "fasttext") +
		" -dim 50 -epoch 2 -minn 3 -maxn 6 -thread 1"
	if len(cmds["fasttext"]) != 1 || cmds["fasttext"][0] != wantFT {
		t.Fatalf("fastText ran %q, want once %q", cmds["fasttext"], wantFT)
	}
	if len(cmds["import-fasttext"]) != 1 ||
		!strings.Contains(cmds["import-fasttext"][0], "--fasttext "+filepath.Join(work, "fasttext.bin")+" ") {
		t.Fatalf("import ran %q", cmds["import-fasttext"])
	}
	if len(cmds["train"]) != 2 || !strings.Contains(cmds["train"][1], "--form-share 0.3 ") {
		t.Errorf("step 2 ran %q, want it twice with --form-share 0.3", cmds["train"])
	}
	other := filepath.Join(caller, "ft2")
	if err := os.WriteFile(other, []byte(fakeFastText), 0o755); err != nil {
		t.Fatal(err)
	}
	set[1] = "FASTTEXT_COMMAND=" + other
	if out, code := b.run(t, caller, []string{mydocs}, set...); code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	if n := len(b.commands(t)["fasttext"]); n != 2 {
		t.Errorf("another fastText command: fastText ran %d times in all, want 2", n)
	}
}
