package weaviatemem

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
)

// DefaultClass is the collection that holds the memory.
const DefaultClass = "Text2vecAmMemory"

// DefaultMaxBytes is the default of Options.MaxBytes: 1 GiB.
const DefaultMaxBytes = 1 << 30

// MinMaxBytes is the least Options.MaxBytes: 1 MiB.
const MinMaxBytes = 1 << 20

// Options configure a Store.
type Options struct {
	// URL is Weaviate's base URL (http or https). A user and password in it
	// are sent as basic authentication, to its scheme and host only (not
	// where a redirect leads), and never printed.
	URL string
	// APIKey, if set, is sent as "Authorization: Bearer APIKey".
	APIKey string
	// Class is the collection holding the memory (default DefaultClass).
	Class string
	// Replicas is the replication factor the collection is created with
	// (1 … 64; 0: one replica on each of the nodes Weaviate lists,
	// /v1/nodes); an existing collection keeps its own.
	Replicas int
	// Refresh is how often each copy asks Weaviate for new objects
	// (default 1 s); Lookback how far before the newest object read an
	// incremental read starts (default 30 s); Timeout bounds every call to
	// Weaviate (default 30 s).
	Refresh, Lookback, Timeout time.Duration
	// Memory are the options of every copy (budgets, contexts per word, the
	// hash seed): give every server the same; ReadOnly is not used.
	Memory memory.Options
	// ReadOnly stores nothing: passages are vectorized as queries.
	ReadOnly bool
	// AcceptDropped creates the memory's collection even when Weaviate's
	// witness says it existed and was deleted (DroppedError): a rebuild, or
	// a memory started empty on purpose.
	AcceptDropped bool
	// SharedCounts also counts the passages of every scope in the shared
	// memory (scope ""), which reads the counts of all scopes together (the
	// in-process module's hybrid search, whose collection is not known).
	SharedCounts bool
	// MaxScopes bounds the copies kept (default memory.MaxCollections); the
	// least recently used is dropped for a new one.
	MaxScopes int
	// MaxBytes bounds the RAM of all the copies together (default
	// DefaultMaxBytes, at least 1 MiB), as Store.Stats estimates it: each
	// copy's budget bytes (memory.Stats.BudgetBytes), passage counts and
	// hashes, AM vectors and the keys of the objects it read (about 9 bytes
	// an object), and those of a copy being read afresh beside it (when the
	// count fell below the objects it held). Past it, checked every Refresh,
	// the least recently used copies are dropped (read again when next
	// used), never the most recently used one, one not read yet, or with
	// SharedCounts the shared one. A copy's budget, passage counts and
	// hashes (Memory.MaxBytes, MaxDocFreqWords, MaxPassageHashes) are scaled
	// down together to at most 7/8 of MaxBytes (the defaults fit in the
	// default as they are), its AM vectors to at most 1/16; its keys grow
	// with its tenant's objects.
	MaxBytes int64
	// Logger receives the store's messages (default slog.Default()).
	Logger *slog.Logger
	// HTTP is the client (default: a new one; each call has its own timeout).
	HTTP *http.Client
}

// Check reports the first option out of range, as Open would: an
// *OptionError naming the option.
func (o Options) Check() error {
	_, _, err := o.defaults()
	return err
}

// CheckAccess reports the first option out of range among those that
// reach Weaviate (URL, Class, Timeout, APIKey), as DeleteMemory would: the
// options of copies are not checked.
func (o Options) CheckAccess() error {
	o.withoutCopies()
	_, _, err := o.defaults()
	return err
}

// withoutCopies sets the options of copies, which DeleteMemory reads none
// of, to their defaults.
func (o *Options) withoutCopies() {
	o.Memory, o.MaxBytes, o.MaxScopes, o.Replicas, o.Refresh, o.Lookback = memory.DefaultOptions(), 0, 0, 0, 0, 0
}

// OptionError is an option of Options out of range.
type OptionError struct {
	// Option is the field of Options: "URL", "Class", "Replicas", "Refresh",
	// "Lookback", "Timeout", "MaxScopes", "MaxBytes", "APIKey" or "Memory".
	Option string
	Err    error
}

