//! Every text the panel renders, in every language, pinned: each key of
//! the catalogue, each phrase with sample values, each phrase with a
//! count at n = 0, 1, 2, 5 and 21, numbers, lists and the notification
//! messages. The pins live in `src/i18n/pins/<code>.txt`, one text per
//! line (`name<TAB>text`, line breaks as `\n`), so a change of wording
//! shows up as a reviewed diff of that file.
//!
//! After a deliberate change, write the files again with
//! `MESHWATCH_PIN=1 cargo test -p meshwatch --lib i18n::pins` and review
//! the diff.

use super::notice::{BlockEvent, Incident};
use super::{counted, ui, Lang, Text, Ui};
use crate::views::ServerRef;
use chrono::{DateTime, Utc};
use meshwatch::ServerId;
use std::path::PathBuf;

/// The counts every phrase with a count is rendered at: each CLDR
/// category of the six languages, and 21, which is "one" in languages
/// whose rules look at the last digit.
const COUNTS: [u64; 5] = [0, 1, 2, 5, 21];

fn server(id: &str, name: &str, country: &str) -> ServerRef {
    ServerRef {
        id: ServerId::parse(id).expect("slug"),
        name: name.to_owned(),
        country: country.to_owned(),
    }
}

/// A block that started or cleared, seen by `verifiers` verifiers on
/// `addresses` addresses (each 0 to 2).
fn incident(event: BlockEvent, verifiers: usize, addresses: usize) -> Incident {
    let all_verifiers = [
        server("ru-1", "Moscow 1", "RU"),
        server("ir-1", "Tehran 1", "IR"),
    ];
    let all_addresses = ["203.0.113.10:443", "203.0.113.10:8443"];
    Incident {
        event,
        server: server("de-1", "Frankfurt 1", "DE"),
        addresses: all_addresses[..addresses]
            .iter()
            .map(|a| a.to_string())
            .collect(),
        verifiers: all_verifiers[..verifiers].to_vec(),
        at: DateTime::parse_from_rfc3339("2026-12-02T10:04:00Z")
            .map(|t| t.with_timezone(&Utc))
            .expect("time"),
        blocked_on: Vec::new(),
        still_reached_from: Vec::new(),
        blocks: Vec::new(),
        snis: Vec::new(),
    }
}

