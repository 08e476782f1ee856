package adapter

import "github.com/text2vec-am/text2vec-am/cli"

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return nil
}
