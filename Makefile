# chartd — `make run` starts the service, `make test` runs every test.
GO      ?= go
ADDR    ?= 127.0.0.1:8080
DATA    ?= ./data
PKGS    := ./libs/... ./charts/... ./tools/... $(addsuffix /...,$(addprefix ./services/,gateway chart data brand render chartd))

.PHONY: build run test deps bench lint load clean

build:
	cd services/chartd && $(GO) build -o ../../bin/chartd .
	cd tools && $(GO) build -o ../bin/chartctl ./chartctl && $(GO) build -o ../bin/loadgen ./loadgen

run: build
	ADDR=$(ADDR) DATA=$(DATA) tools/ci/run.sh

# deps installs the real servers the tests run against (PostgreSQL, Redis)
# when they are missing; the tests start and stop them on loopback ports.
deps:
	tools/ci/deps.sh

test: deps build
	$(GO) vet $(PKGS)
	$(GO) test -timeout 20m $(PKGS)

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@2025.1.1 $(PKGS)

clean:
	rm -rf bin
