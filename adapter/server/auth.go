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
// (Limits.Exposed false), to requests addressed to a loopback host
// (loopbackHost), and is off (403) on one reachable beyond it.

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
	if s.limits.AuthToken == "" {
		if s.limits.Exposed {
			return errorf(http.StatusForbidden, "%s returns remembered sentences: it is off on a server listening "+
				"beyond loopback without --auth-token-file", r.URL.Path)
		}
		if !loopbackHost(r.Host) {
			return errorf(http.StatusForbidden, "%s returns remembered sentences: without --auth-token-file it answers "+
				"only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not %q", r.URL.Path, r.Host)
		}
		return nil
	}
	return s.checkToken(r)
}

// loopbackHost reports whether host, a request's Host header (with or
// without a port), names a loopback address or localhost, or is empty (an
// HTTP/1.0 request). A web page whose name an attacker made resolve to
// 127.0.0.1 (DNS rebinding) reaches a loopback listener as a same-origin
// page, but its requests carry the page's own host name.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken requires "Authorization: Bearer TOKEN" with the server's token
// (Limits.AuthToken, set).
func (s *Server) checkToken(r *http.Request) *httpError {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.limits.AuthToken)) != 1 {
		return &httpError{status: http.StatusUnauthorized, msg: fmt.Sprintf("%s needs \"Authorization: Bearer TOKEN\" (--auth-token-file)", r.URL.Path)}
	}
	return nil
}

// tokenOnly wraps the handler of /passage/v1/embeddings, which teaches the
// memory: it needs the bearer token wherever the server listens, and is off
// (403) without one. Any client of Weaviate, one that may only search
// included, chooses the address its text2vec-openai calls (the
// X-OpenAI-BaseURL header), so the address alone cannot tell an import from
// a query; the token, sent as that client's OpenAI API key, does.
func (s *Server) tokenOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := s.checkToken(r)
		if s.limits.AuthToken == "" {
			err = errorf(http.StatusForbidden, "%s teaches the memory: it needs --auth-token-file, the importing "+
				"client sending the token as its OpenAI API key (X-OpenAI-Api-Key)", r.URL.Path)
		}
		if err != nil {
			if err.status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer")
			}
			s.drain(w, r)
			s.writeOpenAIError(w, err)
			return
		}
		h(w, r)
	}
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
			"and teach the memory through /vectors; /explain and /passage/v1/embeddings are off (set --auth-token-file)",
			"addr", addr)
		return
	}
	log.Warn("listening beyond loopback: /vectors answers anyone who reaches this address; "+
		"/explain and /passage/v1/embeddings need the bearer token", "addr", addr)
}
