#!/usr/bin/env bash
# Builds local stand-ins for the images docker-compose.yml and Dockerfile name, for a
# machine that cannot pull from a registry (CI here): the compose test in tests/ then
# runs the shipped files unchanged.
#
#   scripts/compose-standins.sh WEAVIATE_SERVER_BINARY
#
#   golang:1.26                                   Debian bookworm (debootstrap) + this machine's
#                                                 Go toolchain + the modules the binary needs
#                                                 (GOPROXY=off: the build needs no network)
#   gcr.io/distroless/static-debian12:nonroot     FROM scratch: passwd/group with nonroot
#                                                 (65532), CA certificates, /tmp; USER 65532
#   cr.weaviate.io/semitechnologies/weaviate:1.39.0   the given weaviate-server v1.39.0 as
#                                                 /bin/weaviate with the real image's
#                                                 entrypoint and command, and wget for the
#                                                 healthcheck (the real image has busybox's)
#
# Every stand-in carries the label org.text2vec-am.standin=KEY (KEY: a hash of what it is
# built from) and is rebuilt only when KEY changes. An image under one of these names
# WITHOUT that label (a real, pulled image) is left alone and used as it is.
# Needs root (debootstrap), docker, and go. Prints what it builds on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
weaviate_bin=${1:?usage: $0 WEAVIATE_SERVER_BINARY}
[ -x "$weaviate_bin" ] || { echo "standins: $weaviate_bin is not an executable" >&2; exit 1; }

label=org.text2vec-am.standin
base=text2vec-am-standin/debian:bookworm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# key_of IMAGE prints the stand-in key of IMAGE, "real" for an image without the
# label, or nothing when there is no such image.
key_of() {
  docker image inspect "$1" >/dev/null 2>&1 || return 0
  local k
  k=$(docker image inspect --format "{{index .Config.Labels \"$label\"}}" "$1")
  case "$k" in "" | "<no value>") echo real ;; *) echo "$k" ;; esac
}

# needs IMAGE KEY: true when IMAGE must be (re)built for KEY.
needs() {
  local have
  have=$(key_of "$1")
  if [ "$have" = real ]; then echo "standins: $1 exists and is not a stand-in: using it" >&2; return 1; fi
  [ "$have" != "$2" ]
}

hash() { sha256sum | cut -c1-16; }

# retire OLD_ID IMAGE: removes a stand-in's predecessor once the new one is tagged (not
# "docker image prune": the Dockerfile's build-stage layers inherit the stand-in label,
# and pruning them would throw away the build cache of text2vec-am:local).
retire() { [ -z "$1" ] || [ "$1" = "$(old_id "$2")" ] || docker rmi "$1" >/dev/null 2>&1 || true; }
old_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

# 1. Debian bookworm root file system, the base of the golang and Weaviate stand-ins.
base_key=$(echo "bookworm minbase ca-certificates wget" | hash)
if needs "$base" "$base_key"; then
  echo "standins: debootstrap Debian bookworm (a few minutes)" >&2
  debootstrap --variant=minbase --include=ca-certificates,wget bookworm "$work/rootfs" \
    http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  tar -C "$work/rootfs" -c . | docker import -c "LABEL $label=$base_key" -c 'CMD ["/bin/bash"]' - "$base" >/dev/null
  rm -rf "$work/rootfs"
fi

# 2. golang:1.26: the base plus GOROOT and a module cache holding exactly what
# `go build .` needs, copied from this machine's module cache (no network).
goroot=$(go env GOROOT)
gover=$(go env GOVERSION)
case "$gover" in go1.26*) ;; *) echo "standins: golang:1.26 needs a Go 1.26 toolchain, have $gover" >&2; exit 1 ;; esac
# Keyed by the modules the binary imports (and the toolchain): a new import rebuilds it.
go_key=$( (echo "$gover $base_key"; GOWORK=off go list -deps -f '{{with .Module}}{{.Path}}@{{.Version}}{{end}}' . | sort -u) | hash)
if needs golang:1.26 "$go_key"; then
  echo "standins: golang:1.26 from $goroot ($gover)" >&2
  mkdir -p "$work/go/ctx"
  cp -a "$goroot" "$work/go/ctx/go"
  # Fill an empty module cache from the local one, as the proxy would.
  local_proxy="file://$(go env GOMODCACHE)/cache/download"
  GOMODCACHE="$work/go/ctx/mod" GOFLAGS=-modcacherw GOPROXY="$local_proxy" \
    GOSUMDB=off GOWORK=off CGO_ENABLED=0 go build -o /dev/null . >&2
  cat >"$work/go/ctx/Dockerfile" <<EOF
FROM $base
COPY go /usr/local/go
COPY mod /go/pkg/mod
ENV GOLANG_VERSION=${gover#go} GOTOOLCHAIN=local GOPATH=/go GOPROXY=off \
    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /go
LABEL $label=$go_key
EOF
  old=$(old_id golang:1.26)
  docker build -q -t golang:1.26 "$work/go/ctx" >/dev/null
  retire "$old" golang:1.26
  rm -rf "$work/go"
fi

# 3. distroless static:nonroot: no shell, no package manager, user nonroot.
dl=gcr.io/distroless/static-debian12:nonroot
dl_key=$(echo "distroless-nonroot-v1 $base_key" | hash)
if needs "$dl" "$dl_key"; then
  echo "standins: $dl" >&2
  mkdir -p "$work/dl"
  cat >"$work/dl/Dockerfile" <<EOF
FROM $base AS files
RUN mkdir -p /out/etc/ssl/certs /out/tmp /out/home/nonroot /out/root \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >/out/etc/passwd \
 && printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >/out/etc/group \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ \
 && chmod 1777 /out/tmp && chmod 700 /out/home/nonroot /out/root && chown 65532:65532 /out/home/nonroot
FROM scratch
COPY --from=files /out/ /
USER 65532
WORKDIR /home/nonroot
LABEL $label=$dl_key
EOF
  old=$(old_id "$dl")
  docker build -q -t "$dl" "$work/dl" >/dev/null
  retire "$old" "$dl"
  rm -rf "$work/dl"
fi

# 4. Weaviate 1.39.0 as the real image runs it (alpine, /bin/weaviate, the same
# entrypoint and command, a /modules directory).
wv=cr.weaviate.io/semitechnologies/weaviate:1.39.0
wv_key=$( (echo "$base_key"; sha256sum <"$weaviate_bin") | hash)
if needs "$wv" "$wv_key"; then
  echo "standins: $wv from $weaviate_bin" >&2
  mkdir -p "$work/wv"
  cp "$weaviate_bin" "$work/wv/weaviate"
  cat >"$work/wv/Dockerfile" <<EOF
FROM $base
RUN mkdir /modules
COPY weaviate /bin/weaviate
ENTRYPOINT ["/bin/weaviate"]
CMD ["--host", "0.0.0.0", "--port", "8080", "--scheme", "http"]
LABEL $label=$wv_key
EOF
  old=$(old_id "$wv")
  docker build -q -t "$wv" "$work/wv" >/dev/null
  retire "$old" "$wv"
  rm -rf "$work/wv"
fi
echo "standins: ready" >&2
