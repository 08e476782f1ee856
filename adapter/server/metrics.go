package server

import (
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/simd"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	rejected prometheus.Counter
	// stopped counts requests whose work was cut short, by reason.
	stopped        *prometheus.CounterVec
	bodyTimeouts   prometheus.Counter
	answersCut     prometheus.Counter
	amWordsRefused prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "t2vam_http_requests_total",
			Help: "HTTP requests by path and status code.",
		}, []string{"path", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "t2vam_http_request_duration_seconds",
			Help:    "HTTP request latency by path.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"path"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "t2vam_http_in_flight_requests",
			Help: "HTTP requests being served.",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "t2vam_http_rejected_busy_total",
			Help: "Requests answered 503 because every concurrency slot stayed taken for --queue-wait, " +
				"or the request bodies and answers held reached --max-body-buffer.",
		}),
	}
	m.stopped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "t2vam_requests_stopped_total",
		Help: "Requests whose work was stopped: the client left (client_gone) or --request-timeout passed (deadline).",
	}, []string{"reason"})
	m.bodyTimeouts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "t2vam_http_body_timeouts_total",
		Help: "Requests answered 408 because the body did not arrive within --body-timeout.",
	})
	m.answersCut = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "t2vam_http_answers_cut_total",
		Help: "Answers not written in full: the client left or read them slower than their write deadline.",
	})
	m.amWordsRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "t2vam_texts_refused_am_words_total",
		Help: "Texts refused because they hold more distinct words needing AM inference than --max-am-words.",
	})
	m.reg.MustRegister(buildInfo(), m.requests, m.latency, m.inFlight, m.rejected, m.stopped, m.bodyTimeouts, m.answersCut, m.amWordsRefused,
		&statsCollector{s: s}, admissionCollector{s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

var (
	descSlotsInUse = prometheus.NewDesc("t2vam_slots_in_use",
		"Concurrency slots (--max-concurrent) taken by requests working now.", nil, nil)
	descBufferHeld = prometheus.NewDesc("t2vam_body_buffer_held_bytes",
		"Bytes of request bodies and answers held now, counted against --max-body-buffer.", nil, nil)
	descCutForRoom = prometheus.NewDesc("t2vam_http_cut_for_room_total",
		"Requests cut because their client sent its body or read its answer slowly while --max-body-buffer "+
			"was full and another request needed the room.", nil, nil)
)

// admissionCollector exports what the requests hold of the slots and the
// body buffer at scrape time, and the requests cut to make room.
type admissionCollector struct{ s *Server }

func (c admissionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descSlotsInUse
	ch <- descBufferHeld
	ch <- descCutForRoom
}

func (c admissionCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descSlotsInUse, prometheus.GaugeValue, float64(c.s.slots.InUse()))
	ch <- prometheus.MustNewConstMetric(descBufferHeld, prometheus.GaugeValue, float64(c.s.budget.Held()))
	ch <- prometheus.MustNewConstMetric(descCutForRoom, prometheus.CounterValue, float64(c.s.budget.Cuts()))
}

// buildInfo is t2vam_build_info: always 1, its labels name the version, the
// Go version and the SIMD kernels' instruction sets (simd.SetsString).
func buildInfo() prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "t2vam_build_info",
		Help: "Always 1; the labels name the text2vec-am version, the Go version and the SIMD kernels' instruction sets.",
		ConstLabels: prometheus.Labels{"version": version.String(), "goversion": runtime.Version(),
			"simd": simd.SetsString()},
	})
	g.Set(1)
	return g
}

// statusWriter records the status code.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (read deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// instrument counts and times every request.
func (m *metrics) instrument(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.inFlight.Inc()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			m.inFlight.Dec()
			path := r.URL.Path
			if _, ok := routes[path]; !ok {
				path = "other"
			}
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			m.requests.WithLabelValues(path, strconv.Itoa(code)).Inc()
			m.latency.WithLabelValues(path).Observe(time.Since(start).Seconds())
		}()
		h.ServeHTTP(sw, r)
	})
}

// statsCollector exports the vectorizer's and the memory's counters at scrape time.
type statsCollector struct{ s *Server }

