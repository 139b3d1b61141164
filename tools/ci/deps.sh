#!/usr/bin/env bash
# Installs the servers and tools the test suites run against, only when
# missing: PostgreSQL, Redis (Debian packages; run as root or with sudo) and
# oapi-codegen (go install).
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
# oapi-codegen, pinned, for the test that generates a client from the
# served OpenAPI document; cached under $HOME/.cache like other tools.
TOOLS="$HOME/.cache/chartd/bin"
OAPI_CODEGEN_VERSION=v2.8.2
if ! "$TOOLS/oapi-codegen" -version 2>/dev/null | grep -q "$OAPI_CODEGEN_VERSION"; then
  echo "installing oapi-codegen $OAPI_CODEGEN_VERSION"
  GOBIN="$TOOLS" go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION"
fi
# Package installs may start system copies; the tests start their own.
exit 0
