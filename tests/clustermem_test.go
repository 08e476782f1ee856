//go:build unix

package e2e

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/module"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
)

// memClass is the teaching collection of TestClusterMemoryInWeaviate.
const memClass = "Mem"

// TestClusterMemoryInWeaviate runs a three-node cluster of the custom
// Weaviate whose module keeps its context memory in the cluster itself
// (module.EnvMemoryWeaviate: each node its own address; the memory's
// collection replicated on every node). Three clients import the documents
// at the same time, a third each through a different node; one node is
// killed (kill -9) in mid-import and started again on its data, and the
// clients resend what failed through another node until every document is
// stored. Then every document is stored once with a vector; once every
// node's copy of the collection's memory has read the same objects (the
// same version), every node gives each query the same vector, bit for bit,
// and the one a single node with its memory in its data directory gives
// after importing the same documents once, in order: the copies keep the
// contexts of smallest hash and count each passage once, so neither the
// order nor the node that learned a document changes the memory. A stored
// vector, though, is made over the memory as it is when its object is
// imported, which differs between three concurrent clients and one ordered
// import: nearText gives the same top 10 through the nodes that stayed up
// (search gaps of Weaviate's index aside, see indexGaps) and MRR@10 within
// 0.02 of the single node's (the restarted node searches
// a replica of its own, see compareMRR). Then both refresh every stored
// vector (package refresh with All): by default refresh keeps a vector
// within its tolerance of the current one (cosine ≥ 1 − 1e-6), and an
// object imported late, when the memory lacked only a few contexts of a
// word it weighs little, can be within it with other last bits than the
// single node's. After that every node stores the single node's vectors
// bit for bit, nearText gives the same top 10 through every node and
// MRR@10 is within 0.005.
func TestClusterMemoryInWeaviate(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	docs, queries := clusterData(t, r, 1500)
	nodes := startCluster(t, customServer(t, e.repo), t.TempDir(), clusterSize, func(_ int, p weaviatePorts) []string {
		return append(customEnv(r), module.EnvVectorsEndpoint+"=true",
			module.EnvMemoryWeaviate+"=http://127.0.0.1:"+strconv.Itoa(p.HTTP),
			module.EnvMemoryWeaviateReplicas+"="+strconv.Itoa(clusterSize))
	})
	class := amCollection(memClass, map[string]any{"vectorizeClassName": false, "teach": true})
	class["replicationConfig"] = map[string]any{"factor": clusterSize}
	createCollection(t, nodes[0], class)
	for _, w := range nodes {
		waitCollection(t, w, memClass)
	}
	start := time.Now()
	restarted := clusterSize - 1 // not node 0, which the others join
	failed := importThroughAll(t, nodes, memCol, docs, nodeFault(t, nodes, restarted)).failures
	t.Logf("%d documents imported by %d clients at once through %d nodes in %v, node %d killed and started again in mid-import: "+
		"%d failed attempts (a request or objects of one) resent", len(docs), clusterSize, clusterSize, time.Since(start).Round(time.Second),
		restarted, failed)
	checkStoredOnce(t, nodes, memCol, restarted, docs, r.vec.Dim())
	waitCopiesAgree(t, nodes, memClass)
	cluster := make([][][]float32, len(nodes))
	for i, w := range nodes {
		cluster[i] = queryVectors(t, w, queries)
		if same := sameVectorCount(cluster[i], cluster[0]); same != len(queries) {
			t.Errorf("node %d gives %d of %d queries the vector node 0 gives, want all (bit for bit)", i, same, len(queries))
		}
	}
	single := deployB(t, e, r, t.TempDir(), 1, false).nodes[0]
	createCollection(t, single, amCollection(memClass, map[string]any{"vectorizeClassName": false, "teach": true}))
	if res, err := importDocs(context.Background(), newClient(t, single), memClass, docs, nil, batchSize, nil); err != nil || len(res.Failures) > 0 {
		t.Fatalf("single node import: %v %v", err, res.Failures)
	}
	compareQueryVectors(t, queryVectors(t, single, queries), cluster[0])
	compareWithSingle(t, nodes, restarted, single, memCol, docs, queries, func(w *weaviateServer) refresh.Options {
		return refresh.Options{Weaviate: w.url(""), Class: memClass, All: true}
	})
}

// clusterCol is the collection a cluster test imports into under faults
// and the vector it searches ("": the class vector).
type clusterCol struct{ class, target string }