func (e *OptionError) Error() string { return "memory kept in Weaviate: " + e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

// classRE is Weaviate's class name rule.
var classRE = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,254}$`)

// defaults checks o and fills in the defaults; it returns Weaviate's base
// URL without credentials and the credentials (nil: none).
func (o *Options) defaults() (base string, user *url.Userinfo, err error) {
	u, err := url.Parse(strings.TrimSpace(o.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", nil, &OptionError{"URL", fmt.Errorf("URL %q: want http://host:port or https://host:port", weaviateapi.Redact(o.URL))}
	}
	user, u.User = u.User, nil
	base = strings.TrimRight(u.String(), "/")
	if o.Class == "" {
		o.Class = DefaultClass
	}
	for _, c := range []struct {
		bad    bool
		option string
		what   string
	}{
		{!classRE.MatchString(o.Class), "Class", fmt.Sprintf("class %q: want a Weaviate class name ([A-Z][_0-9A-Za-z]*)", o.Class)},
		{o.Replicas < 0 || o.Replicas > maxReplicas, "Replicas", fmt.Sprintf("replication factor %d: "+
			"want 1 … %d (0: one replica on each of Weaviate's nodes)", o.Replicas, maxReplicas)},
		{o.Refresh < 0, "Refresh", fmt.Sprintf("refresh period %v: want ≥ 0 (0: the default)", o.Refresh)},
		{o.Lookback < 0, "Lookback", fmt.Sprintf("lookback %v: want ≥ 0 (0: the default)", o.Lookback)},
		{o.Timeout < 0, "Timeout", fmt.Sprintf("timeout %v: want ≥ 0 (0: the default)", o.Timeout)},
		{o.MaxScopes < 0 || o.MaxScopes > memory.MaxCollections, "MaxScopes",
			fmt.Sprintf("copies %d: want 1 … %d (0: the default)", o.MaxScopes, memory.MaxCollections)},
		{o.MaxBytes != 0 && o.MaxBytes < MinMaxBytes, "MaxBytes",
			fmt.Sprintf("RAM of the copies %d bytes: want ≥ %d (1 MiB; 0: the default %d)", o.MaxBytes, MinMaxBytes, DefaultMaxBytes)},
	} {
		if c.bad {
			return "", nil, &OptionError{c.option, errors.New(c.what)}
		}
	}
	if err := weaviateapi.CheckAPIKey(o.APIKey); err != nil {
		return "", nil, &OptionError{"APIKey", err}
	}
	o.Refresh = orDefault(o.Refresh, time.Second)
	o.Lookback = orDefault(o.Lookback, 30*time.Second)
	o.Timeout = orDefault(o.Timeout, 30*time.Second)
	if o.MaxScopes == 0 {
		o.MaxScopes = memory.MaxCollections
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	FitCaps(&o.Memory, o.MaxBytes)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Memory.ReadOnly, o.Memory.Logger = false, o.Logger
	if err := o.Memory.Validate(); err != nil {
		return "", nil, &OptionError{"Memory", err}
	}
	return base, user, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// basicAuth sends user's basic authentication with every request to the
// scheme and host of Weaviate's base URL, and with no other: a redirect
// elsewhere (or from https to http) does not carry the password.
type basicAuth struct {
	user         *url.Userinfo
	scheme, host string
	next         http.RoundTripper
}

func (b basicAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != b.scheme || !strings.EqualFold(r.URL.Host, b.host) {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	pw, _ := b.user.Password()
	r.SetBasicAuth(b.user.Username(), pw)
	return b.next.RoundTrip(r)
}

// client returns the HTTP client of o, sending user's credentials to
// Weaviate at base.
func (o *Options) client(base string, user *url.Userinfo) *http.Client {
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	if user == nil {
		return hc
	}
	c := *hc
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	b := basicAuth{user: user, next: next}
	if u, err := url.Parse(base); err == nil {
		b.scheme, b.host = u.Scheme, u.Host
	}
	c.Transport = b
	return &c
}

// OwnCollection reports whether name is a collection text2vec-am keeps its
// own data in: the memory's (class, or DefaultClass) or the witnesses'
// (witness.Class). Neither has a vectorizer; one that Weaviate asks a
// vectorizer to vectorize was made by Weaviate's auto-schema, from a write
// that reached Weaviate after the collection was deleted.
func OwnCollection(name, class string) bool {
	return name != "" && (name == class || name == DefaultClass || name == witness.Class)
}
