package command

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
)

func runHealthcheck(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("healthcheck", env)
	url := fs.String("url", "http://127.0.0.1:8880/.well-known/ready", "`URL` to GET; any 2xx answer is healthy")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return cli.UsageError("--url %q: %w", *url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("healthcheck %s: status %d", *url, resp.StatusCode)
	}
	return nil
}
