//! Agreement with the count: every counted phrase whose verb (or the
//! participle standing for one) depends on the count, in each language
//! where it does, says the singular at exactly one and the plural at
//! 0, 2, 5 and 21 — zero in the plural in every language, as native
//! writers put it, although CLDR files 0 under "one" in pt-BR and hi.

use super::counted::phrases;
use super::Lang;

/// How many things the verb agrees with, for the count a phrase is
/// rendered at (lists of names are never empty).
type Subject = fn(u64) -> u64;

const SAME: Subject = |n| n;
const NAMES: Subject = |n| n.max(1);

/// (phrase, language, how many the verb agrees with, singular, plural).
const AGREEMENT: &[(&str, Lang, Subject, &str, &str)] = &[
    (
        "unreachable_count",
        Lang::Es,
        SAME,
        "no puede alcanzarlo",
        "no pueden alcanzarlo",
    ),
    (
        "unreachable_count",
        Lang::Pt,
        SAME,
        "não consegue alcançá-lo",
        "não conseguem alcançá-lo",
    ),
    (
        "unreachable_count",
        Lang::Hi,
        SAME,
        "पहुँच पा रहा",
        "पहुँच पा रहे",
    ),
    (
        "witness_fault",
        Lang::En,
        SAME,
        "is unreliable",
        "are unreliable",
    ),
    (
        "witness_fault",
        Lang::Es,
        SAME,
        "no es fiable",
        "no son fiables",
    ),
    (
        "witness_fault",
        Lang::Pt,
        SAME,
        "não é confiável",
        "não são confiáveis",
    ),
    (
        "witness_fault",
        Lang::Sv,
        SAME,
        "är opålitligt",
        "är opålitliga",
    ),
    (
        "witness_fault",
        Lang::Hi,
        SAME,
        "अविश्वसनीय है)",
        "अविश्वसनीय हैं)",
    ),
    (
        "connectors_failing",
        Lang::En,
        SAME,
        "panel is failing",
        "panels are failing",
    ),
    (
        "connectors_failing",
        Lang::Es,
        SAME,
        "no logra ",
        "no logran ",
    ),
    (
        "connectors_failing",
        Lang::Pt,
        SAME,
        "não consegue ",
        "não conseguem ",
    ),
    (
        "connectors_failing",
        Lang::Hi,
        SAME,
        "हो पा रहा:",
        "हो पा रहे:",
    ),
    (
        "showing_servers",
        Lang::Hi,
        SAME,
        "दिखाया जा रहा है",
        "दिखाए जा रहे हैं",
    ),
    (
        "showing_users",
        Lang::Hi,
        SAME,
        "दिखाया जा रहा है",
        "दिखाए जा रहे हैं",
    ),
    (
        "out_of_rotation_served_by",
        Lang::Es,
        NAMES,
        "los atiende ",
        "los atienden ",
    ),
    (
        "undelivered_notifications",
        Lang::Pt,
        SAME,
        "não entregue ",
        "não entregues ",
    ),
    (
        "undelivered_notifications",
        Lang::Sv,
        SAME,
        "inte levererad ",
        "inte levererade ",
    ),
    (
        "undelivered_notifications",
        Lang::Hi,
        SAME,
        "नहीं भेजी गई ",
        "नहीं भेजी गईं ",
    ),
    ("all_reach_it", Lang::En, SAME, "reaches it.", "reach it."),
    (
        "all_reach_it",
        Lang::Es,
        SAME,
        "lo alcanza.",
        "lo alcanzan.",
    ),
    (
        "all_reach_it",
        Lang::Pt,
        SAME,
        "consegue alcançá-lo.",
        "o alcançam.",
    ),
    ("all_reach_it", Lang::Hi, SAME, "पहुँच रहा है", "पहुँच रहे हैं"),
    ("all_reach_it", Lang::Ja, SAME, "唯一の", "すべて"),
    (
        "blocked_servers_on",
        Lang::Es,
        SAME,
        "servidor bloqueado",
        "servidores bloqueados",
    ),
    (
        "blocked_servers_on",
        Lang::Pt,
        SAME,
        "servidor bloqueado",
        "servidores bloqueados",
    ),
    (
        "blocked_servers_on",
        Lang::Sv,
        SAME,
        "server blockerad",
        "servrar blockerade",
    ),
];

/// The counts each phrase is checked at.
const COUNTS: [u64; 5] = [0, 1, 2, 5, 21];

#[test]
fn verbs_agree_with_their_count_at_0_1_2_5_and_21() {
    let phrases = phrases();
    for &(name, lang, subject, singular, plural) in AGREEMENT {
        let (_, phrase) = phrases
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is a counted phrase"));
        for n in COUNTS {
            let text = phrase(lang, n);
            let one = subject(n) == 1;
            let (want, not) = if one {
                (singular, plural)
            } else {
                (plural, singular)
            };
            assert!(
                text.contains(want) && !text.contains(not),
                "{lang:?} {name} n={n}: wants {want:?}: {text}"
            );
        }
    }
}

#[test]
fn zero_takes_the_plural_in_every_language() {
    for lang in Lang::ALL {
        assert!(!lang.is_one(0), "{lang:?}");
        assert_eq!(lang.is_one(1), lang != Lang::Ja, "{lang:?}");
        for n in [2, 5, 21, 101] {
            assert!(!lang.is_one(n), "{lang:?} {n}");
        }
    }
    assert_eq!(
        Lang::Pt.stale_servers(0),
        "0 servidores com evidências desatualizadas (desatualizado)."
    );
    assert!(Lang::Hi
        .undelivered_notifications(0, 0)
        .starts_with("0 सूचनाएँ"));
}