/// Every text of `lang`, each with a name unique within the language.
pub(super) fn rendered(lang: Lang) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for text in Text::ALL {
        out.push((format!("Text::{text:?}"), lang.text(text).to_owned()));
    }
    for key in Ui::ALL {
        out.push((format!("Ui::{key:?}"), lang.ui(*key).to_owned()));
    }
    for (name, text) in ui::samples(lang) {
        out.push((name.to_owned(), text));
    }
    out.extend(super::form_error::samples(lang));
    out.extend(super::refusal::samples(lang));
    for (name, phrase) in counted::phrases() {
        for n in COUNTS {
            out.push((format!("{name} n={n}"), phrase(lang, n)));
        }
    }
    for (name, seconds) in [("min", 90), ("h", 3 * 3600 + 120), ("d", 93_784)] {
        out.push((format!("duration.{name}"), lang.duration(seconds)));
    }
    for n in [999, 1000, 12_345, 1_234_567] {
        out.push((format!("number {n}"), lang.number(n)));
    }
    out.push(("decimal 0.5".into(), lang.decimal(0.5, 1)));
    out.push(("decimal 1234.56".into(), lang.decimal(1234.56, 2)));
    out.push(("percent 99.95".into(), lang.percent(99.95, 2)));
    out.push(("plain_decimal 0.25".into(), lang.plain_decimal(0.25)));
    let names = ["Moscow 1", "Ibiza 2", "Tehran 3"];
    for n in 1..=3 {
        out.push((format!("list of {n}"), lang.list(&names[..n])));
    }
    for (event, name) in [
        (BlockEvent::Started, "blocked"),
        (BlockEvent::Cleared, "cleared"),
    ] {
        for (verifiers, addresses) in [(1, 2), (2, 1), (0, 0)] {
            let notice = lang.incident_notice(&incident(event, verifiers, addresses));
            let name = format!("notice.{name} verifiers={verifiers} addresses={addresses}");
            out.push((format!("{name} subject"), notice.subject));
            out.push((format!("{name} body"), notice.body));
        }
    }
    let mut on_networks = incident(BlockEvent::Started, 2, 1);
    on_networks.blocked_on = vec!["MTS mobile".into(), "Beeline".into()];
    on_networks.still_reached_from = vec!["Rostelecom home".into()];
    out.push((
        "notice.blocked on networks body".into(),
        lang.incident_notice(&on_networks).body,
    ));
    // §8: each kind's note, and the message of a block with each kind.
    let block = |kind, transport, frozen_after_bytes| meshwatch::network::BlockOnNetwork {
        verifier: ServerId::parse("ru-1").expect("slug"),
        network: meshwatch::network::NetworkLabel::parse("MTS mobile").ok(),
        kind,
        transport,
        frozen_after_bytes,
    };
    use meshwatch::verdict::BlockKind;
    let kinds = [
        block(BlockKind::Ip, None, None),
        block(BlockKind::Sni, None, None),
        block(BlockKind::Throttled, None, Some(16_384)),
        block(
            BlockKind::Protocol,
            Some(meshwatch::fleet::Transport::Quic),
            None,
        ),
    ];
    for b in &kinds {
        let notes = lang.block_notes(std::slice::from_ref(b), &[], &["www.example.com"], |id| {
            id.to_string()
        });
        for (kind, text) in notes {
            out.push((format!("kinds.{}", kind.as_str()), text));
        }
        let mut of_kind = incident(BlockEvent::Started, 1, 1);
        of_kind.blocks = vec![b.clone()];
        of_kind.snis = vec!["www.example.com".into()];
        out.push((
            format!("notice.blocked kind={} body", b.kind.as_str()),
            lang.incident_notice(&of_kind).body,
        ));
    }
    out.push((
        "kinds.counts".into(),
        lang.kind_counts(&[
            (BlockKind::Ip, 2),
            (BlockKind::Sni, 1),
            (BlockKind::Throttled, 21),
        ]),
    ));
    let fault = meshwatch::verdict::WitnessFault {
        unreliable: 5,
        witnesses: 7,
    };
    let at = incident(BlockEvent::Started, 0, 0).at;
    let notice = lang.witness_fault_notice(fault, at);
    out.push(("notice.witness_fault subject".into(), notice.subject));
    out.push(("notice.witness_fault body".into(), notice.body));
    for over in [
        meshwatch::actions::OverBudget::RunsPerHour(6),
        meshwatch::actions::OverBudget::Cooldown(21_600),
    ] {
        let notice = lang.actions_off_notice(over, at);
        out.push((
            format!("notice.actions_off {over:?} subject"),
            notice.subject,
        ));
        out.push((format!("notice.actions_off {over:?} body"), notice.body));
    }
    out.push((
        "ui.hidden_in".into(),
        lang.hidden_in("Remnawave", "rw", "2026-12-05 12:04"),
    ));
    let notice = lang.connector_failed_notice("panel-1", "Remnawave", "HTTP 502", at);
    out.push(("notice.connector_failed subject".into(), notice.subject));
    out.push(("notice.connector_failed body".into(), notice.body));
    let subjects = ["meshwatch: a".to_owned(), "meshwatch: b".to_owned()];
    for event in [BlockEvent::Started, BlockEvent::Cleared] {
        for (moved, fleet, folded) in [(1, 1, 1), (20, 21, 2)] {
            let notice = lang.fleet_wide_notice(event, moved, fleet, &subjects[..folded]);
            let name = format!("notice.fleet_wide {event:?} {moved} of {fleet}, {folded} folded");
            out.push((format!("{name} subject"), notice.subject));
            out.push((format!("{name} body"), notice.body));
        }
    }
    out
}

fn pin_file(lang: Lang) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/i18n/pins")
        .join(format!("{}.txt", lang.code()))
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

fn lines_of(rendered: &[(String, String)]) -> String {
    rendered
        .iter()
        .map(|(name, text)| format!("{name}\t{}\n", escape(text)))
        .collect()
}

#[test]
fn every_text_is_pinned() {
    let rewrite = std::env::var_os("MESHWATCH_PIN").is_some();
    for lang in Lang::ALL {
        let rendered = rendered(lang);
        let mut names: Vec<&str> = rendered.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            rendered.len(),
            "{lang:?}: a name is used twice"
        );
        let now = lines_of(&rendered);
        let path = pin_file(lang);
        if rewrite {
            std::fs::write(&path, &now).expect("write the pins");
            continue;
        }
        let pinned = std::fs::read_to_string(&path).unwrap_or_default();
        let changed: Vec<String> = now
            .lines()
            .zip(pinned.lines().chain(std::iter::repeat("")))
            .filter(|(now, pinned)| now != pinned)
            .map(|(now, pinned)| format!("  now:    {now}\n  pinned: {pinned}"))
            .take(10)
            .collect();
        assert!(
            changed.is_empty() && now.lines().count() == pinned.lines().count(),
            "{lang:?}: the texts differ from {} (MESHWATCH_PIN=1 writes them; review the diff):\n{}",
            path.display(),
            changed.join("\n")
        );
    }
}

