package memoryapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// EnvToken is the environment variable that gives a client the holder's
// bearer token (the holder's --auth-token-file): read by the in-process
// module and by `memory rebuild --memory-url`.
const EnvToken = "TEXT2VEC_AM_MEMORY_TOKEN"

// ErrUnavailable wraps every failure to reach the holder or to get a usable
// answer from it: nothing may be vectorized without the shared memory.
var ErrUnavailable = errors.New("shared context memory unavailable")

// ClientOptions configure a Client.
type ClientOptions struct {
	// Timeout bounds one request to the holder (default 30 s).
	Timeout time.Duration
	// CacheWords bounds the words whose contexts are cached (default 65,536).
	CacheWords int
	// HTTPClient is used when set (its Timeout is left alone).
	HTTPClient *http.Client
	// Token, if set, is sent as "Authorization: Bearer Token" (the holder's
	// --auth-token-file).
	Token string
	// PinFile, if set, keeps the highest passage count the holder reported
	// for each collection: a learn answered with fewer fails with
	// ErrStoreLost (the holder came back without its store).
	PinFile string
}

// Client talks to the holder of a shared memory. It is safe for concurrent use.
type Client struct {
	base  string
	http  *http.Client
	token string
	cache contextCache
	pins  *pins

	mu      sync.Mutex
	amEpoch string
	am      map[*vectorizer.Vectorizer]*vectorizer.Cache // AM vectors of the holder's epoch amEpoch
}

// MaxAnswerBytes bounds an answer of the holder: the client refuses a longer
// one, the holder refuses a lookup whose contexts would exceed it.
const MaxAnswerBytes = 256 << 20

// NewClient returns a client of the holder at baseURL (http or https, e.g.
// http://text2vec-am-memory:8080).
func NewClient(baseURL string, opts ClientOptions) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("memory URL %q: want http://host:port or https://host:port", baseURL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.CacheWords <= 0 {
		opts.CacheWords = 1 << 16
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: opts.Timeout}
	}
	p, err := loadPins(opts.PinFile)
	if err != nil {
		return nil, err
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), http: hc, token: opts.Token, cache: contextCache{max: opts.CacheWords},
		pins: p}, nil
}

// Close writes the pins that grew since they were last written.
func (c *Client) Close() error { return c.pins.save() }

// URL returns the holder's base URL.
func (c *Client) URL() string { return c.base }

// post sends req as JSON to path and decodes the answer into out.
func (c *Client) post(ctx context.Context, path string, req, out any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("memory API %s: encode: %w", path, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s%s: %v", ErrUnavailable, c.base, path, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return fmt.Errorf("%w: %s%s: %v", ErrUnavailable, c.base, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	if err != nil {
		return fmt.Errorf("%w: %s%s: read answer: %v", ErrUnavailable, c.base, path, err)
	}
	if len(raw) > MaxAnswerBytes {
		return fmt.Errorf("%w: %s%s: answer larger than %d bytes", ErrUnavailable, c.base, path, MaxAnswerBytes)
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = fmt.Sprintf("%.200s", raw)
		}
		return fmt.Errorf("%w: %s%s: status %d: %s", ErrUnavailable, c.base, path, resp.StatusCode, e.Error)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: %s%s: decode answer: %v", ErrUnavailable, c.base, path, err)
	}
	return nil
}

// learn sends lesson; it returns the passages the holder now counts for
// collection (-1 when there was nothing to send).
func (c *Client) learn(ctx context.Context, collection string, lesson vectorizer.Lesson) (int64, error) {
	if len(lesson.Observations) == 0 && len(lesson.Passages) == 0 {
		return -1, nil
	}
	obs := make([]Observation, len(lesson.Observations))
	for i, o := range lesson.Observations {
		obs[i] = Observation{Word: o.Word, Context: o.Context}
	}
	var resp LearnResponse
	if err := c.post(ctx, PathLearn, LearnRequest{Collection: collection, Observations: obs, Passages: lesson.Passages}, &resp); err != nil {
		return 0, err
	}
	return resp.Passages, c.pins.check(collection, resp.Passages)
}

