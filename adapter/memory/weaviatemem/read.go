package weaviatemem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

const (
	// pageSize is the objects per page of a read (the cursor's and the
	// reads by creation time): a lesson object holds at most maxLessonBytes
	// of text, so a page holds at most 8 MiB of it, and JSON's quotes and
	// escapes; but an object of one item larger alone holds that item: a
	// context is at most memory.Options.MaxContextBytes, a passage's
	// distinct words are as many as its text has.
	pageSize = 32
	// maxStalledPages bounds the pages in a row that do not move a read on.
	maxStalledPages = 3
	// maxIncrementalPages bounds an incremental read; more is read in full.
	maxIncrementalPages = 256
	// fullReadEvery bounds how often a count lower than the copy's (a
	// lagging replica answered, or the tenant was emptied) reads in full.
	fullReadEvery = 30 * time.Second
	// noIncrementalFor is how long incremental reads are not tried once
	// Weaviate refused one or answered it with unreadable creation times.
	noIncrementalFor = 10 * time.Minute
	// minTimestamp is the least threshold of an incremental read: Weaviate
	// compares creation times as decimal strings, all 13 digits long since
	// 2001.
	minTimestamp = 1_000_000_000_000
)

// refresh brings sc up to date: a count, then nothing, the objects created
// lately, or every object. A count below the objects the copy held before
// it was asked for (a tenant emptied, a replica that lags) reads every object
// into a new copy, at most every fullReadEvery; the server's own writes
// acknowledged while the count was under way do not (those Weaviate counted
// may hide as many objects gone, until a count they do not overlap). Any
// other full read adds the objects the copy lacks to it.
func (s *Store) refresh(ctx context.Context, sc *scope) error {
	before := int(sc.objects())
	n, err := weaviateapi.Count(ctx, s.call, s.o.Class, sc.tenant)
	s.refreshes.add("probe")
	if err != nil {
		return err
	}
	sc.mu.Lock()
	known := int(sc.read.count)
	afresh := n < before && time.Since(sc.lastFull) > fullReadEvery
	full := afresh || sc.full || !sc.isLoaded() || n-known > known
	if !full && n > known && time.Now().Before(sc.noIncremental) {
		full = time.Since(sc.lastFull) > fullReadEvery
		if !full { // the copy lags until the next full read
			sc.mu.Unlock()
			return nil
		}
	}
	idle := !full && n <= known
	if idle {
		sc.refreshed = time.Now()
	}
	sc.mu.Unlock()
	switch {
	case afresh:
		return s.readAfresh(ctx, sc, n)
	case full:
		return s.readAll(ctx, sc, n)
	case idle:
		return nil
	}
	return s.readSince(ctx, sc, n)
}

// readAll reads every object of sc's tenant through the cursor and adds
// those the copy lacks to it: the copy is not read a second time, and
// requests read it meanwhile (but for its first read, which they wait for).
// n is the count: a cursor that lists more than twice as many objects, or
// does not move, stops the read.
func (s *Store) readAll(ctx context.Context, sc *scope, n int) error {
	s.refreshes.add("full")
	start := time.Now()
	newest, err := s.scan(ctx, sc.tenant, n, sc.knows, func(objs []object, newest int64) error {
		return sc.apply(objs, false, newest)
	})
	if err != nil {
		return err
	}
	sc.caughtUp(min(newest, start.UnixMilli()))
	return nil
}

// readAfresh reads every object of sc's tenant through the cursor into a
// new copy, which replaces the old one (which may hold objects Weaviate no
// longer has); the server's own writes meanwhile go to both.
func (s *Store) readAfresh(ctx context.Context, sc *scope, n int) error {
	s.refreshes.add("afresh")
	start := time.Now()
	r, err := sc.beginFresh()
	if err != nil {
		return err
	}
	newest, err := s.scan(ctx, sc.tenant, n, r.knows, r.add)
	return sc.endFresh(r, err, min(newest, start.UnixMilli()))
}

