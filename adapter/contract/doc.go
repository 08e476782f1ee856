// Package contract holds only a test: it drives the adapter's HTTP server with
// Weaviate v1.39.0's own text2vec-transformers client (the one
// text2vec-model2vec uses too), so that the request and response JSON are
// checked byte for byte against what a stock Weaviate sends and reads. It is
// a separate package so that the adapter's own tests (and their fuzzing) do
// not build Weaviate.
package contract
