//go:build unix

package e2e

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The ports a test's servers listen on are drawn outside the kernel's range
// of ephemeral ports. A port drawn from that range (as listening on port 0
// gives) is free when drawn, but until the server that is to listen on it
// has started, any process of the test may take it as the local port of an
// outgoing connection (Weaviate's nodes call each other and the vectorizer
// all the time), and the server then fails with "address already in use".

// ephemeralRange is the kernel's range of local ports for outgoing
// connections (Linux's default where it cannot be read).
func ephemeralRange() (lo, hi int) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	l, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l > h {
		return lo, hi
	}
	return l, h
}

// listenPorts is the range [lo, hi) listenFree draws from: the larger of the
// ranges below and above the ephemeral ports, leaving out ports below 10000
// (well-known services); empty when the ephemeral range leaves too little.
func listenPorts() (lo, hi int) {
	elo, ehi := ephemeralRange()
	below, above := elo-10000, 65536-(ehi+1)
	switch {
	case below >= 1000 && below >= above:
		return 10000, elo
	case above >= 1000:
		return ehi + 1, 65536
	}
	return 0, 0
}

// listenFree listens on a free loopback TCP port outside the ephemeral
// range (on one the kernel picks if that range leaves too few).
func listenFree(t testing.TB) net.Listener {
	t.Helper()
	if lo, hi := listenPorts(); hi > lo {
		for range 1000 {
			p := lo + rand.IntN(hi-lo)
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
				return l
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	return l
}

// freePorts returns n distinct free loopback TCP ports outside the ephemeral
// range.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for len(ports) < n {
		l := listenFree(t)
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// freePortPair returns a free loopback port p whose successor p+1 is free
// too: a local Weaviate cluster finds a node's Raft RPC port at its Raft port + 1.
func freePortPair(t testing.TB) int {
	t.Helper()
	_, hi := listenPorts()
	for range 100 {
		l := listenFree(t)
		p := l.Addr().(*net.TCPAddr).Port
		if p+1 == hi { // p+1 would be ephemeral or no port
			l.Close()
			continue
		}
		l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
		l.Close()
		if err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no two consecutive free loopback ports in 100 tries")
	return 0
}

func TestFreePortsOutsideEphemeralRange(t *testing.T) {
	lo, hi := listenPorts()
	if hi <= lo {
		t.Skip("the ephemeral range leaves no room for listening ports")
	}
	elo, ehi := ephemeralRange()
	ports := freePorts(t, 50)
	seen := map[int]bool{}
	for _, p := range ports {
		if p >= elo && p <= ehi {
			t.Errorf("port %d is in the ephemeral range %d–%d", p, elo, ehi)
		}
		if seen[p] {
			t.Errorf("port %d drawn twice", p)
		}
		seen[p] = true
	}
	p := freePortPair(t)
	if p >= elo && p <= ehi || p+1 >= elo && p+1 <= ehi {
		t.Errorf("port pair %d, %d reaches into the ephemeral range %d–%d", p, p+1, elo, ehi)
	}
}
