#!/usr/bin/env bash
# Builds both images for each architecture (default: amd64 arm64) on this machine's
# Docker engine; Go cross-compiles every binary, so no emulator runs a build:
#
#   text2vec-am:local-ARCH                       the inference server (Dockerfile)
#   localhost/weaviate-text2vec-am:1.39.0-ARCH   Weaviate with the in-process module
#                                                (build-weaviate, Dockerfile.weaviate)
#
# and tags the build machine's architecture also without the suffix (text2vec-am:local,
# localhost/weaviate-text2vec-am:1.39.0: what the manifests and Helm values name).
# Each image is then checked: its architecture, and its binaries taken out of it answer
# --help (under qemu-user-static for a foreign architecture).
#
#   scripts/build-images.sh [ARCH...]
#   IMAGES=server scripts/build-images.sh arm64      only the inference server
#
# The base image (gcr.io/distroless/static-debian12:nonroot, or BASE=...) holds only
# files (passwd, CA certificates): when the local one is of another architecture, its
# files are copied onto an empty image of the wanted one (text2vec-am-base:nonroot-ARCH),
# so a machine that reaches no registry builds both (scripts/compose-standins.sh makes
# the base and golang:1.26). The images are built without --platform (the classic
# builder cannot run the build stage's golang:1.26 of the build machine under it): each
# takes its architecture from its base. To publish one multi-architecture name: tag and push the
# ARCH images to your registry, then `docker manifest create REG/NAME:TAG
# REG/NAME:TAG-amd64 REG/NAME:TAG-arm64` and `docker manifest push REG/NAME:TAG`.
#
# Binaries go to dist/linux-ARCH/; build-weaviate keeps one work directory per
# architecture under ~/.cache/text2vec-am (a cold Weaviate build takes 6-20 minutes on
# two cores, a rebuild about 2).
set -euo pipefail
cd "$(dirname "$0")/.."
export DOCKER_BUILDKIT=0 # the classic builder: what Docker engines without buildx have

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
images=${IMAGES:-server weaviate}
base=${BASE:-gcr.io/distroless/static-debian12:nonroot}
server=text2vec-am:local
weaviate=localhost/weaviate-text2vec-am:1.39.0
host_arch=$(go env GOHOSTARCH)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/text2vec-am

log() { echo "build-images: $*" >&2; }

# base_for ARCH prints the base image to build ARCH's images on.
base_for() {
  local arch=$1 tag=text2vec-am-base:nonroot-$1
  if [ "$(docker image inspect --format '{{.Architecture}}' "$base" 2>/dev/null)" = "$arch" ]; then
    echo "$base"
    return
  fi
  printf 'FROM %s AS files\nFROM scratch\nCOPY --from=files / /\nUSER 65532:65532\nWORKDIR /home/nonroot\n' "$base" |
    docker build -q --platform "linux/$arch" -t "$tag" - >/dev/null
  echo "$tag"
}

# run_help ARCH FILE runs FILE --help, under qemu-user-static when ARCH is foreign.
run_help() {
  local arch=$1 file=$2 qemu
  if [ "$arch" = "$host_arch" ]; then
    "$file" --help >/dev/null 2>&1
    return
  fi
  case "$arch" in arm64) qemu=qemu-aarch64-static ;; amd64) qemu=qemu-x86_64-static ;; *) qemu=qemu-$arch-static ;; esac
  command -v "$qemu" >/dev/null || { log "no $qemu to run the $arch binary (apt-get install qemu-user-static)"; return 1; }
  "$qemu" "$file" --help >/dev/null 2>&1
}

# check IMAGE ARCH PATH: IMAGE is of ARCH and its binary PATH answers --help.
check() {
  local image=$1 arch=$2 path=$3 have id out
  have=$(docker image inspect --format '{{.Os}}/{{.Architecture}}' "$image")
  [ "$have" = "linux/$arch" ] || { log "$image is $have, want linux/$arch"; return 1; }
  out=$(mktemp -d)
  id=$(docker create "$image")
  docker cp "$id:$path" "$out/bin" >/dev/null
  docker rm "$id" >/dev/null
  if ! run_help "$arch" "$out/bin"; then
    rm -rf "$out"
    log "$image: $path --help failed"
    return 1
  fi
  rm -rf "$out"
  log "$image: linux/$arch, $path --help answers"
}

# tag_host IMAGE ARCH tags IMAGE-ARCH as IMAGE when ARCH is the build machine's.
tag_host() { [ "$2" != "$host_arch" ] || docker tag "$1-$2" "$1"; }

mkdir -p dist/host
CGO_ENABLED=0 go build -o dist/host/text2vec-am .
for arch in "${archs[@]}"; do
  b=$(base_for "$arch")
  dir=dist/linux-$arch
  mkdir -p "$dir/weaviate-image"
  if [[ " $images " == *" server "* ]]; then
    log "$server-$arch (on $b)"
    docker build -q --build-arg TARGETARCH="$arch" --build-arg BASE="$b" -t "$server-$arch" . >/dev/null
    check "$server-$arch" "$arch" /usr/local/bin/text2vec-am
    tag_host "$server" "$arch"
  fi
  if [[ " $images " == *" weaviate "* ]]; then
    log "weaviate-server with text2vec-am for linux/$arch"
    GOOS=linux GOARCH=$arch CGO_ENABLED=0 dist/host/text2vec-am build-weaviate \
      --out "$dir/weaviate-image/weaviate" --work-dir "$cache/build-weaviate-v1.39.0-linux-$arch"
    log "$weaviate-$arch (on $b)"
    docker build -q --build-arg BASE="$b" -f Dockerfile.weaviate -t "$weaviate-$arch" "$dir/weaviate-image" >/dev/null
    check "$weaviate-$arch" "$arch" /bin/weaviate
    tag_host "$weaviate" "$arch"
  fi
done
log "done: ${archs[*]}"