var (
	descWords = prometheus.NewDesc("t2vam_words_total",
		"Word occurrences vectorized, by the source of their vector (base, amskip, am, dropped).", []string{"source"}, nil)
	descInferences = prometheus.NewDesc("t2vam_am_inferences_total", "AM forward passes.", nil, nil)
	descCacheHits  = prometheus.NewDesc("t2vam_am_cache_hits_total",
		"AM vectors of remembered words taken from the cache.", nil, nil)
	descCacheMisses = prometheus.NewDesc("t2vam_am_cache_misses_total",
		"AM vectors of remembered words that had to be computed.", nil, nil)
	descCacheEntries = prometheus.NewDesc("t2vam_am_cache_entries", "Cached AM vectors.", nil, nil)
	descMemWords     = prometheus.NewDesc("t2vam_memory_words", "Words in the context memory.", nil, nil)
	descMemContexts  = prometheus.NewDesc("t2vam_memory_contexts", "Contexts in the context memory.", nil, nil)
	descMemBytes     = prometheus.NewDesc("t2vam_memory_context_bytes", "Bytes of contexts in the context memory.", nil, nil)
	descMemRejected  = prometheus.NewDesc("t2vam_memory_rejected_total",
		"Observations the memory ignored (caps, invalid words).", nil, nil)
	descMemEvicted = prometheus.NewDesc("t2vam_memory_evicted_words_total",
		"Words evicted from the memory, their contexts forgotten, to keep within --memory-max-words and --memory-max-bytes.", nil, nil)
	descMemRecords  = prometheus.NewDesc("t2vam_memory_log_records_total", "Records appended to the memory log.", nil, nil)
	descMemPassages = prometheus.NewDesc("t2vam_memory_passages", "Passages counted for the sif-collection weighting.", nil, nil)
	descMemDFWords  = prometheus.NewDesc("t2vam_memory_df_words", "Distinct words whose document frequency is counted.", nil, nil)
	descMemDFReject = prometheus.NewDesc("t2vam_memory_df_rejected_total",
		"New words of counted passages not counted (--memory-max-df-words reached, or an invalid word).", nil, nil)
	descMemDamaged = prometheus.NewDesc("t2vam_memory_damaged_files",
		"Damaged memory files found at startup (their intact records salvaged; see memory check).", nil, nil)
	descMemSkipped = prometheus.NewDesc("t2vam_memory_damaged_bytes",
		"Bytes of damaged memory files that held no intact record.", nil, nil)
	descMemWriteFailed = prometheus.NewDesc("t2vam_memory_write_failed",
		"1 while the memory cannot store passages (a failed write, e.g. a full disk), else 0.", nil, nil)
)

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descWords, descInferences, descCacheHits, descCacheMisses, descCacheEntries,
		descMemWords, descMemContexts, descMemBytes, descMemRejected, descMemEvicted, descMemRecords, descMemPassages,
		descMemDFWords, descMemDFReject,
		descMemDamaged, descMemSkipped, descMemWriteFailed, descRemoteReady, descRemoteObjects, descRemoteQueued,
		descRemoteWritten, descRemoteWriteErrors, descRemoteRefreshes, descRemoteBytes, descRemoteDropped} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.vec.Stats()
	for _, src := range []vectorizer.Source{vectorizer.SourceBase, vectorizer.SourceAMSkip, vectorizer.SourceAM, vectorizer.SourceDropped} {
		ch <- prometheus.MustNewConstMetric(descWords, prometheus.CounterValue, float64(st.WordsBySource[src]), string(src))
	}
	ch <- prometheus.MustNewConstMetric(descInferences, prometheus.CounterValue, float64(st.AMInferences))
	ch <- prometheus.MustNewConstMetric(descCacheHits, prometheus.CounterValue, float64(st.CacheHits))
	ch <- prometheus.MustNewConstMetric(descCacheMisses, prometheus.CounterValue, float64(st.CacheMisses))
	ch <- prometheus.MustNewConstMetric(descCacheEntries, prometheus.GaugeValue, float64(st.CacheEntries))
	if c.s.store != nil {
		ss := c.s.store.Stats()
		ms := ss.Memory
		ch <- prometheus.MustNewConstMetric(descMemWords, prometheus.GaugeValue, float64(ms.Words))
		ch <- prometheus.MustNewConstMetric(descMemContexts, prometheus.GaugeValue, float64(ms.Contexts))
		ch <- prometheus.MustNewConstMetric(descMemBytes, prometheus.GaugeValue, float64(ms.ContextBytes))
		ch <- prometheus.MustNewConstMetric(descMemRejected, prometheus.CounterValue, float64(ms.Rejected))
		ch <- prometheus.MustNewConstMetric(descMemEvicted, prometheus.CounterValue, float64(ms.Evicted))
		ch <- prometheus.MustNewConstMetric(descMemRecords, prometheus.CounterValue, float64(ms.Records))
		ch <- prometheus.MustNewConstMetric(descMemPassages, prometheus.GaugeValue, float64(ms.Passages))
		ch <- prometheus.MustNewConstMetric(descMemDFWords, prometheus.GaugeValue, float64(ms.DocFreqWords))
		ch <- prometheus.MustNewConstMetric(descMemDFReject, prometheus.CounterValue, float64(ms.DocFreqRejected))
		var skipped int64
		for _, d := range ms.Damaged {
			skipped += d.SkippedBytes
		}
		ch <- prometheus.MustNewConstMetric(descMemDamaged, prometheus.GaugeValue, float64(len(ms.Damaged)))
		ch <- prometheus.MustNewConstMetric(descMemSkipped, prometheus.GaugeValue, float64(skipped))
		failed := 0.0
		if ms.WriteError != "" {
			failed = 1
		}
		ch <- prometheus.MustNewConstMetric(descMemWriteFailed, prometheus.GaugeValue, failed)
		if ss.Remote != nil {
			collectRemote(ch, ss.Remote)
		}
	}
}

