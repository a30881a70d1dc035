//! The project's documents link only to what exists: every relative link in
//! the README, ARCHITECTURE.md, CONTRIBUTING.md, SECURITY.md, CHANGELOG.md
//! and the book under `docs/` names a file of the repository, and every
//! `#anchor` a heading of its target. The book's `SUMMARY.md` is checked the
//! same way, so a page it lists cannot go missing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every markdown file the check reads.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "SECURITY.md",
        "CHANGELOG.md",
    ]
    .iter()
    .map(|f| root().join(f))
    .collect();
    let mut stack = vec![root().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// The `(target)` of every `[text](target)` outside code.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Inline code spans are not links.
        let outside: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = outside.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].trim().to_owned());
            rest = &after[end..];
        }
    }
    found
}

/// GitHub's and mdBook's anchor of a heading: lowercase, spaces to `-`,
/// punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(path: &Path) -> HashSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let mut broken = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let dir = file.parent().expect("a directory");
        for link in links(&text) {
            if link.is_empty()
                || link.starts_with("http://")
                || link.starts_with("https://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            let (path, fragment) = match link.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                if !anchors(&target).contains(fragment) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_book_lists_every_page_it_has() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: HashSet<PathBuf> = links(&summary).iter().map(|l| docs.join(l)).collect();
    let unlisted: Vec<PathBuf> = documents()
        .into_iter()
        .filter(|f| f.starts_with(&docs))
        .filter(|f| !f.ends_with("SUMMARY.md"))
        .filter(|f| !listed.contains(f))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages the book does not list: {unlisted:?}"
    );
}

#[test]
fn the_readme_stays_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let lines = readme.lines().count();
    assert!(
        lines <= 220,
        "README.md has {lines} lines; the book holds the rest"
    );
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    assert!(first_screen.contains("make run") && first_screen.contains("make test"));
}
