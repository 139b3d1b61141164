# chartd — `make run` starts the service, `make test` runs every test.
GO      ?= go
ADDR    ?= 127.0.0.1:8080
DATA    ?= ./data
PKGS    := ./libs/... ./charts/... ./tools/... $(addsuffix /...,$(addprefix ./services/,gateway chart data brand render chartd))

.PHONY: build run test deps bench lint gallery clean

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
	$(GO) test -timeout 20m $(PKGS)

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

TOOLS   := $(HOME)/.cache/chartd/bin

lint:
	test -z "$$(gofmt -l libs charts tools services)" || { gofmt -l libs charts tools services; exit 1; }
	$(GO) vet $(PKGS)
	test -x $(TOOLS)/staticcheck || GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	$(TOOLS)/staticcheck $(PKGS)

# gallery writes bin/gallery.html: every golden chart of libs/draw on one page.
gallery:
	cd tools && $(GO) run ./gallery -dir ../libs/draw/testdata -out ../bin/gallery.html

clean:
	rm -rf bin
