// Package model is Attentive Mimicking (AM; Schick & Schütze, NAACL 2019)
// and its baseline, the form-context model (FCM): it infers an embedding for a
// rare or unseen word from its character n-grams and from the contexts it
// occurs in. The package holds the tokenizer, the base-embedding and counts
// readers and writers, the n-gram vocabulary, the forward and backward pass,
// and the weights file.
//
// # Tokenizer
//
// A word is a maximal run of runes for which unicode.IsLetter or
// unicode.IsDigit holds; anything else (punctuation, symbols, combining marks,
// invalid UTF-8 bytes) separates words; words are lowercased per rune with
// unicode.ToLower. This is the rule the shared reference embeddings were
// trained with. Sentences (for contexts) are split after '.', '!' or '?'
// followed by white space and at line breaks.
//
// # Base embeddings
//
// ReadEmbeddings reads word2vec text with or without the "rows dim" header,
// GloVe's headerless text, word2vec binary, and gzip of any of them (detected
// by magic bytes). Text is parsed in parallel with an allocation-free float
// parser (Clinger's fast path, strconv otherwise; values are parsed as
// float64 and rounded to float32). Every error names the file and the line (or
// binary record) and the problem: wrong number of values, not a number, NaN
// or infinity, duplicate word, header disagreeing with the body, truncated
// record.
//
// # Character n-grams
//
// As the reference implementation (form-context-model, ngram_builder.py):
// the word padded with a boundary symbol on both sides (Boundary, the
// reference's "<S>"), every n-gram of n = MinN…MaxN symbols (3…5) in order of
// start position then length, the vocabulary made of the n-grams occurring at
// least MinCount (4) times over the distinct training words, ids in order of
// decreasing count, id 0 for unknown n-grams and for words too short to have
// any. Deviation: the reference also reserves id 1 for batch padding, which a
// per-word implementation does not need.
//
// The fastText style (NgramFastText, weights format version 2) cuts words as
// fastText does ('<' and '>' as boundaries, n = 3…6 by default, the padded
// word itself when short enough) and leaves n-grams missing from the
// vocabulary out of the mean, so that a model whose n-gram table holds the
// subword vectors of train-embeddings (`train --ngrams`) starts from
// fastText's vector of an out-of-vocabulary word as its form embedding.
//
// # Forward pass
//
// With d the dimension, n-gram embeddings E and base vectors e_w:
//
//	v_form  = mean of E[g] over the word's n-gram ids g (repeats counted)
//	v_Ci    = mean of e_w over the known words w of context C_i (target excluded)
//	          [weighted: Σ s_w e_w / Σ s_w,  s_w = a/(a + p(w))]
//	ρ_i     = Σ_j s(C_i, C_j) / (Σ_jk s(C_j, C_k) + 1e-9),  s(a, b) = (M v_a)·(M v_b)/√d    (AM)
//	ρ_i     = |C_i| / Σ_j |C_j|   (FCM: the mean over all context words, as the reference)
//	v_ctx   = Σ_i ρ_i v_Ci
//	α       = σ(U[:d]·v_ctx + U[d:2d]·v_form + B [+ U[2d + b(k)]] [+ U[2d + C]·a] [+ U[2d + C + A]·s(c)])
//	v       = α A v_ctx + (1 − α) v_form      (AM, FCM)
//	v       = v_form                          (ModeForm)
//	v       = A v_ctx                         (ModeContext = AM-ctx, ModeFCMContext = FCM-ctx)
//
// The bracketed term exists only with Config.CountBuckets > 0 (an addition
// to the paper): k is the number of contexts with a known word and
// b(k) = min(⌊log₂ k⌋, CountBuckets − 1) (CountBucket), so the gate learns
// how far to trust one sentence, two, four … apart from what they say. The
// paper's gate cannot know k, and on rare words trusts one or two sentences
// more than its own form (docs/evaluation.md). These biases start at 0.
// The second exists only with Config.GateAgreement (also an addition): a is the
// contexts' agreement, the mean cosine between the means of two distinct
// contexts with known words,
//
//	a = Σ_{i≠j} û_i·û_j / (k(k − 1)) = (|Σ_i û_i|² − k) / (k(k − 1)),  û_i = v_Ci / |v_Ci|
//
// (0 when k < 2), so that the gate can keep the form when a few contexts
// say different things and trust them when they say the same. Its weight
// starts at 0; a depends on the base vectors only, so it has no gradient.
// The third exists only with Config.GateCoverage (an addition as well;
// A = 1 with the agreement input, else 0): c is the form's coverage, the
// share of the word's character n-grams (NgramVocab.Count) that its form
// takes from the n-gram table, and s(c) = max(CoverageKnee − c, 0)/CoverageKnee
// its shortfall below the knee (0.3), so that the gate can lean on the
// contexts of a word whose spelling the table knows little of (a product
// code) and leaves every word it knows at least that well as it was. Its
// weight starts at 0; c depends on the vocabulary and, in training, on the
// n-grams KeepNgrams and LeaveOut leave out of a training word's form, so a
// training word covers less than a new word of the like spelling.
// The weighted mean exists only with Config.ContextSIF = a > 0 (an addition
// too): each context word w weighs s_w = a/(a + p(w)), p(w) its count over
// the base embeddings' summed counts, as SIF weighs the words of a sentence
// (Arora et al. 2017), so that function words weigh little in a context's
// vector. The weights are constants: training and inference compute the
// same means.
//
// The attention uses the identity Σ_j s(C_i, C_j) = v_Ci·(MᵀM S)/√d with
// S = Σ_j v_Cj: two d×d mat-vecs and m dot products replace m mat-vecs and an
// m×m Gram matrix, and A is applied once to the ρ-weighted sum. The dominant
// cost is then reading the context words' vectors. Σ_jk s(C_j, C_k) =
// |M S|²/√d is never negative in exact arithmetic; a rounding-negative value
// is clamped to 0, and the reference's ε = 1e-9 keeps ρ finite. The ρ_i sum
// to 1 but are not bounded to [0, 1]: a context dissimilar to the others can
// get a negative weight, as in the paper's definition. A context
// without known words gets ρ = 0 (its mean is the zero vector, as in the
// reference). A word without any known context word gets its form embedding
// (Explanation.FormOnly), or the zero vector in the context-only modes, as
// the reference's infer_vector does. Deviation: the reference renormalises
// the two gate weights by their sum + 1e-9, a factor 1/(1+1e-9) left out
// here; its gate is written for the form side (σ(·) weighs v_form), which
// is the same family of functions as the paper's α for the context side.
//
// Initialisation follows the reference (TensorFlow's default Glorot-uniform
// for every variable): E ~ U(±√(6/(N+d))), M and A ~ U(±√(6/2d)),
// U[:2d] ~ U(±√(6/(2d+1))), and even the bias B ~ U(±√3).
//
// # Backward pass
//
// Backward adds the analytic gradient of L = |v − target|² (the reference's
// mean squared error is L/d) into a Grads: dense for M, A, U and B, sparse
// rows for the n-gram table. The gradient with respect to M flows through ρ
// only and costs one more mat-vec and two rank-1 updates:
// ∂L/∂M = (M w) Sᵀ + (M S) wᵀ with w = Σ_k ∂L/∂num_k · v_Ck/√d. Base
// vectors are not trained. Tests check every entry against finite
// differences of a float64 transcription of the formulas above, in every mode.
//
// # Concurrency
//
// A Model is read-only during inference and safe for concurrent use; every
// goroutine brings its own Workspace, with which Infer and Backward allocate
// nothing after warm-up. InferBatch runs GOMAXPROCS workspaces.
//
// # The weights file
//
// Little-endian throughout:
//
//	header   magic "T2VAM\r\n\x1a" (8 bytes) | version uint32 (1 to 5) | payload length uint64
//	payload  dim uint32 | mode uint8 | tokenizer rule uint8 (1: split on non letter/digit)
//	         | lowercase uint8 | MinN, MaxN, MinCount uint32
//	         | version ≥ 2: n-gram style uint8 (0 reference, 1 fastText; version 1 means 0)
//	         | version ≥ 3: count buckets C uint8, 1…16 (version ≥ 4: 0…16; versions 1 and 2 mean C = 0)
//	         | version ≥ 4: gate inputs uint8, bit 0 the agreement a, bit 1 the coverage c (other bits 0;
//	           versions 1 to 3 mean none)
//	         | version 5: context SIF weight a float32 (finite, ≥ 0; versions 1 to 4 mean 0: plain means)
//	         | n-gram vocabulary size N uint32 (UNK included)
//	         | N−1 × (length uint16, UTF-8 bytes)            n-grams of ids 1…N−1 (Boundary = 0x00, or '<' '>')
//	         | table(N × dim)                                n-gram embeddings
//	         | M (dim×dim float32) | A (dim×dim float32) | U ((2·dim + C [+ 1 with a] [+ 1 with c]) float32) | B float32
//	         | base flag uint8; when 1 (a serving bundle):
//	           words W uint32 | counts flag uint8 | W × (length uint16, bytes)
//	           | W × int64 counts (when the flag is 1) | table(W × dim)
//	trailer  CRC-32C (Castagnoli) of the payload, uint32
//
//	table(rows × dim) = storage uint8, then
//	  0 float32: rows·dim float32
//	  1 float16: rows·dim IEEE binary16 (round to nearest even)
//	  2 int8:    per row a float32 scale s = max|x|/127 and dim int8 q, x = q·s
//	  3 int4:    per row a float32 scale s and ⌈dim/2⌉ bytes of two 4-bit two's complement q
//	             (value 2k in the low nibble), x = q·s; the writer picks s = c·max|x|/7,
//	             c ∈ {1, 0.95, …, 0.5} with the least squared error, q clamped to −7…7
//	             (the reader refuses −8 and a non-zero padding nibble when dim is odd)
//
// Load reads the whole file, checks the magic bytes, the version, the payload
// length against the file size (a truncated file is reported as such), the
// checksum, and then every count against both a limit and the bytes actually
// left before allocating, so that a corrupted length cannot make it allocate
// more than a fixed multiple of the file's size (a table is held as float32:
// 8 bytes for each int4 byte read, at most); NaN and infinite values, unknown modes or storages,
// duplicate n-grams or words and trailing bytes are refused with an error
// naming the problem. Save refuses NaN parameters and values beyond the
// float16 range. A float32 save/load round trip is bit-exact.
package model