var (
	descRemoteReady = prometheus.NewDesc("t2vam_memory_weaviate_ready",
		"1 while the copy of the memory kept in Weaviate is read and current (not loading, last refresh good), else 0.", nil, nil)
	descRemoteObjects = prometheus.NewDesc("t2vam_memory_weaviate_objects",
		"Objects of the memory kept in Weaviate that this server's copy holds, by scope.", []string{"scope"}, nil)
	descRemoteQueued = prometheus.NewDesc("t2vam_memory_weaviate_queued_writes",
		"Lessons waiting to be written to the memory kept in Weaviate.", nil, nil)
	descRemoteWritten = prometheus.NewDesc("t2vam_memory_weaviate_written_objects_total",
		"Objects written to the memory kept in Weaviate.", nil, nil)
	descRemoteWriteErrors = prometheus.NewDesc("t2vam_memory_weaviate_write_errors_total",
		"Failed writes to the memory kept in Weaviate (the requests got 503).", nil, nil)
	descRemoteRefreshes = prometheus.NewDesc("t2vam_memory_weaviate_refreshes_total",
		"Reads of the memory kept in Weaviate, by kind: probe (a count), incremental (recent objects), "+
			"incomplete (an incremental read short of the count), full (every object, added to the copy), "+
			"afresh (every object into a new copy, after a count below the copy's), error.",
		[]string{"kind"}, nil)
	descRemoteBytes = prometheus.NewDesc("t2vam_memory_weaviate_bytes",
		"Estimated RAM of the copies of the memory kept in Weaviate (--memory-weaviate-max-bytes bounds it).", nil, nil)
	descRemoteDropped = prometheus.NewDesc("t2vam_memory_weaviate_dropped_copies_total",
		"Copies of scopes of the memory kept in Weaviate dropped to keep within the RAM or the copies allowed.", nil, nil)
)

// collectRemote exports the state of a memory kept in Weaviate.
func collectRemote(ch chan<- prometheus.Metric, r *memstore.RemoteStats) {
	ready := 0.0
	if r.State == "ready" {
		ready = 1
	}
	ch <- prometheus.MustNewConstMetric(descRemoteReady, prometheus.GaugeValue, ready)
	for scope, sc := range r.Scopes {
		ch <- prometheus.MustNewConstMetric(descRemoteObjects, prometheus.GaugeValue, float64(sc.Objects), scope)
	}
	ch <- prometheus.MustNewConstMetric(descRemoteQueued, prometheus.GaugeValue, float64(r.QueuedWrites))
	ch <- prometheus.MustNewConstMetric(descRemoteWritten, prometheus.CounterValue, float64(r.Written))
	ch <- prometheus.MustNewConstMetric(descRemoteWriteErrors, prometheus.CounterValue, float64(r.WriteErrors))
	for kind, n := range r.Refreshes {
		ch <- prometheus.MustNewConstMetric(descRemoteRefreshes, prometheus.CounterValue, float64(n), kind)
	}
	ch <- prometheus.MustNewConstMetric(descRemoteBytes, prometheus.GaugeValue, float64(r.Bytes))
	ch <- prometheus.MustNewConstMetric(descRemoteDropped, prometheus.CounterValue, float64(r.Dropped))
}
