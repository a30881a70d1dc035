# meshwatch — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: setup run build agent test lint test-rust test-e2e

setup:
	bash scripts/setup.sh

## Build the release panel and start it with the demo fleet on 127.0.0.1:3000.
run: setup build
	MESHWATCH_DEMO=1 ./target/release/meshwatch-server

## The release panel with the front end inside. `--precompress` writes the
## gzip and brotli copies it serves, and (cargo-leptos 0.3 reads it only from
## the command line) builds the front end before the server that embeds it.
build:
	cargo leptos build --release --precompress

## The agent for VPN servers: target/release/meshwatch-agent.
agent:
	cargo build --release --features agent --bin meshwatch-agent

## Everything CI runs: formatting, clippy, Rust tests, browser tests.
test:
	bash scripts/setup.sh --with-browser
	$(MAKE) lint test-rust test-e2e

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

test-rust:
	cargo test --workspace

test-e2e: build
	cd end2end && npx playwright test
