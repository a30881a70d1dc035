#!/usr/bin/env bash
# Installs everything building (and, with --with-browser, testing) meshwatch
# needs on a Debian machine whose only network is the package registries.
# Idempotent: each step is skipped when its tool is already there at the
# pinned version (wasm-bindgen-cli takes ~3 minutes to compile; mdBook,
# with --with-docs, ~2; cargo-leptos, for development only, ~13).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

CARGO_LEPTOS_VERSION=0.3.11
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pin in Cargo.toml
MDBOOK_VERSION=0.5.4

with_browser=0 with_dev=0 with_postgres=0 with_docs=0
for arg in "$@"; do
  case "$arg" in
    --with-browser) with_browser=1 ;;
    # Debian's PostgreSQL server, for the test suite's second backend
    # (scripts/with-postgres.sh runs a throw-away cluster of it).
    --with-postgres) with_postgres=1 ;;
    # mdBook, to build the book under docs/ (make docs).
    --with-docs) with_docs=1 ;;
    # cargo-leptos, for `make dev` (cargo leptos watch) only: building and
    # testing the panel do not need it.
    --dev) with_dev=1 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" \
    || { as_root apt-get update && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"; }
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The build tools are compiled from crates.io (no binary downloads here).
# They only drive other programs and rewrite a few files, so they are built
# without LTO and at opt-level 1: their own release profiles (cargo-leptos:
# fat LTO, one codegen unit) buy nothing a build would notice. They compile
# at once, in the background, while npm installs its tools.
tool_build=(env CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
            CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=false
            CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_INCREMENTAL=false)
tool_logs=$(mktemp -d)
tool_pids=()
if [ "$with_dev" = 1 ] && ! cargo leptos --version 2>/dev/null | grep -q "$CARGO_LEPTOS_VERSION"; then
  step "cargo install cargo-leptos $CARGO_LEPTOS_VERSION (in the background)"
  # Its lockfile declares a newer rust-version than it needs.
  "${tool_build[@]}" cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" \
    --locked --ignore-rust-version >"$tool_logs/cargo-leptos.log" 2>&1 &
  tool_pids+=("$!:cargo-leptos")
fi

if [ "$with_docs" = 1 ] && ! mdbook --version 2>/dev/null | grep -q "$MDBOOK_VERSION"; then
  step "cargo install mdbook $MDBOOK_VERSION (in the background)"
  # Without its server and file watcher: `mdbook build` is all CI runs.
  "${tool_build[@]}" cargo install mdbook --version "$MDBOOK_VERSION" --locked \
    --no-default-features --features search >"$tool_logs/mdbook.log" 2>&1 &
  tool_pids+=("$!:mdbook")
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (in the background)"
  # Not --locked: its lockfile wants a webpki-roots the registry no longer has.
  "${tool_build[@]}" cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" \
    >"$tool_logs/wasm-bindgen-cli.log" 2>&1 &
  tool_pids+=("$!:wasm-bindgen-cli")
fi

# Tailwind v4, wasm-opt (binaryen 132) and terser from npm: the build (and
# cargo-leptos) finds them in node_modules/.bin instead of downloading them
# (which fails here).
if [ ! -x node_modules/.bin/tailwindcss ] || [ ! -x node_modules/.bin/wasm-opt ] \
   || [ ! -x node_modules/.bin/terser ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci (build tools)"
  npm ci --no-audit --no-fund
fi

# The cloud examples of deploy/actions are Python scripts (standard
# library only), run by the tests.
if ! command -v python3 >/dev/null 2>&1; then
  step "apt-get install python3"
  apt_install python3
fi

# The censor test (server/tests/api/censor.rs) builds its censor from
# nftables and iproute2 in a network namespace of its own (unshare, from
# util-linux, which Debian always has).
if [ "$with_browser" = 1 ] || [ "$with_postgres" = 1 ]; then
  censor_packages=()
  command -v nft >/dev/null || [ -x /usr/sbin/nft ] || censor_packages+=(nftables)
  command -v ip >/dev/null || [ -x /usr/sbin/ip ] || censor_packages+=(iproute2)
  command -v sysctl >/dev/null || [ -x /usr/sbin/sysctl ] || censor_packages+=(procps)
  if [ "${#censor_packages[@]}" -gt 0 ]; then
    step "apt-get install ${censor_packages[*]}"
    apt_install "${censor_packages[@]}"
    # The package's service would load /etc/nftables.conf on the host: the
    # test's table lives in its own namespace only.
    if [ -d /run/systemd/system ]; then
      as_root systemctl disable --now nftables 2>/dev/null || true
    fi
  fi
fi

if [ "$with_browser" = 1 ]; then
  if [ ! -x /usr/bin/chromium ]; then
    step "apt-get install chromium"
    apt_install chromium
  fi
  # The TLS proxy journey runs a private nginx (never the system's) with
  # deploy/nginx.conf and a certificate made by openssl; the shipped
  # Caddyfile is validated where Debian has a caddy package.
  proxy_packages=()
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || proxy_packages+=(nginx)
  command -v openssl >/dev/null || proxy_packages+=(openssl)
  if ! command -v caddy >/dev/null; then
    # A machine whose package lists were never fetched knows no caddy yet.
    compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || as_root apt-get update
    if apt-cache show caddy >/dev/null 2>&1; then
      proxy_packages+=(caddy)
    else
      echo "setup: no caddy package here: the browser tests skip the Caddyfile check"
    fi
  fi
  if [ "${#proxy_packages[@]}" -gt 0 ]; then
    step "apt-get install ${proxy_packages[*]}"
    apt_install "${proxy_packages[@]}"
    # Their packages start system services (nginx and Caddy on port 80) that
    # the tests do not use: stop and disable the ones installed just now.
    if [ -d /run/systemd/system ]; then
      for unit in nginx caddy; do
        if [[ " ${proxy_packages[*]} " == *" $unit "* ]]; then
          as_root systemctl disable --now "$unit" || true
        fi
      done
    fi
  fi
  if [ ! -d end2end/node_modules/@playwright/test ] \
     || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
    step "npm ci (end2end)"
    (cd end2end && npm ci --no-audit --no-fund)
  fi
fi

if [ "$with_postgres" = 1 ] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  step "apt-get install postgresql"
  apt_install postgresql
  # The package creates and may start a system cluster on port 5432; the
  # tests run their own, so stop the one installed just now.
  if command -v pg_lsclusters >/dev/null; then
    pg_lsclusters --no-header 2>/dev/null | while read -r version cluster _; do
      as_root pg_ctlcluster "$version" "$cluster" stop 2>/dev/null || true
    done
  fi
  if [ -d /run/systemd/system ]; then
    as_root systemctl disable --now postgresql 2>/dev/null || true
  fi
fi

# The tool builds started above: wait for them, and show the log of one that
# failed.
for entry in "${tool_pids[@]}"; do
  pid=${entry%%:*} tool=${entry#*:}
  if ! wait "$pid"; then
    tail -n 60 "$tool_logs/$tool.log" >&2
    echo "setup: building $tool failed (full log: $tool_logs/$tool.log)" >&2
    exit 1
  fi
  step "$tool installed: $(grep -E 'Finished|Installed|Replaced' "$tool_logs/$tool.log" | tr '\n' ' ')"
done
rm -rf "$tool_logs"
