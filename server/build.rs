//! A release `meshwatch-server` carries `target/site` (`src/site.rs`,
//! rust-embed). Cargo sees a change to a file already embedded, but not a
//! file added or removed: told to watch the directory, it rebuilds the
//! server whenever cargo-leptos has rebuilt the front end.

use std::path::Path;

fn main() {
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/site");
    // Made if missing: Cargo reruns a build script that watches a missing
    // path on every build, and rebuilds the server with it.
    if let Err(err) = std::fs::create_dir_all(&site) {
        println!("cargo:warning=cannot create {}: {err}", site.display());
    }
    // `sqlx::migrate!` reads the folders when the crate compiles: a new
    // migration must recompile it.
    println!("cargo:rerun-if-changed=../migrations");
    // Only release builds embed (debug ones read from disk): watching in
    // debug builds would rebuild the server after every front-end build.
    if std::env::var("PROFILE").as_deref() == Ok("release") {
        println!("cargo:rerun-if-changed={}", site.display());
    } else {
        println!("cargo:rerun-if-changed=build.rs");
    }
}