// scan lists the objects of tenant to add, a page at a time with the
// newest creation time among them, each once: the cursor lists them by id,
// so one whose id is not past the page before's last is listed again and
// skipped (and a tally counts each object once anyway). The objects known
// reports (counted already) are neither decoded nor added. It returns the
// newest creation time listed.
func (s *Store) scan(ctx context.Context, tenant string, n int, known func(id string) bool,
	add func(objs []object, newest int64) error) (int64, error) {
	after, stalled, read, newest := "", 0, 0, int64(0)
	for {
		page, err := weaviateapi.ListExcept(ctx, s.call, s.o.Class, tenant, after, pageSize, known)
		if err != nil {
			return 0, err
		}
		objs := make([]object, 0, len(page))
		for _, p := range page {
			if after != "" && strings.ToLower(p.ID) <= after {
				continue
			}
			newest = max(newest, p.CreationTimeUnix)
			if known(p.ID) {
				continue
			}
			o := s.decode(tenant, p.ID, p.Properties)
			o.created = p.CreationTimeUnix
			objs = append(objs, o)
		}
		if err := add(objs, newest); err != nil {
			return 0, err
		}
		if read += len(page); read > 2*n+pageSize {
			return 0, fmt.Errorf("list %s of tenant %s: more than %d objects listed, %d counted", s.o.Class, tenant, read, n)
		}
		if len(page) < pageSize {
			return newest, nil
		}
		if last := strings.ToLower(page[len(page)-1].ID); last > after {
			after, stalled = last, 0
		} else if stalled++; stalled >= maxStalledPages {
			return 0, fmt.Errorf("list %s of tenant %s after %q: %d pages in a row do not move the cursor", s.o.Class, tenant, after, stalled)
		}
	}
}

// decode decodes an object; one that is not the memory's (its id does not
// match its content) is kept as an id without content, so that the counts
// still match, and logged.
func (s *Store) decode(tenant, id string, props map[string]any) object {
	o, err := decodeObject(id, props)
	if err != nil {
		s.o.Logger.Warn("context memory: an object in Weaviate is ignored", "class", s.o.Class, "tenant", tenant, "err", err)
		o = object{id: uuid.NewSHA1(idSpace, []byte("unreadable\x00"+id))}
	}
	return o
}

