package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/cli"
)

// runDelete is `memory delete`: it deletes the memory of a collection or of
// one of its tenants, kept in Weaviate or in the in-process module's
// directory. Weaviate does not tell the module when it deletes a collection
// or a tenant, so their memory stays until this deletes it.
func runDelete(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("memory delete", env)
	var wf weaviateFlags
	wf.registerTarget(fs, "`URL` of the Weaviate that keeps the memory")
	moduleDir := fs.String("module-memory", "", "`directory` of the in-process module's memory (<Weaviate data path>/text2vec-am-memory); stop Weaviate first")
	class := fs.String("class", "", "the collection whose memory is deleted (required)")
	tenant := fs.String("tenant", "", "delete only this tenant's memory (default: the collection's and all its tenants')")
	yes := fs.Bool("yes", false, "really delete")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.UsageError("unexpected arguments %q (all inputs are flags)", fs.Args())
	case countSet(wf.url, *moduleDir) != 1:
		return cli.UsageError("give exactly one of --memory-weaviate URL and --module-memory DIR")
	case *class == "":
		return cli.UsageError("--class is required")
	case !*yes:
		return cli.UsageError("--yes is required: delete forgets the contexts and passage counts of %s", *class)
	}
	coll, err := memory.CollectionName(*class)
	if err != nil {
		return cli.UsageError("--class: %w", err)
	}
	if *tenant != "" {
		if err := memory.ValidTenantName(coll, *tenant); err != nil {
			return cli.UsageError("--tenant: %w", err)
		}
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	if *moduleDir != "" {
		deleted, err := deleteModuleMemory(*moduleDir, coll, *tenant, log)
		if err != nil {
			return err
		}
		if !deleted {
			fmt.Fprintf(env.Stdout, "%s holds no memory of %s: nothing to delete\n", *moduleDir, scopeLabel(coll, *tenant))
			return nil
		}
		fmt.Fprintf(env.Stdout, "deleted the memory of %s in %s\n", scopeLabel(coll, *tenant), *moduleDir)
		return nil
	}
	o, err := wf.accessOptions(log)
	if err != nil {
		return err
	}
	d, err := weaviatemem.DeleteMemory(ctx, o, coll, *tenant)
	url := weaviateapi.Redact(wf.url)
	switch {
	case errors.Is(err, weaviatemem.ErrNoCollection):
		fmt.Fprintf(env.Stdout, "%s holds no text2vec-am memory collection %s (--memory-weaviate-class): "+
			"nothing to delete for %s\n", url, o.Class, scopeLabel(coll, *tenant))
		return nil
	case err != nil:
		return fmt.Errorf("--memory-weaviate: %w", err)
	case len(d.Tenants) == 0:
		fmt.Fprintf(env.Stdout, "%s holds no memory of %s of its own in %s: nothing to delete\n", url,
			scopeLabel(coll, *tenant), o.Class)
	default:
		fmt.Fprintf(env.Stdout, "deleted the memory of %s in %s (tenants %s of %s)\n", scopeLabel(coll, *tenant), url,
			strings.Join(d.Tenants, ", "), o.Class)
	}
	if d.Shared {
		fmt.Fprintf(env.Stdout, "the shared memory (tenant _shared of %s: serve --memory-weaviate's one memory, and "+
			"the in-process module's shared passage counts, which hybrid search reads) keeps whatever %s taught it: it "+
			"holds every collection's together and is not deleted per collection; to forget it, delete the shared "+
			"memory (DELETE %s/v1/schema/%s/tenants with body [\"_shared\"]) and rebuild it from the collections "+
			"that remain (text2vec-am memory rebuild; docs/operations.md, \"Deleting a collection or a tenant\")\n",
			o.Class, coll, url, o.Class)
	}
	return nil
}

// deleteModuleMemory deletes the memory of tenant of collection in the
// in-process module's directory dir; false: it holds none.
func deleteModuleMemory(dir, collection, tenant string, log *slog.Logger) (bool, error) {
	if _, err := os.Stat(dir); err != nil {
		return false, fmt.Errorf("--module-memory: %w", err)
	}
	o := memory.DefaultOptions()
	o.Logger = log
	colls := memory.NewCollections(dir, o, memory.MaxCollections)
	if !colls.Has(collection, tenant) {
		return false, colls.Close()
	}
	if err := colls.Delete(collection, tenant); err != nil {
		colls.Close()
		return false, fmt.Errorf("--module-memory %s: %w", dir, err)
	}
	return true, colls.Close()
}

// scopeLabel names the memory of tenant of collection in messages.
func scopeLabel(collection, tenant string) string {
	if tenant == "" {
		return "collection " + collection + " and its tenants"
	}
	return "tenant " + tenant + " of collection " + collection
}
