// Command printversion prints version.String, for the test of LinkerFlag.
package main

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/internal/version"
)

func main() { fmt.Println(version.String()) }
