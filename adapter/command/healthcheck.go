package command

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/cli"
)

// maxReasonBytes bounds the part of an unhealthy answer's body healthcheck prints.
const maxReasonBytes = 1024

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
	if *timeout <= 0 {
		return cli.UsageError("--timeout %v: want > 0", *timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return cli.UsageError("--url: %w", weaviateapi.RequestError(http.MethodGet, *url, err))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("no answer: %w", weaviateapi.RequestError(http.MethodGet, *url, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The reason, as the server gives it (Docker keeps it with the health status).
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxReasonBytes))
		return fmt.Errorf("%s: status %d: %s", weaviateapi.Redact(*url), resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
