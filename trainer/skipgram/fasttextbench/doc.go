// Package fasttextbench holds only a test: the same-run comparison of the
// project's skipgram trainer (trainer/skipgram) with fastText's skipgram
// (-maxn 0) on the shared general corpus — throughput and word similarity.
//
// It is off by default (it takes about ten minutes of both cores). Run it with
//
//	T2V_SKIPGRAM_BENCH=1 nice -n 10 go test -run FastText -timeout 2h -v ./trainer/skipgram/fasttextbench/
//
// Optional environment: T2V_SKIPGRAM_BENCH_OUT (a directory that keeps the
// tokenized corpus and both sets of vectors; default a temporary directory),
// T2V_SKIPGRAM_BENCH_THREADS (default 2), T2V_SKIPGRAM_BENCH_FASTTEXT (the
// fastText binary, default "fasttext" on PATH), T2V_SKIPGRAM_BENCH_LR (the
// learning rate given to both trainers; default 0.05, fastText's skipgram
// default), T2V_SKIPGRAM_BENCH_NEG_POWER (our negative-sampling exponent;
// default 0.5, the value fastText uses and cannot change), T2V_SKIPGRAM_BENCH_MAXN
// (6: both train subwords, character n-grams 3–6 in 2,000,000 buckets: fastText's
// skipgram defaults against TrainSubwords), T2V_SKIPGRAM_BENCH_EPOCHS (default 5),
// T2V_SKIPGRAM_BENCH_LINES (keep only the first N lines of the tokenized corpus).
package fasttextbench
