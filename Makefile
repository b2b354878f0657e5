# tutti: the developer's commands. `make test` is the README's test command.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
PG_URL    ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
REDIS_URL ?= redis://127.0.0.1:6379/0
# more go test flags (CI: -json, for scripts/skipped-tests.sh)
GOTESTFLAGS ?=
# every package whose tests start servers through apptest (so a new app's are in the cluster run)
CLUSTER_PKGS := $(sort $(patsubst %/,./%,$(dir $(shell grep -rl --include=*_test.go -e apptest.Each -e apptest.One internal))))

.PHONY: build test test-postgres test-cluster test-browser test-browser-embedded generate check-generated check-migrations fuzz bench load-smoke run demo

build: ## the tutti binary in ./bin
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/tutti ./cmd/tutti

test: ## everything that needs no service, on SQLite
	$(GO) vet ./...
	$(GO) test $(GOTESTFLAGS) -count=1 -timeout 15m ./...

test-postgres: ## the store and HTTP tests on PostgreSQL only, make test having run them on SQLite (and the bus on a NATS server if TUTTI_TEST_NATS is set)
	TUTTI_TEST_DATABASES=postgres TUTTI_TEST_POSTGRES='$(PG_URL)' $(GO) test $(GOTESTFLAGS) -count=1 -timeout 15m ./internal/...

test-cluster: ## the HTTP and browser tests against two instances behind nginx (TUTTI_TEST_NATS, TUTTI_TEST_MINIO when set); the per-database runs are make test's and test-postgres's
	TUTTI_TEST_DATABASES=none TUTTI_TEST_NGINX=only TUTTI_TEST_BROWSER=1 TUTTI_TEST_POSTGRES='$(PG_URL)' TUTTI_TEST_REDIS='$(REDIS_URL)' \
		$(GO) test $(GOTESTFLAGS) -count=1 -p 1 -timeout 15m $(CLUSTER_PKGS)

test-browser: ## the browser tests (Debian's chromium)
	TUTTI_TEST_BROWSER=1 $(GO) test -count=1 -timeout 10m -run Browser ./internal/...

# every package with browser tests (TestBrowser...), and those the cluster run does not cover
BROWSER_PKGS := $(sort $(patsubst %/,./%,$(dir $(shell grep -rl --include=*_test.go '^func TestBrowser' internal))))
BROWSER_ONLY_PKGS := $(filter-out $(CLUSTER_PKGS),$(BROWSER_PKGS))
# Per app, a browser test that CI also runs on one embedded process (Go
# serving the static files, NATS in the process, SQLite): meet's and roar's
# live page, race's results (its waiting room waits for its admissions,
# 35 s), music's friends (10 s, since its pages close their streams when
# left), auth's and ops's.
BROWSER_EMBEDDED := TestBrowserPollUpdatesLive|TestBrowserLiveTimeline|TestBrowserResults|TestBrowserFriendsShareCommentLike|TestBrowserRefusedSettingsKeepWhatWasTyped|TestBrowserResetAndOpsPages

test-browser-embedded: ## after make test-cluster (which ran every browser test of CLUSTER_PKGS behind nginx): the browser tests of the other packages, and per app one embedded
	@for t in $(subst |, ,$(BROWSER_EMBEDDED)); do grep -rqE "^func $$t\(" internal || { echo "BROWSER_EMBEDDED: no $$t"; exit 1; }; done
	TUTTI_TEST_BROWSER=1 $(GO) test -count=1 -timeout 10m -run Browser $(BROWSER_ONLY_PKGS)
	TUTTI_TEST_BROWSER=1 $(GO) test -count=1 -timeout 10m -run '^($(BROWSER_EMBEDDED))$$' $(filter $(CLUSTER_PKGS),$(BROWSER_PKGS))

generate: ## templ components -> Go
	$(GO) tool templ generate -include-version=false

check-generated: generate ## fail if generated files are not committed
	git diff --exit-code -- '*_templ.go'

check-migrations: ## fail if a landed migration file was edited or removed
	./scripts/check-migrations.sh

FUZZ_PKGS ?= $(sort $(patsubst %/,./%,$(dir $(shell grep -rl --include=*_test.go '^func Fuzz' internal))))

fuzz: ## each fuzz target for 10 s
	for p in $(FUZZ_PKGS); do for f in $$($(GO) test -list 'Fuzz.*' $$p | grep ^Fuzz); do \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 10s $$p || exit 1; done; done

bench: ## hot-path benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

load-smoke: build ## a short meet load run against a fresh embedded server; fails on any error
	./scripts/load-smoke.sh

run: build ## serve with demo data
	./bin/tutti serve --demo
