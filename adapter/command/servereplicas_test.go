package command_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// TestServeWeaviateReplicas: without --memory-weaviate-replicas serve
// creates the memory's collection with one replica on each of the nodes
// Weaviate lists, and says so; a collection that exists keeps its factor,
// with no warning; a factor given is the one a collection is created with.
func TestServeWeaviateReplicas(t *testing.T) {
	mf := modelFile(t)
	for _, c := range []struct {
		nodes, existing, want int
		log                   string
	}{{1, 0, 1, "nodes=1 replicas=1"}, {3, 0, 3, "nodes=3 replicas=3"}, {3, 2, 2, ""}} {
		mem, ts := fakeweaviate.New(t)
		mem.Nodes = c.nodes
		if c.existing > 0 {
			_, stop, _ := startServe(t, "--model", mf, "--memory-weaviate", ts.URL,
				"--memory-weaviate-replicas", fmt.Sprint(c.existing))
			mem.WaitFactor(t, c.existing)
			stop()
		}
		url, stop, errb := startServe(t, "--model", mf, "--memory-weaviate", ts.URL)
		mem.WaitFactor(t, c.want)
		meta := ""
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, _, meta = testhttp.Get(t, url+"/meta"); strings.Contains(meta, fmt.Sprintf(`"replicas":%d,`, c.want)) {
				break
			}
		}
		stop()
		if asked := fmt.Sprintf(`"replicas":%d,"replicas_asked":0,`, c.want); !strings.Contains(meta, asked) ||
			strings.Contains(meta, "replicas_warning") {
			t.Errorf("%d nodes, collection of factor %d: /meta wants %s and no replicas_warning:\n%s",
				c.nodes, c.existing, asked, meta)
		}
		if c.log != "" && !strings.Contains(errb.String(), c.log) || strings.Contains(errb.String(), "keeps its replication factor") {
			t.Errorf("%d nodes, collection of factor %d: want %q in the log, no warning:\n%s", c.nodes, c.existing, c.log, errb)
		}
	}
}
