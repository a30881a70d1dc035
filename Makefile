# meshwatch — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup run build dev agent test lint test-rust test-postgres test-e2e

setup:
	bash scripts/setup.sh

## Build the release panel and start it with the demo fleet on 127.0.0.1:3000.
run: setup build
	MESHWATCH_DEMO=1 MESHWATCH_STATUS_PAGE=1 ./target/release/meshwatch-server

## The release panel with its site inside. A file target: when no source
## changed since the last build, `make run` starts the panel at once instead
## of re-running wasm-opt and relinking.
build: target/release/meshwatch-server

PANEL_SOURCES := Cargo.toml Cargo.lock package-lock.json \
	scripts/build-release.sh \
	$(shell find src app server/src server/build.rs server/Cargo.toml style public migrations -type f 2>/dev/null)

target/release/meshwatch-server: $(PANEL_SOURCES)
	bash scripts/build-release.sh
	@touch $@

## Development: rebuild and restart on every change (cargo leptos watch).
dev:
	bash scripts/setup.sh --dev
	MESHWATCH_DEMO=1 MESHWATCH_SITE_ROOT=target/site cargo leptos watch

## The agent for VPN servers: target/release/meshwatch-agent.
agent:
	cargo build --release --features agent --bin meshwatch-agent

## Everything CI runs: formatting, clippy, Rust tests (the HTTP suite on
## SQLite, then again on a throw-away PostgreSQL cluster), browser tests
## (also through nginx with TLS, deploy/nginx.conf as shipped).
test:
	bash scripts/setup.sh --with-browser --with-postgres
	$(MAKE) lint test-rust test-postgres test-e2e

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

test-rust:
	cargo test --workspace

## The HTTP integration suite against PostgreSQL: Debian's server in a temp
## dir, as an unprivileged user, stopped and deleted afterwards. A rare
## stall of one test on this backend (a known issue, README "Tests")
## is bounded by `timeout` and gets one fresh cluster and run more; a real
## failure fails both.
PG_SUITE := timeout 900 cargo test --workspace --test api
test-postgres:
	bash scripts/with-postgres.sh $(PG_SUITE) || { \
	  echo "test-postgres: the suite failed or stalled once; running it again on a fresh cluster"; \
	  bash scripts/with-postgres.sh $(PG_SUITE); }

test-e2e: build
	cd end2end && npx playwright test
