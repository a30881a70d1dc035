# meshwatch — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup run build dev agent test lint test-rust test-postgres test-e2e nextest docs

setup:
	bash scripts/setup.sh

## Build the release panel and start it with the demo fleet on 127.0.0.1:3000.
run: setup build
	MESHWATCH_DEMO=1 MESHWATCH_STATUS_PAGE=1 ./target/release/meshwatch-server

## The release panel with its site inside. A file target: when no source
## changed since the last build, `make run` starts the panel at once instead
## of re-running wasm-opt and relinking.
build: target/release/meshwatch-server

PANEL_SOURCES := Cargo.toml Cargo.lock package-lock.json .cargo/config.toml \
	scripts/build-release.sh \
	$(shell find src views app server/src server/build.rs server/Cargo.toml style public migrations -type f 2>/dev/null)

target/release/meshwatch-server: $(PANEL_SOURCES)
	bash scripts/build-release.sh
	@touch $@

## Development: rebuild and restart on every change (cargo leptos watch).
dev:
	bash scripts/setup.sh --dev
	MESHWATCH_DEMO=1 MESHWATCH_SITE_ROOT=target/site cargo leptos watch

## The agent for VPN servers: target/release/meshwatch-agent.
agent:
	cargo build --release -p meshwatch-agent

## Everything CI runs: formatting, clippy, Rust tests (the HTTP suite on
## SQLite, then again on a throw-away PostgreSQL cluster), the book,
## browser tests (also through nginx with TLS, deploy/nginx.conf as
## shipped). Each stage prints how long it took.
STAGES := lint test-rust test-postgres docs test-e2e
test:
	@start=$$(date +%s); \
	bash scripts/setup.sh --with-browser --with-postgres --with-docs || exit $$?; \
	echo "==> stage setup: $$(( $$(date +%s) - start )) s"; \
	for stage in $(STAGES); do \
	  start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$stage || exit $$?; \
	  echo "==> stage $$stage: $$(( $$(date +%s) - start )) s"; \
	done

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

## The Rust suites run under cargo-nextest (.config/nextest.toml): each
## test in its own process, a stalled one named and stopped, a test that
## passes only on its retry reported as FLAKY by name. Doctests run apart
## (nextest does not run them).
NEXTEST := cargo nextest run --profile ci
test-rust: nextest
	$(NEXTEST) --workspace
	cargo test --workspace --doc

## The HTTP integration suite against PostgreSQL: Debian's server in a temp
## dir, as an unprivileged user, stopped and deleted afterwards. Selected
## from the workspace build (not `-p server`, whose feature set differs and
## would rebuild half the dependencies). The censor test is left out: its
## panel runs on SQLite in a network namespace of its own either way.
test-postgres: nextest
	bash scripts/with-postgres.sh $(NEXTEST) --workspace -E 'package(server) & binary(api) & not test(/^censor::/)'

nextest:
	@command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked

## The book under docs/ (mdBook); its links are checked by
## tests/docs_links.rs.
docs:
	mdbook build docs

## One build, whatever builds it: after scripts/build-release.sh, a plain
## `cargo build --release -p server` (as `cargo bench` does) finds nothing
## to rebuild, so the binary the browser tests check is the one it makes.
test-e2e: build
	@if cargo build --release -p server 2>&1 | grep -E "Compiling (server|app|leptos)"; then \
	  echo "test-e2e: a plain cargo build rebuilt the panel: its settings differ from scripts/build-release.sh's" >&2; exit 1; fi
	cd end2end && npx playwright test
