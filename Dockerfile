# syntax=docker/dockerfile:1
# chartd's images, one target each:
#   chartd    the Go targets (gateway, chart, data, brand) on distroless, non-root
#   render    the render target and single mode: Debian slim, Chromium, the font stack
#   operator  the RenderFleet operator on distroless, non-root
# Every image runs as uid 65532 and works on a read-only root filesystem
# with a writable /tmp (the chart mounts an emptyDir there).
# Build: make images (docker build --target <name> .).

ARG GO_VERSION=1.26
FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -ldflags='-s -w' -o /out/chartd ./services/chartd && \
    go build -ldflags='-s -w' -o /out/chartctl ./tools/chartctl && \
    cd services/operator && go build -ldflags='-s -w' -o /out/operator ./cmd

FROM gcr.io/distroless/static-debian12:nonroot AS chartd
COPY --from=build /out/chartd /out/chartctl /usr/local/bin/
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/chartd"]

FROM debian:bookworm-slim AS render
# Chromium and the font stack libs/fontstack measures with (DESIGN §7);
# HarfBuzz's hb-subset and woff2_compress cut the faces an SVG carries
# (libs/subset; the Go binary has no cgo, so they run as tools). Chromium's
# package is pinned: its version decides the PNGs' pixels, which the
# golden tests check on the same version (services/operator/deploytest
# TestChromiumPin), and the chart passes it as -render.chromium-version.
ARG CHROMIUM_VERSION=156.0.8078.108-1~deb12u1
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium=${CHROMIUM_VERSION} chromium-common=${CHROMIUM_VERSION} fontconfig fonts-dejavu-core fonts-liberation fonts-noto-core fonts-noto-cjk \
      fonts-noto-color-emoji libharfbuzz-bin woff2 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd -g 65532 nonroot && useradd -u 65532 -g 65532 -d /tmp -s /usr/sbin/nologin -M nonroot
# Chromium's own sandbox needs user namespaces, which the RuntimeDefault
# seccomp profile and a pod without capabilities refuse; the pod (non-root,
# no capabilities, seccomp, read-only root, no network for the page) is the
# sandbox. chartd reads CHARTD_RENDER_CHROMIUM as -render.chromium.
RUN printf '#!/bin/sh\nexec /usr/lib/chromium/chromium --no-sandbox "$@"\n' > /usr/local/bin/chromium-pod \
    && chmod 0755 /usr/local/bin/chromium-pod
ENV CHARTD_RENDER_CHROMIUM=/usr/local/bin/chromium-pod HOME=/tmp XDG_CACHE_HOME=/tmp/.cache
COPY --from=build /out/chartd /out/chartctl /usr/local/bin/
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/chartd"]

FROM gcr.io/distroless/static-debian12:nonroot AS operator
COPY --from=build /out/operator /usr/local/bin/operator
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/operator"]
