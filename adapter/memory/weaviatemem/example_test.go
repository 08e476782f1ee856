package weaviatemem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
)

// Every replica of a server opens the same memory; a passage taught through
// one is read by the others within a refresh.
func ExampleOpen() {
	store, err := weaviatemem.Open(weaviatemem.Options{URL: "http://weaviate:8080", Replicas: 3,
		Memory: memory.DefaultOptions()}, "") // "": the shared memory, read at once
	if err != nil {
		log.Fatal(err) // only bad options fail here: Weaviate may come up later
	}
	defer store.Close()
	m, err := defaultmodel.Load()
	if err != nil {
		log.Fatal(err)
	}
	v, err := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	vecs, _, err := store.VectorizeBatch(context.Background(), v, "", []string{"nftables replaces iptables."},
		vectorizer.TaskPassage, vectorizer.DefaultOptions())
	fmt.Println(len(vecs), err, store.Stats().Remote.Scopes[""].Version)
}

// Weaviate deleted the tenant "acme" of the collection Doc: delete its
// memory too (tenant "": the collection's and all its tenants').
func ExampleDeleteMemory() {
	o := weaviatemem.Options{URL: "http://weaviate:8080"}
	d, err := weaviatemem.DeleteMemory(context.Background(), o, "Doc", "acme")
	if err != nil {
		log.Fatal(err)
	}
	if len(d.Tenants) == 0 {
		fmt.Println("no memory of tenant acme of Doc: nothing to delete")
	}
}

// A program that teaches the collection Doc (a rebuild) makes its scope
// ready first: Prepare creates the scope's tenant and reads its copy, and
// says at once whether the copy is read; a query never creates a tenant.
func ExampleStore_Prepare() {
	store, err := weaviatemem.Open(weaviatemem.Options{URL: "http://weaviate:8080", Memory: memory.DefaultOptions()})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(time.Minute)
	for err = store.Prepare("Doc"); err != nil; err = store.Prepare("Doc") {
		if errors.Is(err, memstore.ErrRefused) || time.Now().After(deadline) {
			log.Fatal(err) // an operator must act, or Weaviate is down
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Println(store.Stats().Remote.Scopes["Doc"].Tenant)
}
