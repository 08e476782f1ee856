// Package corpus streams a training corpus (plain text, gzip, or a directory of
// such files) as tokens, with the one tokenizer of package model, and counts words.
package corpus
