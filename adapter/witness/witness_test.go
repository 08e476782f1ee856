package witness_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/adapter/witness/witnesstest"
)

// counter is a memory holding n passages.
type counter struct {
	mu       sync.Mutex
	n        int64
	syncs    int
	readOnly bool
}

func (c *counter) ReadOnly() bool { return c.readOnly }

func (c *counter) Stats() memory.Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return memory.Stats{Passages: c.n}
}

func (c *counter) Sync() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncs++
	return nil
}

func (c *counter) set(n int64) {
	c.mu.Lock()
	c.n = n
	c.mu.Unlock()
}

func newFake(t *testing.T) (*witnesstest.Weaviate, witness.Options) {
	f := witnesstest.New()
	t.Cleanup(f.Close)
	return f, witness.Options{URL: f.URL, Every: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func start(t *testing.T, o witness.Options, mem witness.Memory) *witness.Witness {
	t.Helper()
	w, err := witness.Start(o, mem, "/data/memory")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.Wait(ctx)
	return w
}

func TestWitnessRecordsAndRefusesALostMemory(t *testing.T) {
	f, o := newFake(t)
	mem := &counter{n: 40}
	w := start(t, o, mem)
	require.NoError(t, w.Err())
	recorded := func(n float64) func() bool { return func() bool { return f.Passages(witness.DefaultName) == n } }
	require.Eventually(t, recorded(40), 5*time.Second, 5*time.Millisecond, "the first count is recorded")
	exists, auto := f.HasClass()
	require.True(t, exists && !auto, "the witness class is created")
	mem.set(120)
	require.Eventually(t, recorded(120), 5*time.Second, 5*time.Millisecond)
	mem.set(130)
	require.NoError(t, w.Close())
	require.EqualValues(t, 130, f.Passages(witness.DefaultName), "Close records the last count")
	require.Positive(t, mem.syncs, "a count is recorded once the memory's log is fsynced")

	// The same name with a memory that holds fewer: refused, and not recorded.
	lost := &counter{}
	w = start(t, o, lost)
	err := w.Err()
	var be *witness.BehindError
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, witness.ErrBehind)
	require.ErrorIs(t, err, memstore.ErrUnavailable)
	require.Equal(t, witness.BehindError{Name: witness.DefaultName, Holds: 0, Recorded: 130, URL: o.URL}, *be)
	require.NotContains(t, err.Error(), "/data/memory", "the client's message names no directory")
	require.NoError(t, w.Close())
	require.EqualValues(t, 130, f.Passages(witness.DefaultName))

	// Another name is another memory; a memory that caught up (rebuilt) is accepted.
	other := o
	other.Name = "replica-2"
	w = start(t, other, lost)
	require.NoError(t, w.Err())
	require.NoError(t, w.Close())
	lost.set(130)
	w = start(t, o, lost)
	require.NoError(t, w.Err())
	require.NoError(t, w.Close())
}

func TestWitnessRecreatesADeletedClass(t *testing.T) {
	f, o := newFake(t)
	mem := &counter{n: 4}
	w := start(t, o, mem)
	defer w.Close()
	require.Eventually(t, func() bool { return f.Passages(witness.DefaultName) == float64(4) }, 5*time.Second, 5*time.Millisecond)
	f.DeleteClass()
	mem.set(5)
	require.Eventually(t, func() bool { return f.Passages(witness.DefaultName) == float64(5) }, 5*time.Second, 5*time.Millisecond)
	exists, auto := f.HasClass()
	require.True(t, exists && !auto, "the class is made by the witness, not by auto-schema with the default vectorizer")
}

func TestWitnessRefusesAURLThatIsNotWeaviate(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	w, err := witness.Start(witness.Options{URL: ts.URL, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		&counter{n: 1}, "")
	require.NoError(t, err)
	defer w.Close()
	require.Eventually(t, func() bool { return strings.Contains(fmt.Sprint(w.Err()), "status 404") }, 5*time.Second, 10*time.Millisecond)
	require.ErrorIs(t, w.Err(), witness.ErrPending, "every answer 404 is not a Weaviate without a witness")
}

func TestWitnessReset(t *testing.T) {
	f, o := newFake(t)
	require.NoError(t, start(t, o, &counter{n: 500}).Close())
	o.Reset = true
	w := start(t, o, &counter{n: 7})
	require.NoError(t, w.Err())
	require.NoError(t, w.Close())
	require.EqualValues(t, 7, f.Passages(witness.DefaultName))
}

func TestWitnessWaitsForWeaviate(t *testing.T) {
	f, o := newFake(t)
	f.Fail(http.StatusBadGateway)
	w, err := witness.Start(o, &counter{n: 3}, "")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, w.Wait(ctx), witness.ErrPending)
	require.ErrorIs(t, w.Err(), memstore.ErrUnavailable)
	f.Fail(0)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	require.NoError(t, w.Wait(ctx2))
	require.NoError(t, w.Close())
	require.EqualValues(t, 3, f.Passages(witness.DefaultName))

	// Closed while Weaviate is down: Close returns at once, recording nothing.
	f.Fail(http.StatusBadGateway)
	w, err = witness.Start(o, &counter{n: 9}, "")
	require.NoError(t, err)
	begin := time.Now()
	require.NoError(t, w.Close())
	require.Less(t, time.Since(begin), time.Second)
	require.ErrorIs(t, w.Err(), witness.ErrPending)
	require.NoError(t, w.Close(), "a second Close returns the first's result")
	f.Fail(0)
	require.EqualValues(t, 3, f.Passages(witness.DefaultName))
}

func TestWitnessSaysWhyItWaits(t *testing.T) {
	f, o := newFake(t)
	f.Fail(http.StatusUnauthorized)
	w, err := witness.Start(o, &counter{n: 3}, "")
	require.NoError(t, err)
	defer w.Close()
	require.Eventually(t, func() bool { return strings.Contains(fmt.Sprint(w.Err()), "status 401") }, 5*time.Second, 10*time.Millisecond)
	require.ErrorIs(t, w.Err(), witness.ErrPending)
}

// TestWitnessWaitsNamingTheStatusOnly: while Weaviate answers the read of
// the witness with an error, the pending error (which servers answer their
// clients with) names the call and its status, not the answer's body.
func TestWitnessWaitsNamingTheStatusOnly(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/meta" {
			io.WriteString(w, `{"version":"1.39.0"}`)
			return
		}
		http.Error(w, "<html>a proxy's page: internal-host-7.example</html>", http.StatusBadGateway)
	}))
	t.Cleanup(ts.Close)
	w, err := witness.Start(witness.Options{URL: ts.URL, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		&counter{n: 3}, "")
	require.NoError(t, err)
	defer w.Close()
	require.Eventually(t, func() bool { return strings.Contains(fmt.Sprint(w.Err()), "status 502") }, 5*time.Second,
		10*time.Millisecond)
	require.ErrorIs(t, w.Err(), witness.ErrPending)
	require.NotContains(t, w.Err().Error(), "internal-host-7", "the pending error holds the answer's body")
}

