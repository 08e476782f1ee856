package server

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
)

// The endpoint that returns remembered sentences (/explain) is guarded:
// with a token (Limits.AuthToken) it needs "Authorization: Bearer TOKEN";
// without one it answers only on a server whose listener is on loopback
// (Limits.Exposed false) and is off (403) on one reachable beyond it.

// BeyondLoopback reports whether a listener on addr (host:port) may be
// reached from other machines: any host that is not a loopback address or
// "localhost" (an empty host or 0.0.0.0 listens on every interface).
func BeyondLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// guarded wraps the handler of an endpoint that returns remembered
// sentences with the token rules above.
func (s *Server) guarded(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(r); err != nil {
			if err.status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer")
			}
			s.drain(w, r)
			s.writeError(w, err)
			return
		}
		h(w, r)
	}
}

func (s *Server) authorize(r *http.Request) *httpError {
	tok := s.limits.AuthToken
	if tok == "" {
		if s.limits.Exposed {
			return errorf(http.StatusForbidden, "%s returns remembered sentences: it is off on a server listening "+
				"beyond loopback without --auth-token-file", r.URL.Path)
		}
		return nil
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(tok)) != 1 {
		return &httpError{status: http.StatusUnauthorized, msg: fmt.Sprintf("%s needs \"Authorization: Bearer TOKEN\" (--auth-token-file)", r.URL.Path)}
	}
	return nil
}

// WarnExposed warns, loudly, when a listener on addr is reachable beyond
// loopback: /vectors always answers anyone who reaches it, and without a
// token /explain is off.
func WarnExposed(log *slog.Logger, addr string, lim Limits) {
	if !lim.Exposed {
		return
	}
	if lim.AuthToken == "" {
		log.Warn("listening beyond loopback WITHOUT AN AUTH TOKEN: anyone who reaches this address can vectorize "+
			"and teach the memory through /vectors; /explain is off (set --auth-token-file)", "addr", addr)
		return
	}
	log.Warn("listening beyond loopback: /vectors answers anyone who reaches this address; "+
		"/explain needs the bearer token", "addr", addr)
}