// readSince reads the objects created since sc's newest read less the
// lookback, by creation time, into the copy; when that cannot account for
// the count n, the next refresh reads every object. The next read starts
// at the newest creation time read, but no later than a lookback past the
// clock's time now: an object created (or stamped by a node's clock) in
// the future would otherwise make every read after it start past the
// objects created meanwhile, and each one then read in full.
func (s *Store) readSince(ctx context.Context, sc *scope, n int) error {
	s.refreshes.add("incremental")
	latest := time.Now().UnixMilli() + sc.lookback
	sc.mu.RLock()
	from := max(sc.since-sc.lookback, minTimestamp)
	sc.mu.RUnlock()
	newest, after := from, "" // after: the id of the last object read of from's millisecond
	for range maxIncrementalPages {
		objs, times, last, err := s.getSince(ctx, sc.tenant, from, after, sc.knows)
		var refused *weaviateapi.GraphQLError
		if errors.As(err, &refused) || errors.Is(err, errCreationTime) {
			s.incrementalOff(sc, err)
			return nil
		}
		if err != nil {
			return err
		}
		at := from
		for _, t := range times {
			at = max(at, t)
		}
		newest = max(newest, at)
		if err := sc.apply(objs, false, newest); err != nil {
			return err
		}
		if len(times) < pageSize {
			break
		}
		if t := times[len(times)-1]; t < from || t == from && last <= after {
			break // the page does not move the read on (the count then reads in full)
		}
		from, after = times[len(times)-1], last
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.since = max(sc.since, min(newest, latest))
	if sc.read.count < int64(n) {
		s.refreshes.add("incomplete") // the objects read by creation time do not account for the count
		sc.full = true
		return nil
	}
	sc.refreshed = time.Now()
	return nil
}

// incrementalOff reads sc through the cursor next, and then only so, at most
// every fullReadEvery, for noIncrementalFor: Weaviate refused the query of
// an incremental read (err), or answered it with creation times that order
// nothing. It logs once a period.
func (s *Store) incrementalOff(sc *scope, err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if time.Now().After(sc.noIncremental) {
		s.o.Logger.Warn("context memory: incremental reads of Weaviate fail; reading every object instead, "+
			"at most every "+fullReadEvery.String(), "class", s.o.Class, "tenant", sc.tenant, "err", err)
	}
	sc.full, sc.noIncremental = true, time.Now().Add(noIncrementalFor)
}

// errCreationTime is a creation time in a GraphQL answer that is not a
// number of milliseconds.
var errCreationTime = errors.New("creation time is not a number")

// getSince returns a page of the objects of tenant created at from or
// later (milliseconds), oldest first and, of one millisecond, by id, with
// the creation times of the page's objects and the id of the last. With
// after, it returns those created later than from, and those created at
// from whose id is greater than after: a read goes on within a millisecond,
// which all the objects of a batch share. The objects known reports
// (counted already) are left out, not decoded, but their times count.
func (s *Store) getSince(ctx context.Context, tenant string, from int64, after string,
	known func(id string) bool) ([]object, []int64, string, error) {
	tn, _ := json.Marshal(tenant)
	where := fmt.Sprintf(`{path: ["_creationTimeUnix"], operator: GreaterThanEqual, valueText: "%d"}`, from)
	if after != "" {
		id, _ := json.Marshal(after)
		where = fmt.Sprintf(`{operator: Or, operands: [`+
			`{path: ["_creationTimeUnix"], operator: GreaterThan, valueText: "%d"}, `+
			`{operator: And, operands: [{path: ["_creationTimeUnix"], operator: Equal, valueText: "%d"}, `+
			`{path: ["_id"], operator: GreaterThan, valueText: %s}]}]}`, from, from, id)
	}
	// Weaviate's GraphQL Get takes no consistency level: one replica
	// answers, and what it lacks shows as a count not accounted for.
	q := fmt.Sprintf(`{ Get { %s(tenant: %s, limit: %d, where: %s, `+
		`sort: [{path: ["_creationTimeUnix"], order: asc}, {path: ["_id"], order: asc}]) `+
		`{ %s _additional { id creationTimeUnix } } } }`,
		s.o.Class, tn, pageSize, where, strings.Join(propertyNames(), " "))
	var data struct {
		Get map[string][]json.RawMessage `json:"Get"`
	}
	if err := weaviateapi.GraphQL(ctx, s.call, q, &data); err != nil {
		return nil, nil, "", fmt.Errorf("read %s of tenant %s created since %d: %w", s.o.Class, tenant, from, err)
	}
	rows := data.Get[s.o.Class]
	if len(rows) > pageSize {
		return nil, nil, "", fmt.Errorf("read %s of tenant %s: %d objects, more than the %d asked for", s.o.Class, tenant, len(rows), pageSize)
	}
	objs, times, last := make([]object, 0, len(rows)), make([]int64, 0, len(rows)), ""
	for _, raw := range rows {
		var row struct {
			Additional struct {
				ID               string          `json:"id"`
				CreationTimeUnix json.RawMessage `json:"creationTimeUnix"`
			} `json:"_additional"`
		}
		err := json.Unmarshal(raw, &row)
		id, ts := row.Additional.ID, ""
		json.Unmarshal(row.Additional.CreationTimeUnix, &ts) // a number is not a time either
		t, perr := strconv.ParseInt(ts, 10, 64)
		if err != nil || perr != nil {
			return nil, nil, "", fmt.Errorf("read %s of tenant %s: object %q: %w: %q", s.o.Class, tenant, id, errCreationTime, ts)
		}
		times, last = append(times, t), id
		if known(id) {
			continue
		}
		var props map[string]any
		if err := json.Unmarshal(raw, &props); err != nil {
			return nil, nil, "", fmt.Errorf("read %s of tenant %s: object %q: %w", s.o.Class, tenant, id, err)
		}
		o := s.decode(tenant, id, props)
		o.created = t
		objs = append(objs, o)
	}
	return objs, times, last, nil
}
