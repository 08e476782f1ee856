package refresh

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// A --state that is a directory or larger than any state is refused by
// name (state_unix_test.go: a FIFO and a device).
func TestLoadStateRefusesWhatIsNotAStateFile(t *testing.T) {
	dir := t.TempDir()
	targets := []Target{{Name: "am"}}
	if _, err := loadState(dir, "Doc", targets); !errors.Is(err, model.ErrNotRegular) || !strings.Contains(err.Error(), dir) {
		t.Errorf("--state DIR: err = %v, want it refused as not a regular file", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"class":"Doc","after":"`+strings.Repeat("a", maxStateBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadState(big, "Doc", targets); !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), big) {
		t.Errorf("a state of %d bytes: err = %v, want ErrBadState naming the file", maxStateBytes+20, err)
	}
}

// Counts refresh never records (below 0, a pass past the last, this pass's
// counts above the totals, more processed than read) are refused, naming
// the file and the field; a state refresh wrote loads.
func TestLoadStateChecksItsCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	targets := []Target{{Name: "am"}}
	load := func(body string) error {
		if err := os.WriteFile(path, []byte(`{"class":"Doc","targets":["am"],"after":"x",`+body+`}`), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadState(path, "Doc", targets)
		return err
	}
	for body, want := range map[string]string{
		`"pass":-3,"stats":{"read":-5}`:            "pass is -3, below 0",
		`"stats":{"read":-5}`:                      "stats.read is -5, below 0",
		`"pass_repeated":-1`:                       "pass_repeated is -1",
		`"stats":{"passes":-1}`:                    "stats.passes is -1",
		`"stats":{"read":3,"failed":-1}`:           "stats.failed is -1",
		`"pass":4`:                                 "pass is 4, refresh makes at most 4 passes",
		`"pass":1,"stats":{"passes":3}`:            "stats.passes is 3",
		`"pass_read":5,"stats":{"read":4}`:         "pass_read is 5, more than stats.read 4",
		`"pass_repeated":2,"stats":{"repeated":1}`: "pass_repeated is 2",
		`"stats":{"read":4,"updated":3,"empty":2}`: "add up to more than stats.read 4",
		`"stats":{"read":9223372036854775807,"updated":9223372036854775807,"failed":9223372036854775807}`: "add up to more",
	} {
		err := load(body)
		if !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want ErrBadState naming %s and saying %q", body, err, path, want)
		}
	}
	body := `"pass":1,"pass_read":3,"pass_repeated":1,"stats":{"read":13,"updated":7,"unchanged":3,"empty":2,"failed":1,` +
		`"repeated":2,"passes":1}`
	if err := load(body); err != nil {
		t.Errorf("a state refresh writes: %v", err)
	}
}
