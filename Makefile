# Sello — make help lists the targets.
GO ?= go
# A package's tests may take longer than go test's 10-minute default on a
# busy 2-core machine (api and cmd/sello ran past it beside a parallel build).
TEST_TIMEOUT ?= 30m
PG_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable

# bash with pipefail, so that a recipe piping go test into the summary
# fails when the tests do (sh is dash here: it has no pipefail).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec

.PHONY: help build run test test-postgres bench fuzz lint generate vendor-htmx release image

# The release's name: git describe's (the last v* tag, commits since,
# -dirty), without the tag's "v": 1.2.0, 1.2.0-3-g1a2b3c4-dirty; before the
# first tag, the commit's short hash. sello version prints it, with COMMIT.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --always --dirty 2>/dev/null | sed 's/^v//')
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
# Asked of git once per make run, so that every binary of a release names
# the same version.
VERSION := $(VERSION)
COMMIT := $(COMMIT)
LDFLAGS = -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# The platforms make release builds, GOOS/GOARCH.
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/arm64 windows/amd64
SHA256SUM ?= sha256sum
IMAGE ?= sello:$(VERSION)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build the sello binary into bin/sello (sello version names VERSION and COMMIT)
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o bin/sello ./cmd/sello

release: ## static binaries (CGO_ENABLED=0; SQLite is pure Go) for RELEASE_PLATFORMS into dist/sello_VERSION_OS_ARCH[.exe], with dist/SHA256SUMS
	rm -rf dist && mkdir -p dist
	@test -n "$(VERSION)" || { echo "make release: no VERSION (not a git checkout?): make release VERSION=1.2.3 COMMIT=…"; exit 1; }
	@for p in $(RELEASE_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; \
		if [ "$$os" = windows ]; then ext=.exe; fi; \
		out=dist/sello_$(VERSION)_$${os}_$${arch}$$ext; \
		echo "$$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $$out ./cmd/sello; \
	done
	cd dist && $(SHA256SUM) sello_* > SHA256SUMS
	@cat dist/SHA256SUMS

image: ## build the container image IMAGE (sello:VERSION) from the Dockerfile, with VERSION and COMMIT
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t $(IMAGE) .

run: ## run the service on the embedded default with demo data
	$(GO) run ./cmd/sello serve --demo

# test runs every step even when one fails, so that one run shows every
# failure: vet, then the tests of both modules (the project's and the
# client's, client/) through one summary, which lists the failed and
# skipped tests of both; it fails if any step did.
test: ## vet and run every test of both modules with the race detector (the PostgreSQL suite too when SELLO_TEST_DATABASE_URL is set), then list what failed, what skipped and why
	@status=0; \
	echo "$(GO) vet ./..."; $(GO) vet ./... || status=1; \
	if [ -f client/go.mod ]; then echo "(cd client && $(GO) vet ./...)"; (cd client && $(GO) vet ./...) || status=1; fi; \
	echo "$(GO) test -race -count=1 ./... (and in client/)"; \
	( rc=0; \
	  $(GO) test -race -count=1 -timeout=$(TEST_TIMEOUT) -json ./... || rc=1; \
	  if [ -f client/go.mod ]; then (cd client && $(GO) test -race -count=1 -timeout=$(TEST_TIMEOUT) -json ./...) || rc=1; fi; \
	  exit $$rc ) | $(GO) run ./internal/testsummary || status=1; \
	exit $$status

test-postgres: ## run the storage and API suites against the local PostgreSQL
	SELLO_TEST_DATABASE_URL='$(PG_URL)' $(GO) test -count=1 ./postgres/ ./storetest/ ./cmd/sello/

bench: ## run the benchmarks (figures go to docs/benchmarks.md)
	$(GO) test -run='^$$' -bench=. -benchmem ./...

FUZZ_TARGETS = \
		.:FuzzParseENCF \
		.:FuzzWebhookEndpoint \
		./ecf/:FuzzDecode \
		./internal/jsonstrict/:FuzzCheck \
		./internal/jsonstrict/:FuzzDecode \
		./ecf/:FuzzParseECFHeader \
		./ecf/:FuzzReadXML \
		./ecf/:FuzzParseACECF \
		./ecf/:FuzzParseARECF \
		./api/:FuzzRecepcion \
		./api/:FuzzAprobacionComercial \
		./xmldsig/:FuzzVerify \
		./xmldsig/:FuzzSign \
		./xmldsig/:FuzzFastPath \
		./dgii/:FuzzParseResult \
		./dgii/:FuzzParseTrackIDs \
		./dgii/:FuzzParseDirectory \
		./dgii/:FuzzParseToken \
		./dgii/:FuzzParseError \
		./dgiisim/:FuzzParseXML \
		./api/:FuzzListEventsQuery \
		./webhook/:FuzzValidateURL \
		./webhook/:FuzzCheckAddr \
		./testset/:FuzzReadJSON \
		./testset/:FuzzReadWorkbook \
		./ecf/:FuzzReadFields \
		./cmd/sello/:FuzzParseMetrics
FUZZTIME ?= 30s

fuzz: ## run each fuzz target for FUZZTIME (30 s); every parser of outside input has one
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "fuzz $$name ($$pkg)"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done
	@echo "fuzz FuzzParseSignatureHeader (./client/, its own module)"
	(cd client && $(GO) test -run='^$$' -fuzz='^FuzzParseSignatureHeader$$' -fuzztime=$(FUZZTIME) .)

lint: ## gofmt and go vet
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) vet ./...
	cd client && $(GO) vet ./...

GOLDEN_PACKAGES = ./ecf/ ./pdf/

generate: ## generate the portal's templates (templ, pinned in go.mod) and rewrite the golden files from the code (the tests of GOLDEN_PACKAGES with -update); review the diff
	$(GO) tool templ generate -path portal
	$(GO) test -count=1 $(GOLDEN_PACKAGES) -update

HTMX_VERSION = $(shell sed -n 's/^const HTMXVersion = "\(.*\)"/\1/p' portal/static.go)

vendor-htmx: ## fetch htmx (npm htmx.org, the version portal.HTMXVersion names) into portal/static/htmx.min.js
	tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent htmx.org@$(HTMX_VERSION) >/dev/null && tar xzf htmx.org-$(HTMX_VERSION).tgz package/dist/htmx.min.js && cp package/dist/htmx.min.js $(CURDIR)/portal/static/htmx.min.js && rm -rf $$tmp