// Learn teaches the holder texts as passages of collection ("" = the shared
// counts only), as VectorizeBatch with TaskPassage does, in one request, and
// vectorizes nothing. A text over MaxAMWords teaches nothing (refused
// counts them). It returns the passages the holder now counts for
// collection (-1 when the texts taught nothing).
func (c *Client) Learn(ctx context.Context, v *vectorizer.Vectorizer, collection string, texts []string,
	opts vectorizer.Options) (passages int64, refused int, err error) {
	lesson, refused, err := v.Lesson(texts, opts)
	if err != nil {
		return 0, refused, err
	}
	passages, err = c.learn(ctx, collection, lesson)
	return passages, refused, err
}

// lookup fetches the counts of words and the contexts of am into a view.
func (c *Client) lookup(ctx context.Context, collection string, words, am []string) (*view, error) {
	for attempt := 0; ; attempt++ {
		req := LookupRequest{Collection: collection, Words: words, Contexts: make([]ContextQuery, len(am))}
		for i, w := range am {
			req.Contexts[i] = ContextQuery{Word: w}
			if attempt == 0 {
				req.Contexts[i].Have = c.cache.have(w)
			}
		}
		var resp LookupResponse
		if err := c.post(ctx, PathLookup, req, &resp); err != nil {
			return nil, err
		}
		if len(resp.DF) != len(words) || len(resp.Contexts) != len(am) {
			return nil, fmt.Errorf("%w: %s%s: %d counts and %d context sets for %d and %d words", ErrUnavailable,
				c.base, PathLookup, len(resp.DF), len(resp.Contexts), len(words), len(am))
		}
		if !c.cache.resolve(resp.Epoch, req.Contexts, resp.Contexts) {
			if attempt == 0 {
				continue // the cache was dropped meanwhile: ask for every context
			}
			return nil, fmt.Errorf("%w: %s%s: contexts omitted that were not asked for", ErrUnavailable, c.base, PathLookup)
		}
		v := &view{epoch: resp.Epoch, passages: resp.Passages, df: make(map[string]int64, len(words)), ctx: make(map[string]Contexts, len(am))}
		for i, w := range words {
			v.df[w] = resp.DF[i]
		}
		for i, w := range am {
			v.ctx[w] = resp.Contexts[i]
		}
		return v, nil
	}
}

// amCache returns the AM vectors computed by v over the holder's epoch
// (versions of another epoch may name other contexts).
func (c *Client) amCache(v *vectorizer.Vectorizer, epoch string) *vectorizer.Cache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.amEpoch || c.am == nil {
		c.amEpoch, c.am = epoch, map[*vectorizer.Vectorizer]*vectorizer.Cache{}
	}
	vc := c.am[v]
	if vc == nil {
		vc = vectorizer.NewCache()
		c.am[v] = vc
	}
	return vc
}

// VectorizeBatch vectorizes texts with v against the shared memory: with
// TaskPassage it first teaches the holder (contexts and passage counts, in one
// request), then reads what the texts need (one request) and vectorizes them
// locally. collection names the collection whose passage counts weigh the
// words ("" = the shared counts). err is set, and no vector returned, when the
// holder cannot be reached or answers an error (it wraps ErrUnavailable);
// errs[i] is the error of texts[i] otherwise.
func (c *Client) VectorizeBatch(ctx context.Context, v *vectorizer.Vectorizer, collection string, texts []string, task vectorizer.Task, opts vectorizer.Options) (vecs [][]float32, errs []error, err error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	if task == vectorizer.TaskPassage {
		opts = opts.ForObjects() // vectorized below as a read of the snapshot
		if _, _, err := c.Learn(ctx, v, collection, texts, opts); err != nil {
			return nil, nil, err
		}
	}
	words, am := v.MemoryWords(texts, opts)
	if opts.MaxContexts <= 0 {
		am = nil
	}
	snap, err := c.lookup(ctx, collection, words, am)
	if err != nil {
		return nil, nil, err
	}
	qv, err := v.WithStores(snap, snap, c.amCache(v, snap.epoch))
	if err != nil {
		return nil, nil, err
	}
	vecs, errs = qv.VectorizeBatch(texts, vectorizer.TaskQuery, opts)
	return vecs, errs, nil
}
