#!/usr/bin/env bash
# Installs the servers and tools the test suites run against, only when
# missing: PostgreSQL, Redis, Chromium and its fonts (Debian packages; run
# as root or with sudo), oapi-codegen and MinIO (go install, cached under
# $HOME/.cache/chartd/bin).
set -euo pipefail
need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
"$(dirname "$0")/render-deps.sh"
# oapi-codegen, pinned, for the test that generates a client from the
# served OpenAPI document; cached under $HOME/.cache like other tools.
TOOLS="$HOME/.cache/chartd/bin"
OAPI_CODEGEN_VERSION=v2.8.2
if ! "$TOOLS/oapi-codegen" -version 2>/dev/null | grep -q "$OAPI_CODEGEN_VERSION"; then
  echo "installing oapi-codegen $OAPI_CODEGEN_VERSION"
  GOBIN="$TOOLS" go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION"
fi
# MinIO, pinned, for the S3 blob store tests (libs/testserver.StartMinIO
# looks here). It has no semver tags, so the pin is the pseudo-version
# `go install github.com/minio/minio@latest` resolved to. Building it takes
# ~5 min, so the binary is cached and rebuilt only when the module version
# it embeds differs from the pin.
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
minio_have=$(go version -m "$TOOLS/minio" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/minio/minio" {print $3}') || true
if [ "$minio_have" != "$MINIO_VERSION" ]; then
  echo "installing minio $MINIO_VERSION (cached: ${minio_have:-none}); this takes ~5 min"
  GOBIN="$TOOLS" go install "github.com/minio/minio@$MINIO_VERSION"
fi
# Package installs may start system copies; the tests start their own.
exit 0
