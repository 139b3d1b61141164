#!/usr/bin/env bash
# Installs the servers and tools the test suites run against, only when
# missing: PostgreSQL, Redis, an SMTP server (aiosmtpd), Chromium and its fonts (Debian packages; run
# as root or with sudo), oapi-codegen and MinIO (go install, cached under
# $HOME/.cache/chartd/bin).
set -euo pipefail
# shellcheck source=progress.sh
. "$(dirname "$0")/progress.sh"
need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
{ /usr/bin/python3 -c 'import aiosmtpd' || python3 -c 'import aiosmtpd'; } >/dev/null 2>&1 || need+=(python3-aiosmtpd)
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
  echo "installing minio $MINIO_VERSION (cached: ${minio_have:-none})"
  GOBIN="$TOOLS" progress "minio from source" 10 go install "github.com/minio/minio@$MINIO_VERSION"
fi
# --- Kubernetes (services/operator) -------------------------------------
# The operator and Helm chart tests run against a real kube-apiserver with
# envtest: etcd from Debian (etcd-server) and kube-apiserver built from
# k8s.io/kubernetes, pinned to the k8s.io/* version the operator uses.
# `go install` refuses k8s.io/kubernetes (its go.mod replaces the staging
# modules with local paths), so a scratch module under $TOOLS/kube-build
# requires it with those replaces pointed at the published versions. The
# build takes ~9 min on 2 cores; the binary is cached in $TOOLS and rebuilt
# only when the k8s.io/kubernetes version it embeds differs from the pin.
# services/operator's tests find both through $KUBEBUILDER_ASSETS or $TOOLS.
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || {
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "installing etcd-server for the Kubernetes tests"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq etcd-server >/dev/null
  # The package starts a system etcd on :2379; the tests start their own.
  $SUDO systemctl disable --now etcd >/dev/null 2>&1 || $SUDO service etcd stop >/dev/null 2>&1 || true
}
KUBE_VERSION=v1.37.2
KUBE_STAGING=v0.37.2
kube_have=$(go version -m "$TOOLS/kube-apiserver" 2>/dev/null | awk '$1 == "mod" && $2 == "k8s.io/kubernetes" {print $3}') || true
if [ "$kube_have" != "$KUBE_VERSION" ]; then
  echo "building kube-apiserver $KUBE_VERSION (cached: ${kube_have:-none})"
  kb="$TOOLS/kube-build"
  rm -rf "$kb" && mkdir -p "$kb"
  {
    echo "module kubebuild"
    echo
    echo "go 1.26.0"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
      cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api \
      cri-client cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt \
      kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics \
      mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller streaming; do
      echo "	k8s.io/$m => k8s.io/$m $KUBE_STAGING"
    done
    echo ")"
  } >"$kb/go.mod"
  progress "kube-apiserver from source" 15 bash -euo pipefail -c '
    cd "$1"
    KUBE_VERSION=$2 TOOLS=$3
    GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBE_VERSION"
    minor=${KUBE_VERSION#v1.}
    minor=${minor%%.*}
    pkg=k8s.io/component-base/version
    go build -o "$TOOLS/kube-apiserver.tmp" -ldflags "-X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor" \
      k8s.io/kubernetes/cmd/kube-apiserver
    mv "$TOOLS/kube-apiserver.tmp" "$TOOLS/kube-apiserver"
  ' kube-build "$kb" "$KUBE_VERSION" "$TOOLS"
fi
# axe-core, pinned in tools/axe (package-lock.json), which the site's
# browser tests inject.
AXE_DIR="$(cd "$(dirname "$0")/../axe" && pwd)"
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
  command -v npm >/dev/null 2>&1 || { echo "npm is needed for axe-core (apt-get install npm)"; exit 1; }
  echo "installing axe-core (npm ci in tools/axe)"
  (cd "$AXE_DIR" && npm ci --no-audit --no-fund >/dev/null)
fi
# ------------------------------------------------------------------------
# Package installs may start system copies; the tests start their own.
exit 0
