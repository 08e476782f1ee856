// Package corpus streams a training corpus (plain text, gzip, or a directory of
// such files) as tokens, with the one tokenizer of package model, counts words,
// builds vocabularies and encodes the corpus as token ids.
//
// A corpus is given as one or more paths. A file is read as plain UTF-8 text, or
// as gzip when it starts with the gzip magic bytes (whatever its name). A
// directory stands for every regular file below it, recursively, in sorted path
// order (names starting with '.' are skipped). Text is split into units: lines,
// or sentences with Options.Sentences; each unit is tokenized with
// Options.Tokenizer and units without any token are dropped.
//
// Two ways to use it:
//
//   - ForEachUnit streams the tokens of every unit with constant memory.
//   - Read tokenizes the corpus once into memory (a dictionary of every distinct
//     word with its count, and the corpus as 4-byte ids into that dictionary);
//     Corpus.Vocab builds a min-count vocabulary from it and Corpus.Encode
//     re-expresses the corpus in the ids of any vocabulary (for instance the
//     vocabulary of a set of base embeddings) without tokenizing again.
package corpus
