#!/usr/bin/env bash
# Builds the release panel: the front end (the islands' WASM and its JS
# loader, the stylesheet, public/) into target/site, then meshwatch-server
# with that site inside it (one binary to deploy).
#
# It runs the same steps with the same tools and flags as
# `cargo leptos build --release --precompress` (cargo-leptos 0.3.11), from
# the settings in Cargo.toml's [[workspace.metadata.leptos]], but needs only
# wasm-bindgen-cli and the npm tools: compiling cargo-leptos itself took 13
# of a fresh machine's first 20 minutes. cargo-leptos stays the tool for
# `cargo leptos watch` while developing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# From [[workspace.metadata.leptos]]: output-name, site-root, site-pkg-dir.
name=meshwatch
site=target/site
pkg=$site/pkg
front_target=target/front

step() { printf '\n==> %s\n' "$*"; }

# Leptos reads its output settings (LEPTOS_OUTPUT_NAME…) when the server
# and the islands compile; they live in .cargo/config.toml's [env], so
# this script, `cargo build`, `cargo test` and `cargo bench` all build
# the same binary. A variable already set in the environment would win
# there: refuse a build that would differ.
for var in LEPTOS_OUTPUT_NAME LEPTOS_SITE_ROOT LEPTOS_SITE_PKG_DIR LEPTOS_HASH_FILES LEPTOS_JS_MINIFY; do
  if [ -n "${!var+x}" ]; then
    echo "build-release: $var is set in the environment; unset it (.cargo/config.toml sets it)" >&2
    exit 2
  fi
done

step "front end: cargo build (wasm32, profile wasm-release)"
cargo build --package=app --lib --target-dir="$front_target" \
  --target=wasm32-unknown-unknown --no-default-features --features=hydrate \
  --profile=wasm-release

mkdir -p target
staging=$(mktemp -d target/site.new.XXXXXX)
trap 'rm -rf "$staging"' EXIT
chmod 755 "$staging"
mkdir -p "$staging/pkg"

step "front end: wasm-bindgen, wasm-opt -Oz, JS minified"
wasm-bindgen --target=web --out-name="$name" --out-dir="$staging/bindgen" \
  "$front_target/wasm32-unknown-unknown/wasm-release/app.wasm"
mv "$staging/bindgen/${name}_bg.wasm" "$staging/pkg/$name.wasm"
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  "$staging/pkg/$name.wasm" -o "$staging/pkg/$name.wasm"
terser "$staging/bindgen/$name.js" --module --compress --mangle \
  --output "$staging/pkg/$name.js"
if [ -d "$staging/bindgen/snippets" ]; then
  cp -r "$staging/bindgen/snippets" "$staging/pkg/"
fi

step "front end: Tailwind"
tailwindcss --input style/tailwind.css --output "$staging/pkg/$name.css" --minify

# assets-dir
cp -r public/. "$staging/"

# Precompressed copies (brotli and gzip at their highest levels), which the
# panel serves to browsers that accept them.
node -e '
  const fs = require("fs"), path = require("path"), zlib = require("zlib");
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]);
  for (const file of walk(process.argv[1])) {
    const raw = fs.readFileSync(file);
    fs.writeFileSync(file + ".gz", zlib.gzipSync(raw, { level: 9 }));
    fs.writeFileSync(file + ".br", zlib.brotliCompressSync(raw, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
  }' "$staging"

# The islands' WASM budget (docs/benchmarks.md): a build over it fails
# here rather than ship.
wasm_budget=100000
wasm_gzip=$(stat -c %s "$staging/pkg/$name.wasm.gz")
if [ "$wasm_gzip" -gt "$wasm_budget" ]; then
  echo "build-release: the islands' WASM is $wasm_gzip B gzipped, over its $wasm_budget B budget" >&2
  exit 1
fi

# The site changes in one step: a server build never embeds a half-written one.
rm -rf "$site.old"
if [ -d "$site" ]; then mv "$site" "$site.old"; fi
mkdir -p "$(dirname "$site")"
mv "$staging" "$site"
trap - EXIT
rm -rf "$site.old"

step "server: cargo build --release (the site goes inside)"
# Default features (ssr): a plain `cargo build --release -p server` then
# finds the same build and rebuilds nothing (make test-e2e checks it).
cargo build --release --package=server --bin=meshwatch-server
