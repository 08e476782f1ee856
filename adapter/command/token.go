package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
)

// maxTokenBytes bounds an --auth-token-file.
const maxTokenBytes = 4096

// readToken reads the token of an --auth-token-file: a regular file (opened
// without blocking) of at most maxTokenBytes, its surrounding white space
// trimmed, not empty.
func readToken(path string) (string, error) {
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return "", fmt.Errorf("--auth-token-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("--auth-token-file %s: %w", path, err)
	}
	if len(b) > maxTokenBytes {
		return "", fmt.Errorf("--auth-token-file %s: longer than %d bytes", path, maxTokenBytes)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("--auth-token-file %s: want one token, without white space inside", path)
	}
	return tok, nil
}