// memCol is the collection of TestClusterMemoryInWeaviate.
var memCol = clusterCol{memClass, "am"}

// resendLog counts the failed attempts of concurrent clients, those whose
// message holds mark (when set), and keeps the first message.
type resendLog struct {
	mu       sync.Mutex
	mark     string
	failures int
	marked   int
	first    string
}

func (l *resendLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failures++; l.failures == 1 {
		l.first = msg
	}
	if l.mark != "" && strings.Contains(msg, l.mark) {
		l.marked++
	}
}

// fault is what importThroughAll does to a cluster in mid-import: kill
// once a quarter of the documents is stored, restart once half is (or
// after 10 minutes). A failed attempt whose message holds mark shows that
// the fault hit the import.
type fault struct {
	what          string
	mark          string
	markOptional  bool // count the failed attempts that name mark, but do not require one
	kill, restart func()
}

// nodeFault kills node victim (kill -9) and starts it again on its data and
// ports; restart returns once every node sees all of them.
func nodeFault(t *testing.T, nodes []*weaviateServer, victim int) fault {
	w := nodes[victim]
	return fault{what: fmt.Sprintf("node %d", victim), kill: w.proc.kill, restart: func() {
		w.launch(t)
		if err := pollHTTP(w.proc, w.url("/v1/.well-known/ready"), 5*time.Minute); err != nil {
			t.Fatalf("node %d after the kill: %v", victim, err)
		}
		for _, x := range nodes {
			if err := pollNodes(x, len(nodes)); err != nil {
				t.Fatalf("after node %d started again: %v", victim, err)
			}
		}
	}}
}

// importThroughAll imports docs into col through every node at once, a
// third each (client c through node c, in batches), and causes f: kill
// once a quarter of the documents is stored, restart once half is; the
// clients stop at two thirds until it is done, so that what was killed
// takes part in the last third again. Each client resends what failed,
// through the next node, until every document is stored. It returns the
// log of the failed attempts; it fails the test when the fault did not hit
// the import.
func importThroughAll(t *testing.T, nodes []*weaviateServer, col clusterCol, docs []dataset.Document, f fault) *resendLog {
	t.Helper()
	clients := make([]*weaviate.Client, len(nodes))
	for i, w := range nodes {
		clients[i] = newClient(t, w)
	}
	var stored atomic.Int64
	log := &resendLog{mark: f.mark}
	back := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(back) }) }
	defer release() // the clients end when the test fails first
	gate := func() {
		if stored.Load() >= int64(2*len(docs)/3) {
			<-back
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	n := len(docs)
	for c := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			idx := indexRange(c*n/len(nodes), (c+1)*n/len(nodes))
			errs[c] = importResending(clients, col.class, c, docs, idx, gate, &stored, log)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	injectFault(t, f, &stored, n, done)
	release()
	<-done
	for c, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", c, err)
		}
	}
	if log.failures == 0 {
		t.Fatalf("no request failed: %s was not killed in mid-import", f.what)
	}
	if f.mark != "" && !f.markOptional && log.marked == 0 {
		t.Fatalf("no failed attempt names %s: %s was not killed in mid-import (first failure: %.300s)", f.mark, f.what,
			log.first)
	}
	t.Logf("first failure (resent): %.300s", log.first)
	return log
}

// injectFault causes f while the clients import n documents (stored
// counts them; done closes when they end).
func injectFault(t *testing.T, f fault, stored *atomic.Int64, n int, done <-chan struct{}) {
	t.Helper()
	waitStored(stored, int64(n/4), done)
	select {
	case <-done:
		t.Fatalf("the import ended (%d of %d documents stored) before %s was killed", stored.Load(), n, f.what)
	default:
	}
	f.kill()
	t.Logf("%s killed with %d of %d documents stored", f.what, stored.Load(), n)
	down := time.Now()
	// What is left is a quorum: the import goes on without it (a bound on
	// liveness, not a measure of speed: on two loaded cores writes with a
	// replica down ran at a few documents a second).
	if !waitStoredFor(stored, int64(n/2), 10*time.Minute) {
		t.Errorf("with %s down for 10 minutes the import stalled: %d of %d documents stored", f.what, stored.Load(), n)
	}
	t.Logf("%s down for %v, %d of %d documents stored", f.what, time.Since(down).Round(time.Second), stored.Load(), n)
	f.restart()
	t.Logf("%s back after %v with %d of %d documents stored", f.what, time.Since(down).Round(time.Second), stored.Load(), n)
}

