//! The server's layers, as `src/lib.rs` "# Layout" draws them, checked on
//! the sources: a lower layer that imports a higher one fails here.

use std::path::{Path, PathBuf};

/// Each layer, and the only top-level modules of this crate it may name.
const RULES: [(&str, &[&str]); 2] = [
    // The primitives import nothing but each other.
    ("crypto", &["crypto"]),
    // The store: only itself and the primitives below it.
    ("store", &["store", "crypto"]),
];

fn sources(layer: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![root.join(format!("{layer}.rs"))];
    let mut dirs = vec![root.join(layer)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The top-level modules a source names through `crate::…`.
fn named_modules(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .filter(|(at, _)| !text[..*at].ends_with('$'))
        .map(|(at, found)| {
            text[at + found.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_layer_imports_one_above_it() {
    let mut breaches = Vec::new();
    for (layer, allowed) in RULES {
        for file in sources(layer) {
            let text = std::fs::read_to_string(&file).expect("readable source");
            for module in named_modules(&text) {
                if !allowed.contains(&module.as_str()) {
                    breaches.push(format!("{}: crate::{module}", file.display()));
                }
            }
        }
    }
    assert!(
        breaches.is_empty(),
        "imports above their layer:\n{}",
        breaches.join("\n")
    );
}

#[test]
fn the_check_sees_an_import() {
    assert_eq!(
        named_modules("use crate::engine::Clock; see [`crate::store`]"),
        ["engine", "store"]
    );
}
