use super::*;
use icu_decimal::input::Decimal;
use icu_decimal::DecimalFormatter;
use icu_list::options::{ListFormatterOptions, ListLength};
use icu_list::ListFormatter;

const COUNTS: [u64; 5] = [0, 1, 2, 5, 21];

#[test]
fn counts_take_their_cldr_category() {
    use Plural::*;
    let expected = [
        (Lang::En, [Other, One, Other, Other, Other]),
        (Lang::Es, [Other, One, Other, Other, Other]),
        (Lang::Pt, [One, One, Other, Other, Other]),
        (Lang::Sv, [Other, One, Other, Other, Other]),
        (Lang::Hi, [One, One, Other, Other, Other]),
        (Lang::Ja, [Other, Other, Other, Other, Other]),
    ];
    for (lang, categories) in expected {
        let got: Vec<Plural> = COUNTS.iter().map(|&n| lang.plural(n)).collect();
        assert_eq!(got, categories, "{lang:?}");
    }
    // Spanish and Portuguese have a third category for millions.
    assert_eq!(Lang::Es.plural(1_000_000), Many);
    assert_eq!(Lang::Pt.plural(1_000_000), Many);
}

fn icu_number(lang: Lang, n: u64, places: i16) -> String {
    let formatter = DecimalFormatter::try_new(lang.cldr_locale().into(), Default::default())
        .expect("compiled data has the locale");
    let mut decimal = Decimal::from(n);
    decimal.multiply_pow10(-places);
    formatter.format_to_string(&decimal)
}

#[test]
fn numbers_group_and_separate_as_cldr_says() {
    let values = [
        0,
        7,
        42,
        999,
        1000,
        1234,
        9999,
        10_000,
        12_345,
        100_000,
        123_456,
        1_000_000,
        12_345_678,
        1_234_567_890,
    ];
    for lang in Lang::ALL {
        for n in values {
            assert_eq!(lang.number(n), icu_number(lang, n, 0), "{lang:?} {n}");
            for places in [1u32, 2] {
                let value = n as f64 / 10f64.powi(places as i32);
                assert_eq!(
                    lang.decimal(value, places),
                    icu_number(lang, n, places as i16),
                    "{lang:?} {value} with {places} places"
                );
            }
        }
    }
}

#[test]
fn decimals_follow_the_language() {
    assert_eq!(Lang::En.decimal(0.5, 1), "0.5");
    assert_eq!(Lang::Es.decimal(0.5, 1), "0,5");
    assert_eq!(Lang::Pt.decimal(0.5, 1), "0,5");
    assert_eq!(Lang::Sv.decimal(0.5, 1), "0,5");
    assert_eq!(Lang::Hi.decimal(0.5, 1), "0.5");
    assert_eq!(Lang::Ja.decimal(0.5, 1), "0.5");
    assert_eq!(Lang::Hi.number(1_234_567), "12,34,567");
    assert_eq!(Lang::Sv.number(10_000), "10\u{a0}000");
    assert_eq!(Lang::Es.number(1000), "1000");
    assert_eq!(Lang::Es.number(10_000), "10.000");
}

#[test]
fn decimals_round_half_away_from_zero() {
    let en = Lang::En;
    assert_eq!(en.decimal(42.0, 1), "42.0");
    assert_eq!(en.decimal(99.95, 2), "99.95");
    assert_eq!(en.decimal(0.125, 2), "0.13");
    assert_eq!(en.decimal(2.5, 0), "3");
    assert_eq!(en.decimal(-1.25, 1), "-1.3");
    assert_eq!(en.decimal(-0.01, 1), "0.0");
    assert_eq!(en.decimal(0.05, 3), "0.050");
    assert_eq!(en.decimal(f64::NAN, 1), "NaN");
    assert_eq!(Lang::Es.decimal(-1.25, 1), "-1,3");
}

#[test]
fn percent_signs_sit_as_each_language_writes_them() {
    let got: Vec<String> = Lang::ALL.iter().map(|l| l.percent(42.5, 1)).collect();
    assert_eq!(
        got,
        [
            "42.5%",
            "42,5\u{a0}%",
            "42,5%",
            "42,5\u{a0}%",
            "42.5%",
            "42.5%"
        ]
    );
}

#[test]
fn typed_decimals_take_either_separator() {
    assert_eq!(Lang::parse_decimal("0,5"), Some(0.5));
    assert_eq!(Lang::parse_decimal(" 0.5 "), Some(0.5));
    assert_eq!(Lang::parse_decimal("1"), Some(1.0));
    assert_eq!(Lang::parse_decimal(",5"), Some(0.5));
    for bad in [
        "", "1,000.5", "0,5,", "abc", "0.5x", "1e3", ",", "-", "inf", "NaN",
    ] {
        assert_eq!(Lang::parse_decimal(bad), None, "{bad:?}");
    }
    // What the panel shows, it reads back.
    for lang in Lang::ALL {
        assert_eq!(Lang::parse_decimal(&lang.decimal(0.75, 2)), Some(0.75));
    }
}

fn icu_list(lang: Lang, items: &[&str]) -> String {
    let options = ListFormatterOptions::default().with_length(ListLength::Wide);
    let formatter = ListFormatter::try_new_and(lang.cldr_locale().into(), options)
        .expect("compiled data has the locale");
    formatter.format_to_string(items.iter())
}

#[test]
fn lists_join_as_cldr_says() {
    let lists: [&[&str]; 8] = [
        &[],
        &["Moscow 1"],
        &["Moscow 1", "Tehran 2"],
        &["Moscow 1", "Tehran 2", "Beijing 3"],
        &["a", "b", "c", "d"],
        &["x", "Ibiza"],
        &["x", "Hidalgo"],
        &["x", "Hierva"],
    ];
    for lang in Lang::ALL {
        for items in lists {
            assert_eq!(
                lang.list(items),
                icu_list(lang, items),
                "{lang:?} {items:?}"
            );
        }
    }
    assert_eq!(Lang::Es.list(&["x", "Ibiza"]), "x e Ibiza");
    assert_eq!(Lang::Es.list(&["x", "Hierva"]), "x y Hierva");
    assert_eq!(Lang::En.list(&["A", "B", "C"]), "A, B, and C");
    assert_eq!(Lang::Ja.list(&["A", "B"]), "A、B");
}
