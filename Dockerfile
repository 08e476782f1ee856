# text2vec-am inference server: a static Go binary in a distroless, non-root image.
#   docker build -t text2vec-am .
#   docker build --build-arg VERSION=v0.11.0 -t text2vec-am:v0.11.0 .   (a release: see docs/operations.md)
#   docker compose up            (see docker-compose.yml)
#   scripts/build-images.sh      (amd64 and arm64: TARGETARCH and BASE per architecture)

ARG BASE=gcr.io/distroless/static-debian12:nonroot
FROM golang:1.26 AS build
# The architecture to compile for (Go cross-compiles); empty: the build machine's.
ARG TARGETARCH
ENV GOARCH=$TARGETARCH
WORKDIR /src
COPY . .
# VERSION is what --version, /meta and t2vam_build_info report; empty: "(devel)"
# (the build context has no .git for the toolchain to read a commit from).
ARG VERSION=
# Only the modules the binary imports are downloaded (not go mod download).
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X github.com/text2vec-am/text2vec-am/internal/version.Version=${VERSION}" \
    -o /out/text2vec-am . \
 && mkdir -p /out/data

FROM ${BASE}
COPY --from=build /out/text2vec-am /usr/local/bin/text2vec-am
# The memory volume is mounted here; an empty named volume inherits this
# owner (distroless "nonroot", uid 65532) on first use.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
EXPOSE 8880
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/text2vec-am", "healthcheck", "--url", "http://127.0.0.1:8880/.well-known/ready"]
ENTRYPOINT ["/usr/local/bin/text2vec-am", "serve"]
# Inside its own network namespace the server must listen beyond loopback for
# Weaviate to reach it; docker-compose publishes no port for it.
CMD ["--addr", "0.0.0.0:8880", "--memory-dir", "/data/memory"]
