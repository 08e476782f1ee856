// Package e2e holds the end-to-end tests of text2vec-am against real Weaviate
// v1.39.0 servers on loopback: (A) stock Weaviate with text2vec-transformers
// talking to the text2vec-am adapter, and (B) a Weaviate built by
// build-weaviate with the in-process text2vec-am module.
//
// The tests build the servers (cached between runs under
// $T2V_E2E_CACHE, default ~/.cache/text2vec-am/e2e), read the debian-dev
// retrieval data from ../shared beside the repository root, and skip with a
// message when that directory is absent or when -short is given. The model is
// taken from $T2V_E2E_MODEL (a weights file) and defaults to the embedded
// default model.
package e2e
