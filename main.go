// Command text2vec-am is the one binary of the project: it trains Attentive
// Mimicking models, evaluates them, serves them to Weaviate, and builds a
// Weaviate server with the in-process text2vec-am module.
//
// Run "text2vec-am help" for the list of subcommands.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/adapter/nn"
	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/demo"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/module/buildweaviate"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer"
	"github.com/text2vec-am/text2vec-am/trainer/eval"
)

func commands() []cli.Command {
	var cmds []cli.Command
	cmds = append(cmds, trainer.Commands()...)
	cmds = append(cmds, eval.Commands()...)
	cmds = append(cmds, command.Commands()...)
	cmds = append(cmds, refresh.Commands()...)
	cmds = append(cmds, nn.Commands()...)
	cmds = append(cmds, buildweaviate.Commands()...)
	cmds = append(cmds, demo.Commands()...)
	cmds = append(cmds, version.Command())
	return cmds
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Messages logged through slog's default logger take the text format of
	// the commands' own loggers, not the log package's.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	// serve logs the warning about T2V_SIMD itself, in its --log-format.
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		simd.LogUnavailable(slog.Default())
	}
	code := cli.Main(ctx, "text2vec-am", commands(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
