// Package weaviatemem keeps the context memory in Weaviate, so that every
// replica of a stateless text2vec-am server reads and teaches one memory
// that Weaviate stores and replicates (memstore.Store).
//
// # Objects
//
// The memory is a collection (Options.Class, "Text2vecAmMemory" by default)
// without a vectorizer or a vector index, multi-tenant: a tenant per scope
// taught (the shared memory, a collection, or a collection's tenant; see
// Tenants below). What one write teaches a scope (the contexts its copy
// admits and the passages it has not counted, of the requests whose
// lessons wait together) is one
// lesson object, or several when it holds more than maxLessonItems (512)
// contexts and passages or maxLessonBytes (256 KiB) of text. A lesson
// object's id is a UUIDv5 of its content in canonical order (sorted, each
// context and passage once), so writing it again changes nothing. Objects
// are written in batches at consistency level QUORUM and never deleted,
// except with their tenant. A memory written before lessons holds an object
// per context and per passage (kinds "context" and "passage"): they are
// read as they are, and the class made for them gets the lessons'
// properties added; no migration is needed.
//
// # Copies
//
// Each server reads the objects into a copy in RAM (package memory, with
// the budgets of Options.Memory), which queries read: nothing remote is on
// the path of a query of a scope the server holds a copy of. The copy is
// refreshed in the background every Options.Refresh: a count of the
// tenant's objects (Aggregate) tells whether anything is new; if so the
// objects created since the newest one read (but no later than a lookback
// past the server's clock: a creation time in the future holds back no
// read), less Options.Lookback (for writes still in flight and clocks that
// disagree), are read by their creation time, or every object through the
// cursor when that is cheaper, at the first read, when the count is below
// the objects read, or when the objects read by creation time do not
// account for it (an object a replica made visible late). Objects read by
// creation time are sorted by it and by id, so that a read goes on within
// a millisecond (all the objects of a batch have one creation time). Both
// read pages of pageSize (32) objects: at most 8 MiB of text, but for an
// object of one passage whose distinct words alone are more than
// maxLessonBytes (it holds them all). An object the copy counted already is
// not decoded again. A read through the cursor adds what the copy lacks to
// it, but when the count is below the objects it held when it asked (a
// tenant emptied, a replica that lags): then a new copy is read beside it, which the
// server's own writes go to as well, which the estimate counts, and which
// replaces it once read. Each word keeps the
// contexts of smallest hash and each passage counts once by its content
// hash, so a copy is a function of the contexts and passages it read,
// whatever objects carried them and in whatever order: two copies that read
// the same objects hold the same memory (below the budgets), and so do two
// copies of the same documents taught in other groupings. A passage carried
// by several objects counts once, however many passages were counted
// between them. Above the budgets a copy evicts first the words whose latest
// context came in the object stored first (memory.Memory.RememberAt with
// the object's creation time), in whatever order it reads the objects: a
// fresh copy, which reads them in the cursor's order of ids, keeps about the
// words of the latest objects, as a copy that read them as they came does;
// not exactly the same words (the byte budget is filled greedily, and the
// objects of one millisecond are ordered as read), nor the same contexts of
// older words. Stats gives a digest of the objects read
// (ScopeStats.Version) and the passages and contexts the copy holds.
// To count each object and each passage once, whenever it was created and
// however often it is listed or written again, a copy keeps a 64-bit key of
// every object it read (the two halves of its id exclusive-or'ed; two of a
// million objects share one with odds of 3·10⁻⁸) and of every passage it
// counted: about 9 bytes a key, measured, which the copy's RAM estimate
// includes, so Options.MaxBytes bounds them. A copy caches AM vectors
// within a sixteenth of Options.MaxBytes.
//
// A lesson (what a batch of passages teaches) is reduced to what can change
// the copy (memory.Admitted and the passages not counted yet: a context
// not among a word's k smallest hashes in the copy is not among them in the
// whole memory either), so a lesson sent again once written writes nothing; it is
// queued (a bounded queue; the lessons of concurrent requests share
// batches, and a scope's share objects), written, and applied to the copy
// only once Weaviate has it; the texts are then vectorized over the copy.
// A write that fails fails the request with an error wrapping
// memstore.ErrUnavailable (a server answers 503): the client resends, and
// the resend changes nothing in the copies, whatever was written. Every
// call to Weaviate is bounded by Options.Timeout.
//
// # Tenants
//
// Only teaching creates a scope's tenant: a passage (VectorizeBatch),
// Teach, Prepare, or naming the scope at Open (unless the store is
// read-only). A query (or a passage of a read-only store, vectorized as
// one) of a scope the server holds no copy of asks Weaviate whether its
// tenant exists, one call bounded by Options.Timeout. If it does, a copy is
// made, and the query waits for its first read. If not, the query reads an
// empty memory (the contexts of the text's own sentences only) and nothing
// is made for it: no tenant, no copy, no reads in the background; the
// scope is remembered as without a tenant for Options.Refresh (at most
// 1,024 scopes), and its queries then ask again, so that a tenant another
// server created meanwhile is read. So queries for collections never
// imported into, or that do not exist, make nothing in Weaviate, however
// many their names. A copy whose tenant a refresh finds gone (deleted) is
// dropped, and the tenant is not created again: its queries read an empty
// memory until a passage teaches the scope.
//
// # Start and failures
//
// Open returns at once; the collection and the tenants of the scopes named
// are created (or checked) and the first copies read in the background,
// retried with backoff while Weaviate is unreachable or answers 429 or
// 5xx. Until a scope's first read is done its requests wait for it (up to
// their deadline). A failed refresh keeps the copy (State "stale") and is
// retried.
// Credentials (a user and password in the URL, the API key) are sent, never
// logged or returned in errors.
package weaviatemem
