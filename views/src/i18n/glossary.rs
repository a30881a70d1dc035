//! The product's terms in each language, as the seeds publish them: a
//! text that names a concept in English names it with the seed's word in
//! every other language, and no text uses a word the seeds replaced. A
//! new text with a departing term fails here, not in a reviewer's hands.

use super::pins::rendered;
use super::Lang;

/// A concept the seeds name.
#[derive(Debug, Clone, Copy)]
enum Concept {
    Witness,
    Verifier,
    Mesh,
    Votes,
    Sustained,
    TrafficListener,
}

impl Concept {
    const ALL: [Concept; 6] = [
        Concept::Witness,
        Concept::Verifier,
        Concept::Mesh,
        Concept::Votes,
        Concept::Sustained,
        Concept::TrafficListener,
    ];

    /// Whether an English text names the concept ("meshwatch", the
    /// product's name, is not the mesh).
    fn named_in(self, english: &str) -> bool {
        let english = english.to_lowercase().replace("meshwatch", "");
        let word = match self {
            Concept::Witness => "witness",
            Concept::Verifier => "verifier",
            Concept::Mesh => "mesh",
            Concept::Votes => "vote",
            Concept::Sustained => "sustained",
            Concept::TrafficListener => "traffic listener",
        };
        english.contains(word)
    }
}

/// One language's word for a concept: `seed` are its forms (any one
/// must appear where the concept is named), `replaced` the words it
/// replaced, which no text may use where the concept is named — nor
/// anywhere else, unless they keep another meaning (`replaced_here_only`).
struct Term {
    seed: &'static [&'static str],
    replaced: &'static [&'static str],
    replaced_here_only: bool,
}

/// A term whose replaced words mean nothing else: no text uses them.
const fn term(seed: &'static [&'static str], replaced: &'static [&'static str]) -> Term {
    Term {
        seed,
        replaced,
        replaced_here_only: false,
    }
}

/// A term whose replaced words keep another meaning elsewhere.
const fn term_here(seed: &'static [&'static str], replaced: &'static [&'static str]) -> Term {
    Term {
        seed,
        replaced,
        replaced_here_only: true,
    }
}

/// The glossary of seed terms, per language.
fn glossary(lang: Lang, concept: Concept) -> Term {
    use Concept::*;
    match (lang, concept) {
        (Lang::En, _) => term(&[], &[]),
        (Lang::Es, Witness) => term(&["testigo", "Testigo"], &[]),
        (Lang::Es, Verifier) => term(&["verificador", "Verificador"], &[]),
        (Lang::Es, Mesh) => term(&["red mesh", "Red mesh"], &["Malla", "malla"]),
        (Lang::Es, Votes) => term(&["votos"], &[]),
        (Lang::Es, Sustained) => term(&["sostenid"], &[]),
        (Lang::Es, TrafficListener) => term(&["Receptor de tráfico"], &["Puerto de escucha"]),
        (Lang::Pt, Witness) => term(&["testemunha", "Testemunha"], &[]),
        (Lang::Pt, Verifier) => term(&["verificador", "Verificador"], &[]),
        (Lang::Pt, Mesh) => term(&["rede mesh", "Rede mesh"], &["Malha", "malha"]),
        (Lang::Pt, Votes) => term(&["votos"], &[]),
        (Lang::Pt, Sustained) => term(&["persistente"], &[]),
        (Lang::Pt, TrafficListener) => term(&["Porta de escuta"], &[]),
        (Lang::Sv, Witness) => term(&["vittne", "Vittne"], &[]),
        (Lang::Sv, Verifier) => term(
            &[
                "kontrollserver",
                "Kontrollserver",
                "kontrollservr",
                "Kontrollservr",
            ],
            &["verifierare", "Verifierare", "verifierar", "Verifierar"],
        ),
        (Lang::Sv, Mesh) => term(&["mesh", "Mesh"], &[]),
        (Lang::Sv, Votes) => term(&["röster"], &[]),
        (Lang::Sv, Sustained) => term(&["ihållande"], &[]),
        (Lang::Sv, TrafficListener) => term(&["Trafiklyssnare"], &[]),
        (Lang::Hi, Witness) => term(&["गवाह"], &["साक्षी", "साक्षियों"]),
        (Lang::Hi, Verifier) => term(&["जाँचकर्ता", "जाँच करने वाल"], &["सत्यापक"]),
        (Lang::Hi, Mesh) => term(&["मेश"], &[]),
        (Lang::Hi, Votes) => term(&["वोट"], &[]),
        (Lang::Hi, Sustained) => term(&["लगातार"], &["स्थायी"]),
        (Lang::Hi, TrafficListener) => term(&["ट्रैफ़िक लिसनर"], &[]),
        (Lang::Ja, Witness) => term(&["証人"], &["観測元"]),
        (Lang::Ja, Verifier) => term(&["検証サーバー"], &[]),
        (Lang::Ja, Mesh) => term(&["メッシュ"], &[]),
        // 判定 is the verdict's word, not a witness's vote.
        (Lang::Ja, Votes) => term_here(&["投票"], &["判定"]),
        (Lang::Ja, Sustained) => term(&["継続"], &[]),
        (Lang::Ja, TrafficListener) => term(&["トラフィックリスナー"], &[]),
    }
}

#[test]
fn every_text_names_each_concept_with_the_seeds_word() {
    let english = rendered(Lang::En);
    let mut departures = Vec::new();
    for lang in Lang::ALL.into_iter().filter(|l| *l != Lang::En) {
        let texts = rendered(lang);
        assert_eq!(texts.len(), english.len(), "{lang:?}: the same texts");
        for ((name, en), (other_name, text)) in english.iter().zip(&texts) {
            assert_eq!(name, other_name, "{lang:?}: the same order");
            for concept in Concept::ALL.into_iter().filter(|c| c.named_in(en)) {
                let term = glossary(lang, concept);
                if !term.seed.iter().any(|w| text.contains(w)) {
                    departures.push(format!("{lang:?} {name}: no {concept:?} term in {text}"));
                }
                if let Some(w) = term.replaced.iter().find(|w| text.contains(*w)) {
                    departures.push(format!("{lang:?} {name}: {w} for {concept:?} in {text}"));
                }
            }
        }
    }
    assert!(departures.is_empty(), "{}", departures.join("\n"));
}

/// Words the seeds replaced that mean nothing else: no text uses them.
#[test]
fn no_text_uses_a_replaced_word() {
    for lang in Lang::ALL {
        for concept in Concept::ALL {
            let term = glossary(lang, concept);
            if term.replaced_here_only {
                continue;
            }
            for word in term.replaced {
                for (name, text) in rendered(lang) {
                    assert!(!text.contains(word), "{lang:?} {name}: {word} in {text}");
                }
            }
        }
    }
}

#[test]
fn the_glossary_catches_a_departing_term() {
    let term = glossary(Lang::Hi, Concept::Witness);
    assert!(!term.seed.iter().any(|w| "अविश्वसनीय साक्षी".contains(w)));
    assert!(Concept::Mesh.named_in("Mesh view"));
    assert!(!Concept::Mesh.named_in("meshwatch turns off"));
}
