package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
)

// maxTokenBytes bounds a token file (--auth-token-file,
// --memory-weaviate-api-key-file).
const maxTokenBytes = 4096

// readToken reads the token of an --auth-token-file.
func readToken(path string) (string, error) { return readTokenFlag("--auth-token-file", path) }

// readTokenFlag reads the token in the file path given to flag: a regular
// file (opened without blocking) of at most maxTokenBytes, its surrounding
// white space trimmed, not empty.
func readTokenFlag(flag, path string) (string, error) {
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if len(b) > maxTokenBytes {
		return "", fmt.Errorf("%s %s: longer than %d bytes", flag, path, maxTokenBytes)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("%s %s: want one token, without white space inside", flag, path)
	}
	return tok, nil
}
