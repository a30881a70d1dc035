//! Rendered HTML kept for views that are pure functions of their input.
//!
//! Copying kept HTML costs next to nothing, while drawing it again costs
//! a little per element. That adds up where a page draws the same things
//! many times — the servers list's hundred rows (half its CPU at 3000
//! servers) — and barely elsewhere: the header, a user card's lines and a
//! server card's metrics are kept too, but the cards' cost is mostly the
//! framework's per-page work (docs/benchmarks.md). The parts kept are
//! rendered once per input and copied after that.
//!
//! An entry is found by a cheap key (the language and the server's id) and
//! used only while the input it was rendered from equals the request's, so
//! kept HTML never says anything the data no longer says: there is nothing
//! to invalidate. A view kept here must draw nothing but its input (no
//! nonce, no session, no clock): that is what the input's type says.

use leptos::prelude::RenderHtml;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

/// How many inputs one key keeps (a server's line differs on user cards
/// that place it differently: serving, standing in, replaced).
const VARIANTS_PER_KEY: usize = 4;

/// The inputs drawn under one key, each with its HTML.
type Variants<V> = Vec<(V, Arc<str>)>;

/// HTML rendered from inputs of type `V`, found by keys of type `K`.
pub struct RenderMemo<K, V> {
    /// At most this many keys; past it, everything is dropped and rendered
    /// again as asked (the limit, not the eviction, is what matters).
    max_keys: usize,
    /// At most this many inputs kept per key.
    variants: usize,
    entries: Mutex<HashMap<K, Variants<V>>>,
}

impl<K: Hash + Eq, V: PartialEq + Clone> RenderMemo<K, V> {
    pub fn new(max_keys: usize) -> Self {
        Self::with_variants(max_keys, VARIANTS_PER_KEY)
    }

    /// A memo whose keys keep `variants` inputs each: 1 where a key's
    /// earlier inputs seldom come back and their HTML is large.
    pub fn with_variants(max_keys: usize, variants: usize) -> Self {
        RenderMemo {
            max_keys,
            variants: variants.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The HTML `render` draws from `input`: kept, when `input` was drawn
    /// before under `key`; drawn and kept otherwise.
    pub fn html<IV: RenderHtml>(
        &self,
        key: K,
        input: &V,
        render: impl FnOnce(V) -> IV,
    ) -> Arc<str> {
        self.markup(key, input, |input| render(input.clone()).to_html())
    }

    /// The HTML `assemble` writes from `input` (markup already, such as
    /// kept pieces joined, so kept as it is): kept, when `input` was
    /// assembled before under `key`; assembled and kept otherwise.
    pub fn markup(&self, key: K, input: &V, assemble: impl FnOnce(&V) -> String) -> Arc<str> {
        if let Some(kept) = self.kept(&key, input) {
            return kept;
        }
        // Drawn outside the lock: a miss costs one render, as without a memo.
        let html: Arc<str> = assemble(input).into();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.max_keys && !entries.contains_key(&key) {
            entries.clear();
        }
        let variants = entries.entry(key).or_default();
        variants.retain(|(kept, _)| kept != input);
        if variants.len() >= self.variants {
            variants.remove(0);
        }
        variants.push((input.clone(), html.clone()));
        html
    }

    fn kept(&self, key: &K, input: &V) -> Option<Arc<str>> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .get(key)?
            .iter()
            .find(|(kept, _)| kept == input)
            .map(|(_, html)| html.clone())
    }

    /// How many keys are kept.
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Kept pieces of HTML, one after the other.
pub fn joined(pieces: impl Iterator<Item = Arc<str>>) -> String {
    pieces.collect::<Vec<_>>().concat()
}

#[cfg(test)]
mod tests {
    use super::RenderMemo;
    use leptos::prelude::*;
    use std::cell::Cell;

    fn item(name: String) -> impl IntoView {
        view! { <li class="row">{name}</li> }
    }

    #[test]
    fn kept_html_is_what_a_fresh_render_writes() {
        let memo = RenderMemo::new(8);
        let input = "a <b> & \"c\"".to_owned();
        let kept = memo.html(1, &input, item);
        assert_eq!(&*kept, item(input.clone()).to_html());
        assert_eq!(&*memo.html(1, &input, item), &*kept);
    }

    #[test]
    fn an_input_is_rendered_once_and_a_changed_one_again() {
        let memo = RenderMemo::new(8);
        let renders = Cell::new(0);
        let counted = |name: String| {
            renders.set(renders.get() + 1);
            item(name)
        };
        memo.html(1, &"one".to_owned(), counted);
        memo.html(1, &"one".to_owned(), counted);
        assert_eq!(renders.get(), 1, "the same input is not rendered again");
        let changed = memo.html(1, &"two".to_owned(), counted);
        assert_eq!(renders.get(), 2, "a changed input is rendered");
        assert!(changed.contains("two") && !changed.contains("one"));
        // The earlier input is still kept under the same key.
        memo.html(1, &"one".to_owned(), counted);
        assert_eq!(renders.get(), 2);
    }

    #[test]
    fn a_key_keeps_a_bounded_number_of_variants() {
        let memo = RenderMemo::new(8);
        for n in 0..=super::VARIANTS_PER_KEY {
            memo.html(1, &n.to_string(), item);
        }
        let renders = Cell::new(0);
        memo.html(1, &"0".to_owned(), |name| {
            renders.set(1);
            item(name)
        });
        assert_eq!(renders.get(), 1, "the oldest variant made room");
    }

    #[test]
    fn assembled_markup_is_kept_as_written_and_one_variant_replaces_the_last() {
        let memo = RenderMemo::with_variants(8, 1);
        let assembled = Cell::new(0);
        let assemble = |pieces: &Vec<&str>| {
            assembled.set(assembled.get() + 1);
            pieces.concat()
        };
        let rows = vec!["<tr>a</tr>", "<tr>b</tr>"];
        assert_eq!(&*memo.markup(1, &rows, assemble), "<tr>a</tr><tr>b</tr>");
        memo.markup(1, &rows, assemble);
        assert_eq!(assembled.get(), 1, "kept, not escaped or assembled again");
        memo.markup(1, &vec!["<tr>c</tr>"], assemble);
        memo.markup(1, &rows, assemble);
        assert_eq!(
            assembled.get(),
            3,
            "one variant: the newer input replaced it"
        );
    }

    #[test]
    fn the_memo_never_keeps_more_than_its_keys() {
        let memo = RenderMemo::new(3);
        for key in 0..10 {
            memo.html(key, &key.to_string(), item);
            assert!(memo.len() <= 3, "{} keys kept", memo.len());
        }
        assert!(!memo.is_empty());
    }
}