// waitStoredFor waits at most d until stored reaches want; it reports
// whether it did.
func waitStoredFor(stored *atomic.Int64, want int64, d time.Duration) bool {
	for deadline := time.Now().Add(d); stored.Load() < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// waitStored returns once stored reaches want or done is closed.
func waitStored(stored *atomic.Int64, want int64, done <-chan struct{}) {
	for stored.Load() < want {
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// importResending imports docs[i], i in idx, into class through
// clients[c] in batches, calling gate before each; the objects of a batch
// that fail (or the whole batch, when the request fails) are resent through
// the next node until they are stored (for at most 10 minutes a batch).
func importResending(clients []*weaviate.Client, class string, c int, docs []dataset.Document, idx []int, gate func(),
	stored *atomic.Int64, log *resendLog) error {
	for lo := 0; lo < len(idx); lo += batchSize {
		gate()
		batch := idx[lo:min(lo+batchSize, len(idx))]
		deadline := time.Now().Add(10 * time.Minute)
		for node := c; len(batch) > 0; node = (node + 1) % len(clients) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			res, err := importDocs(ctx, clients[node], class, docs, batch, batchSize, nil)
			cancel()
			stored.Add(int64(res.Objects))
			switch {
			case err != nil:
				log.add(fmt.Sprintf("through node %d: %v", node, err))
			case len(res.Failures) > 0:
				batch = slices.Sorted(maps.Keys(res.Failures))
				log.add(fmt.Sprintf("through node %d: document %d: %s", node, batch[0], res.Failures[batch[0]]))
			default:
				batch = nil
				continue
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("documents %v… still fail after 10 minutes", batch[:min(len(batch), 5)])
			}
			time.Sleep(time.Second)
		}
	}
	return nil
}

// checkStoredOnce checks that the cluster holds every document in col once (each
// document's object id is its index's: a resend rewrites it), each with a
// vector of dimension dim, through every node but restarted. A node's
// listing reads its own replica: that of the node killed and started again
// lacks, until Weaviate's async replication repairs it, the objects written
// while it was down; it is logged, as is Aggregate's count, which may read
// that replica through any node.
func checkStoredOnce(t *testing.T, nodes []*weaviateServer, col clusterCol, restarted int, docs []dataset.Document, dim int) {
	t.Helper()
	t.Logf("Aggregate counts %d objects of %s through node 0", objectCount(t, nodes[0], col.class), col.class)
	first := listVectors(t, nodes[0], col.class, col.target)
	for n, w := range nodes {
		vecs := listVectors(t, w, col.class, col.target)
		t.Logf("node %d lists %d objects, %d with the vector listed through node 0", n, len(vecs), sameStored(vecs, first))
		if n == restarted {
			continue
		}
		if len(vecs) != len(docs) {
			t.Errorf("%s lists %d objects through node %d, want %d", col.class, len(vecs), n, len(docs))
		}
		for i := range docs {
			if v, ok := vecs[i]; !ok || len(v) != dim {
				t.Errorf("document %d through node %d: stored %v with a vector of dimension %d, want %d", i, n, ok, len(v), dim)
			}
		}
	}
}

// scopeCopy is what a node's /v1/meta says of its copy of one scope of the
// memory kept in Weaviate.
type scopeCopy struct {
	state, version, err string
	objects             float64
}

// readScopeCopy reads w's copy of scope.
func readScopeCopy(t *testing.T, w *weaviateServer, scope string) scopeCopy {
	t.Helper()
	remote, _ := moduleMemory(t, w)["weaviate"].(map[string]any)
	scopes, _ := remote["scopes"].(map[string]any)
	sc, _ := scopes[scope].(map[string]any)
	c := scopeCopy{}
	c.state, _ = remote["state"].(string)
	c.err, _ = remote["error"].(string)
	c.version, _ = sc["version"].(string)
	c.objects, _ = sc["objects"].(float64)
	return c
}

// waitCopiesAgree waits (at most 5 minutes) until every node's copy of
// class's memory is ready and has the same version in two reads a second
// apart (each copy is refreshed every second).
func waitCopiesAgree(t *testing.T, nodes []*weaviateServer, class string) {
	t.Helper()
	for i, w := range nodes { // a node keeps a copy of the scopes in use since it started
		if _, err := moduleQueryVector(w, class, "debian"); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	var last []scopeCopy
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		copies := make([]scopeCopy, len(nodes))
		agree := true
		for i, w := range nodes {
			copies[i] = readScopeCopy(t, w, class)
			agree = agree && copies[i].state == "ready" && copies[i].version != "" && copies[i].version == copies[0].version
		}
		if agree && slices.Equal(copies, last) {
			t.Logf("every node's copy of %s's memory read %v objects (version %s)", class, copies[0].objects, copies[0].version)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nodes' copies of %s's memory do not agree after 5 minutes: %+v", class, copies)
		}
		last = copies
	}
}

// queryVectors returns the vector w's module gives each query on memClass.
func queryVectors(t *testing.T, w *weaviateServer, queries []dataset.RetrievalQuery) [][]float32 {
	t.Helper()
	out := make([][]float32, len(queries))
	for i, q := range queries {
		v, err := moduleQueryVector(w, memClass, q.Text)
		if err != nil {
			t.Fatalf("query %s: %v", q.ID, err)
		}
		out[i] = v
	}
	return out
}

// sameVectorCount counts the i with a[i] and b[i] equal bit for bit.
func sameVectorCount(a, b [][]float32) int {
	n := 0
	for i := range a {
		if slices.Equal(a[i], b[i]) {
			n++
		}
	}
	return n
}

// compareQueryVectors checks that the cluster gives every query the single
// node's vector, bit for bit (got: the single node's, want: the cluster's).
func compareQueryVectors(t *testing.T, got, want [][]float32) {
	t.Helper()
	minCos := 1.0
	for i := range got {
		minCos = math.Min(minCos, cosine(got[i], want[i]))
	}
	same := sameVectorCount(got, want)
	t.Logf("query vectors: %d of %d the single node's bit for bit (min cosine %.6f)", same, len(got), minCos)
	if same != len(got) {
		t.Errorf("the cluster gives %d of %d queries the single node's vector, want all (bit for bit)", same, len(got))
	}
}

// compareWithSingle compares col in the cluster with the single node:
// nearText through each node (but the one restarted, see compareMRR),
// whose stored vectors were each made over the memory as it was when the
// object was imported (which differs between three concurrent clients and
// one ordered import: MRR@10 within 0.02 of the single node's); then, once
// both have refreshed their stored vectors over the memory as it is
// (package refresh, with the options refreshing(w) for the cluster's node 0
// and for the single node), the single node's stored vectors bit for bit
// through every node and MRR@10 within 0.005.
func compareWithSingle(t *testing.T, nodes []*weaviateServer, restarted int, single *weaviateServer, col clusterCol,
	docs []dataset.Document, queries []dataset.RetrievalQuery, refreshing func(w *weaviateServer) refresh.Options) {
	t.Helper()
	compareMRR(t, nodes, single, col, docs, queries, "as imported", 0.02, restarted, true)
	for _, w := range []*weaviateServer{nodes[0], single} {
		st, err := refresh.Run(context.Background(), refreshing(w))
		if err != nil {
			t.Fatalf("refresh through port %d: %v", w.ports.HTTP, err)
		}
		t.Logf("refresh through port %d: %d read, %d updated", w.ports.HTTP, st.Read, st.Updated)
	}
	ref := listVectors(t, single, col.class, col.target)
	for n, w := range nodes {
		if differ := len(docs) - sameStored(listVectors(t, w, col.class, col.target), ref); differ > 0 {
			t.Errorf("after refresh, %d of %d objects through node %d have another vector than on the single node", differ, len(docs), n)
		}
	}
	compareMRR(t, nodes, single, col, docs, queries, "refreshed", 0.005, -1, false)
}

// sameStored counts the documents stored with the same vector in a and b.
func sameStored(a, b map[int][]float32) int {
	n := 0
	for i, v := range a {
		if w, ok := b[i]; ok && slices.Equal(v, w) {
			n++
		}
	}
	return n
}

// compareMRR checks that nearText on col gives every query the same top 10
// through each node but skip (-1: none) and that MRR@10 through each is
// within tol of the single node's; through node skip it logs both. A node
// killed and started again searches its own replica, which may lack, for
// minutes, objects written while it was down or keep other vectors of some
// written around its crash, until Weaviate's async replication repairs it
// or they are written again: Weaviate's part, not the module's, which gives
// every node the same query vector. With gaps, a top 10 that differs only
// by the search gaps of indexGaps is logged, not failed.
func compareMRR(t *testing.T, nodes []*weaviateServer, single *weaviateServer, col clusterCol, docs []dataset.Document,
	queries []dataset.RetrievalQuery, when string, tol float64, skip int, gaps bool) {
	t.Helper()
	s := metricsOf(t, docs, queries, nearTextTop(t, single, col, queries)).MRR10
	var tops [][][]string
	var kept []int
	var hits [][][]hit
	for i, w := range nodes {
		h := nearTextHits(t, w, col, queries)
		top := topIDs(h)
		m := metricsOf(t, docs, queries, top).MRR10
		t.Logf("stored vectors %s: MRR@10 through node %d %.4f, single node %.4f", when, i, m, s)
		if i == skip {
			t.Logf("stored vectors %s: %d of %d queries have another top 10 through node %d (started again) than through node 0",
				when, len(differingQueries([][][]string{tops[0], top})), len(queries), i)
			continue
		}
		tops, kept, hits = append(tops, top), append(kept, i), append(hits, h)
		if math.Abs(m-s) > tol {
			t.Errorf("stored vectors %s: MRR@10 through node %d %.4f, single node %.4f (differ by more than %.3f)", when, i, m, s, tol)
		}
	}
	differ := differingQueries(tops)
	if gaps && len(differ) > 0 {
		var found []searchGap
		found, differ = indexGaps(t, nodes, kept, col, docs, hits, differ)
		for _, g := range found {
			t.Logf("stored vectors %s: query %s: node %d's search leaves out %s, which it stores with the vector "+
				"another node returns it with (Weaviate's index)", when, queries[g.query].ID, g.node, g.docID)
		}
	}
	if len(differ) > 0 {
		t.Errorf("stored vectors %s: %d of %d queries have another top 10 through some node", when, len(differ), len(queries))
		logDistances(t, deployment{nodes: nodes}, clusterPath{target: col.target}, col.class, queries[differ[0]])
	}
}

// searchGap is a document a node's search left out of a query's top 10
// although the node stores it with the vector another node returned it
// with, at a distance the top 10 would include.
type searchGap struct {
	query, node int // the node that left the document out
	docID       string
}

// indexGaps explains the top 10s of the queries in differ (through the
// nodes kept, whose nearText hits are hits[k][query]): the gaps, and the
// queries with a difference that is neither a gap nor a tie at the tenth
// place (another distance for a document both return: another query
// vector; or a document left out that the node does not store with the
// same vector). After a node's crash in mid-batch, Weaviate's search on a
// replica can leave out an object the replica lists with the very vector
// another replica finds it by: Weaviate's part, not the vectors the module
// gave.
func indexGaps(t *testing.T, nodes []*weaviateServer, kept []int, col clusterCol, docs []dataset.Document, hits [][][]hit,
	differ []int) (gaps []searchGap, rest []int) {
	t.Helper()
	stored := make([]map[int][]float32, len(kept))
	for k, n := range kept {
		stored[k] = listVectors(t, nodes[n], col.class, col.target)
	}
	return searchGaps(stored, kept, docs, hits, differ)
}

// searchGaps is indexGaps over the vectors the nodes kept store
// (stored[k]: by document index).
func searchGaps(stored []map[int][]float32, kept []int, docs []dataset.Document, hits [][][]hit,
	differ []int) (gaps []searchGap, rest []int) {
	byID := map[string][]int{}
	for i, d := range docs {
		byID[d.ID] = append(byID[d.ID], i)
	}
	sameVector := func(a, b int, id string) bool {
		for _, i := range byID[id] {
			va, ok := stored[a][i]
			if vb := stored[b][i]; !ok || !slices.Equal(va, vb) {
				return false
			}
		}
		return len(byID[id]) > 0
	}
	const eps = 1e-6 // distances of one vector pair agree to float32 rounding
	for _, q := range differ {
		var found []searchGap
		explained := true
		for a := range kept {
			for b := range kept {
				for _, hb := range hits[b][q] {
					ha, in := findHit(hits[a][q], hb.DocID)
					switch {
					case in && math.Abs(ha.Additional.Distance-hb.Additional.Distance) > eps:
						explained = false
					case in || hb.Additional.Distance >= lastDistance(hits[a][q])-eps:
					case sameVector(a, b, hb.DocID):
						found = append(found, searchGap{query: q, node: kept[a], docID: hb.DocID})
					default:
						explained = false
					}
				}
			}
		}
		if explained {
			gaps = append(gaps, found...)
		} else {
			rest = append(rest, q)
		}
	}
	return gaps, rest
}

// findHit returns the hit of docID in hits.
func findHit(hits []hit, docID string) (hit, bool) {
	i := slices.IndexFunc(hits, func(h hit) bool { return h.DocID == docID })
	if i < 0 {
		return hit{}, false
	}
	return hits[i], true
}

// lastDistance is the distance of the last of hits (+Inf if fewer than 10:
// a full top 10 would have included any document).
func lastDistance(hits []hit) float64 {
	if len(hits) < 10 {
		return math.Inf(1)
	}
	return hits[len(hits)-1].Additional.Distance
}

// differingQueries returns the queries whose top 10 is not the same list
// in every one of tops (node → query → top 10).
func differingQueries(tops [][][]string) []int {
	var differ []int
	for q := range tops[0] {
		for _, top := range tops[1:] {
			if !slices.Equal(top[q], tops[0][q]) {
				differ = append(differ, q)
				break
			}
		}
	}
	return differ
}

// nearTextTop is the top 10 of nearText on col through w for each query,
// documents at equal distance sorted by docId.
func nearTextTop(t *testing.T, w *weaviateServer, col clusterCol, queries []dataset.RetrievalQuery) [][]string {
	t.Helper()
	return topIDs(nearTextHits(t, w, col, queries))
}

// nearTextHits is the top 10 of nearText on col through w for each query,
// with distances.
func nearTextHits(t *testing.T, w *weaviateServer, col clusterCol, queries []dataset.RetrievalQuery) [][]hit {
	t.Helper()
	hits := make([][]hit, len(queries))
	for i, q := range queries {
		var err error
		if hits[i], err = searchHits(w, col.class, q.Text, col.target); err != nil {
			t.Errorf("query %s through port %d: %v", q.ID, w.ports.HTTP, err)
		}
	}
	return hits
}

// topIDs is the docIds of each query's hits, documents at equal distance
// sorted by docId.
func topIDs(hits [][]hit) [][]string {
	top := make([][]string, len(hits))
	for i, h := range hits {
		top[i], _ = sortTies(h)
	}
	return top
}

func TestSearchGaps(t *testing.T) {
	docs := []dataset.Document{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	v := [][]float32{{1, 0}, {0, 1}, {1, 1}, {2, 1}}
	both := map[int][]float32{0: v[0], 1: v[1], 2: v[2], 3: v[3]}
	other := map[int][]float32{0: v[0], 1: v[1], 2: {9, 9}, 3: v[3]}
	full := func(ids string, dist ...float64) []hit { // ids padded to a top 10 at distance 0.9
		var hs []hit
		for i, id := range ids {
			h := hit{DocID: string(id)}
			h.Additional.Distance = dist[i]
			hs = append(hs, h)
		}
		for len(hs) < 10 {
			h := hit{DocID: fmt.Sprintf("pad%d", len(hs))}
			h.Additional.Distance = 0.9
			hs = append(hs, h)
		}
		return hs
	}
	cases := []struct {
		name     string
		stored0  map[int][]float32
		n0, n1   []hit
		wantGaps int
		wantRest []int
	}{
		{"node 0 leaves out a document it stores", both, full("ab", 0.1, 0.2), full("abc", 0.1, 0.2, 0.3), 1, nil},
		{"node 0 stores another vector", other, full("ab", 0.1, 0.2), full("abc", 0.1, 0.2, 0.3), 0, []int{0}},
		{"another distance for a shared document", both, full("abc", 0.1, 0.2, 0.31), full("abc", 0.1, 0.2, 0.3), 0, []int{0}},
		{"a tie at the tenth place", both, full("ab", 0.1, 0.2), full("abpppppppd", 0.1, 0.2, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9), 0,
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gaps, rest := searchGaps([]map[int][]float32{c.stored0, both}, []int{0, 1}, docs,
				[][][]hit{{c.n0}, {c.n1}}, []int{0})
			if len(gaps) != c.wantGaps || !slices.Equal(rest, c.wantRest) {
				t.Errorf("gaps %v, rest %v; want %d gaps, rest %v", gaps, rest, c.wantGaps, c.wantRest)
			}
		})
	}
}