func TestWitnessAcceptsWhenWritesFail(t *testing.T) {
	f, o := newFake(t)
	f.SetPassages(witness.DefaultName, 10)
	f.FailWrites(http.StatusForbidden) // a read-only key, or Weaviate read-only for lack of disk
	w := start(t, o, &counter{n: 50})
	require.NoError(t, w.Err(), "a memory ahead of its witness is accepted though the witness cannot be written")
	require.ErrorContains(t, w.Close(), "status 403")
	require.EqualValues(t, 10, f.Passages(witness.DefaultName))
}

func TestWitnessOfAReadOnlyMemory(t *testing.T) {
	f, o := newFake(t)
	w := start(t, o, &counter{n: 5, readOnly: true})
	require.NoError(t, w.Err())
	require.NoError(t, w.Close())
	require.Nil(t, f.Passages(witness.DefaultName), "a read-only memory only checks its witness")
	f.SetPassages(witness.DefaultName, 6)
	w = start(t, o, &counter{n: 5, readOnly: true})
	require.ErrorIs(t, w.Err(), witness.ErrBehind)
	require.ErrorIs(t, w.Err(), memstore.ErrRefused)
	require.NoError(t, w.Close())
}

func TestWitnessRefusesAWitnessThatIsNotACount(t *testing.T) {
	f, o := newFake(t)
	f.SetPassages(witness.DefaultName, "many")
	w, err := witness.Start(o, &counter{}, "")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = w.Wait(ctx)
	require.ErrorIs(t, err, witness.ErrPending, "a witness that cannot be read accepts nothing")
	require.NoError(t, w.Close())
}

func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    witness.Options
		want string
	}{
		{witness.Options{URL: "weaviate:8080"}, "want http://host:port"},
		{witness.Options{URL: "http://weaviate:8080/v1"}, "want http://host:port"},
		{witness.Options{URL: "http://user:secret@weaviate:8080"}, "without credentials"},
		{witness.Options{URL: "http://weaviate:8080", Name: "a\nb"}, "control characters"},
		{witness.Options{URL: "http://weaviate:8080", Name: strings.Repeat("n", 257)}, "at most 256 bytes"},
		{witness.Options{URL: "http://weaviate:8080", Every: -time.Second}, "want ≥ 0"},
	} {
		err := c.o.Check()
		require.ErrorContains(t, err, c.want)
		require.NotContains(t, err.Error(), "secret")
	}
	o := witness.Options{URL: " http://weaviate:8080/ "}
	require.NoError(t, o.Check())
	require.Equal(t, "http://weaviate:8080", o.URL)
	require.Equal(t, witness.DefaultName, o.Name)
	require.Equal(t, witness.DefaultEvery, o.Every)
}
