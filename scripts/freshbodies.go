//go:build ignore

// Freshbodies is the client of scripts/hostile-serve.sh's third check: -conns
// connections each send a /vectors body of 8 MiB but its last byte, wait for the
// answer, and send a fresh one as soon as it comes, for -dur, while a probe
// posts a small /vectors request every 0.5 s. It prints how many probes were
// answered 200 and how long they took.
//
//	go run scripts/freshbodies.go -addr 127.0.0.1:18313 -conns 40 -dur 60s
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18313", "the server's address")
	conns := flag.Int("conns", 40, "connections sending held bodies")
	dur := flag.Duration("dur", time.Minute, "how long they send")
	flag.Parse()
	const size = 8 << 20
	body := append([]byte(`{"text":"`), bytes.Repeat([]byte("a"), size-11)...)
	body = append(body, `"}`...)
	stop := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for range *conns {
		wg.Go(func() { hold(*addr, body, stop) })
	}
	time.Sleep(2 * time.Second)
	ok, n, took := probe(*addr, stop)
	wg.Wait()
	slices.Sort(took)
	if len(took) == 0 {
		fmt.Printf("fresh bodies: 0 of %d probes answered 200\n", n)
		return
	}
	fmt.Printf("fresh bodies: %d of %d probes answered 200, time p50 %v, max %v\n",
		ok, n, took[(len(took)-1)/2].Round(time.Microsecond), took[len(took)-1].Round(time.Microsecond))
}

// hold sends body but its last byte, waits for the answer and starts anew,
// until stop.
func hold(addr string, body []byte, stop time.Time) {
	for time.Now().Before(stop) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		fmt.Fprintf(c, "POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\n\r\n", len(body))
		c.Write(body[:len(body)-1])
		c.SetReadDeadline(stop)
		http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
	}
}

// probe posts a small text every 0.5 s until stop: the answers 200, the
// requests and the time each 200 took.
func probe(addr string, stop time.Time) (ok, n int, took []time.Duration) {
	client := &http.Client{Timeout: 10 * time.Second}
	for ; time.Now().Before(stop); time.Sleep(500 * time.Millisecond) {
		start := time.Now()
		resp, err := client.Post("http://"+addr+"/vectors", "application/json",
			bytes.NewReader([]byte(`{"text":"nftables replaces iptables"}`)))
		n++
		if err != nil {
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			ok++
			took = append(took, time.Since(start))
		}
	}
	return ok, n, took
}