/// "server(s)", "servidor(es)", "avisering(ar)", "सूचना(एँ)": a word
/// with its plural ending in brackets, which no language writes.
fn placeholder_plural(text: &str) -> Option<&str> {
    for (open, _) in text.match_indices('(') {
        let before = text[..open].chars().next_back();
        let Some(close) = text[open..].find(')') else {
            continue;
        };
        let inside = &text[open + 1..open + close];
        let attached = before.is_some_and(|c| c.is_alphabetic() || is_devanagari_mark(c));
        let ending = !inside.is_empty()
            && inside.chars().count() <= 4
            && inside
                .chars()
                .all(|c| c.is_alphabetic() || is_devanagari_mark(c));
        if attached && ending {
            return Some(&text[open..=open + close]);
        }
    }
    ["(s)", "(es)", "(ar)", "(rar)", "(ões)", "(एँ)", "(ओं)", "(e)"]
        .into_iter()
        .find(|p| text.contains(p))
}

/// Hindi vowel signs and the like, which are not `alphabetic` on their own.
fn is_devanagari_mark(c: char) -> bool {
    ('\u{0900}'..='\u{097f}').contains(&c)
}

#[test]
fn no_text_has_a_placeholder_plural() {
    assert_eq!(placeholder_plural("2 server(s)"), Some("(s)"));
    assert_eq!(placeholder_plural("3 सूचना(एँ)"), Some("(एँ)"));
    assert_eq!(placeholder_plural("Report interval (s)"), Some("(s)"));
    assert_eq!(placeholder_plural("max(2, this × n)"), None);
    for lang in Lang::ALL {
        for (name, text) in rendered(lang) {
            assert_eq!(placeholder_plural(&text), None, "{lang:?} {name}: {text}");
        }
    }
}

/// Japanese puts no space between a number and its counter.
#[test]
fn japanese_counters_follow_their_numbers() {
    for (name, text) in rendered(Lang::Ja) {
        for counter in ["台", "回", "件", "分", "秒", "時間", "日", "人", "文字"] {
            for digit in '0'..='9' {
                assert!(
                    !text.contains(&format!("{digit} {counter}")),
                    "{name}: {text}"
                );
            }
        }
    }
}

/// Kana, kanji and the full-width marks Japanese prose is written in.
fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

/// Where a Japanese text uses an ASCII parenthesis or colon in its prose
/// (a format like 「ユーザー名:パスワード」 and code like `max(2, …)`,
/// with no Japanese on the side that matters, stay ASCII).
fn half_width_in_japanese(text: &str) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    let before = |i: usize| {
        let mut j = i;
        while j > 0 && chars[j - 1] == ' ' {
            j -= 1;
        }
        j.checked_sub(1).map(|j| chars[j])
    };
    let after = |i: usize| chars.get(i + 1).copied();
    (0..chars.len()).find(|&i| match chars[i] {
        ':' => before(i).is_some_and(is_japanese) && after(i).is_none_or(|c| c == ' '),
        '(' => before(i).is_some_and(is_japanese) || after(i).is_some_and(is_japanese),
        ')' => i > 0 && is_japanese(chars[i - 1]),
        _ => false,
    })
}

#[test]
fn japanese_takes_full_width_parentheses_and_colons() {
    assert!(half_width_in_japanese("サインイン中: ").is_some());
    assert!(half_width_in_japanese("開始 (UTC)").is_some());
    assert!(half_width_in_japanese("パスワード(確認のため)").is_some());
    assert_eq!(
        half_width_in_japanese("管理者の ユーザー名:パスワード"),
        None
    );
    assert_eq!(half_width_in_japanese("max(2, この値 × n) 台"), None);
    assert_eq!(half_width_in_japanese("Moscow 1 (RU)でブロック"), None);
    for (name, text) in rendered(Lang::Ja) {
        assert_eq!(half_width_in_japanese(&text), None, "{name}: {text}");
    }
}
