# chartd — `make run` starts the service, `make test` runs every test.
GO      ?= go
ADDR    ?= 127.0.0.1:8080
DATA    ?= ./data
PKGS    := ./libs/... ./charts/... ./tools/... $(addsuffix /...,$(addprefix ./services/,gateway chart data brand render chartd operator))

.PHONY: build run test deps bench lint gallery clean images manifests

build:
	cd services/chartd && $(GO) build -o ../../bin/chartd .
	cd tools && $(GO) build -o ../bin/chartctl ./chartctl && $(GO) build -o ../bin/loadgen ./loadgen

run: build
	tools/ci/render-deps.sh
	ADDR=$(ADDR) DATA=$(DATA) tools/ci/run.sh $(ARGS)

# deps installs the real servers the tests run against (PostgreSQL, Redis,
# MinIO, Chromium and its fonts) when they are missing; the tests start and
# stop them on loopback ports.
deps:
	tools/ci/deps.sh

test: deps build
	$(GO) vet $(PKGS)
	$(GO) test -timeout 45m $(PKGS)

# bench runs every benchmark, BenchmarkImgCDN (tools/imgbench: /img to a
# CDN edge, minutes long) among them; docs/operations.md takes its figures.
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m $(PKGS)

TOOLS   := $(HOME)/.cache/chartd/bin

lint:
	test -z "$$(gofmt -l libs charts tools services)" || { gofmt -l libs charts tools services; exit 1; }
	$(GO) vet $(PKGS)
	test -x $(TOOLS)/staticcheck || GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	$(TOOLS)/staticcheck $(PKGS)

# gallery writes bin/gallery.html: every golden chart of libs/draw on one page,
# then the PNG goldens of libs/raster.
gallery:
	cd tools && $(GO) run ./gallery -dir ../libs/draw/testdata -png ../libs/raster/testdata/png -out ../bin/gallery.html

# images builds the container images (Dockerfile targets) where Docker is.
VERSION ?= 0.1.0
REGISTRY ?= chartd
images:
	docker build --target chartd -t $(REGISTRY)/chartd:$(VERSION) .
	docker build --target render -t $(REGISTRY)/chartd-render:$(VERSION) .
	docker build --target operator -t $(REGISTRY)/chartd-operator:$(VERSION) .

# manifests regenerates the operator's deep copies, CRD and RBAC with
# controller-gen, into k8s/ and the Helm chart.
CONTROLLER_GEN_VERSION := v0.21.0
manifests:
	test -x $(TOOLS)/controller-gen || GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	cd services/operator && $(TOOLS)/controller-gen object paths=./api/... && \
	  $(TOOLS)/controller-gen crd rbac:roleName=chartd-operator paths=./... \
	    output:crd:artifacts:config=../../k8s/crd output:rbac:artifacts:config=../../k8s/rbac
	cp k8s/crd/chartd.dev_renderfleets.yaml helm/chartd/crds/
	cp k8s/rbac/role.yaml helm/chartd/files/operator-role.yaml

clean:
	rm -rf bin
