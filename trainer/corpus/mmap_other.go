//go:build !unix

package corpus

import "os"

// mapFile reads path into memory where mmap is not available.
func mapFile(path string) ([]byte, func([]byte) error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, nil, nil
}
