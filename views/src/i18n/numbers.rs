//! Counts, numbers and lists as each language writes them.
//!
//! - Which form of a phrase a count takes is its CLDR cardinal plural
//!   category, from ICU4X's `icu_plurals` with its compiled data
//!   ([`Lang::plural`]): English and Swedish say "1 server" but "0
//!   servers"; Portuguese (Brazil) and Hindi treat 0 like 1; Japanese
//!   has one form.
//! - Digits are grouped and decimals separated as CLDR's number symbols
//!   say ([`Lang::number`], [`Lang::decimal`]): "10,000" / "10.000" /
//!   "10 000" / "10,000" with Indian grouping from 1,00,000 in Hindi,
//!   "0.5" / "0,5". Six fixed patterns, written out here rather than
//!   pulled in with `icu_decimal`'s data for every locale (the islands
//!   count servers too, and each KiB of WASM is paid on every first
//!   visit); a test compares them with `icu_decimal` and `icu_list`.
//! - Lists of names join as CLDR's "and" lists do ([`Lang::list`]).

use super::Lang;
pub use icu_plurals::PluralCategory as Plural;
use icu_plurals::PluralRules;
use std::cell::OnceCell;

thread_local! {
    /// One set of rules per language and thread (the rules are not
    /// `Sync`, and building them looks the language up in the compiled
    /// data).
    static RULES: [OnceCell<Option<PluralRules>>; 6] = Default::default();
}

/// No-break space: Swedish groups digits with it (CLDR), and it keeps
/// a number and its unit on one line.
const NBSP: char = '\u{a0}';

impl Lang {
    /// The CLDR cardinal plural category of the count `n` in this
    /// language: which form of a phrase the count takes.
    pub fn plural(self, n: u64) -> Plural {
        RULES.with(|rules| {
            rules[self.index()]
                .get_or_init(|| PluralRules::try_new_cardinal(self.cldr_locale().into()).ok())
                .as_ref()
                // Compiled data covers all six; `Other` is every
                // language's catch-all form.
                .map_or(Plural::Other, |rules| rules.category_for(n))
        })
    }

    /// Whether a whole count takes a phrase's singular form: CLDR's "one",
    /// except zero, which native writers put in the plural ("0 servidores",
    /// "0 सूचनाएँ") although CLDR files it under "one" in pt-BR and hi.
    /// Japanese has no singular: its phrases have one form.
    pub fn is_one(self, n: u64) -> bool {
        n != 0 && self.plural(n) == Plural::One
    }

    /// The CLDR locale whose rules this language follows: the panel's
    /// Portuguese is Brazil's (CLDR's `pt`; `pt-PT` differs at 0).
    fn cldr_locale(self) -> icu_locale_core::LanguageIdentifier {
        use icu_locale_core::langid;
        match self {
            Lang::En => langid!("en"),
            Lang::Es => langid!("es"),
            Lang::Pt => langid!("pt-BR"),
            Lang::Sv => langid!("sv"),
            Lang::Hi => langid!("hi"),
            Lang::Ja => langid!("ja"),
        }
    }

    /// The decimal separator: "0.5" or "0,5".
    pub fn decimal_separator(self) -> char {
        match self {
            Lang::Es | Lang::Pt | Lang::Sv => ',',
            Lang::En | Lang::Hi | Lang::Ja => '.',
        }
    }

    fn group_separator(self) -> char {
        match self {
            Lang::Es | Lang::Pt => '.',
            Lang::Sv => NBSP,
            Lang::En | Lang::Hi | Lang::Ja => ',',
        }
    }

    /// A whole number with its digits grouped: 1234567 → "1,234,567"
    /// (en, ja), "1.234.567" (es, pt), "1 234 567" (sv, a no-break
    /// space), "12,34,567" (hi). Spanish leaves four digits ungrouped
    /// ("1000", "10.000"): CLDR's minimum grouping digits.
    pub fn number(self, n: u64) -> String {
        let digits = n.to_string();
        let min_grouping = if self == Lang::Es { 5 } else { 4 };
        if digits.len() < min_grouping {
            return digits;
        }
        // The last three digits form a group; before them, groups of
        // three, or of two in the Indian system.
        let (head, last) = digits.split_at(digits.len() - 3);
        let size = if self == Lang::Hi { 2 } else { 3 };
        let mut out = String::with_capacity(digits.len() + digits.len() / 2);
        for (i, digit) in head.chars().enumerate() {
            if i > 0 && (head.len() - i) % size == 0 {
                out.push(self.group_separator());
            }
            out.push(digit);
        }
        out.push(self.group_separator());
        out.push_str(last);
        out
    }

    /// `value` with `places` decimals, rounded half away from zero, its
    /// whole part grouped: "1,234.5", "1.234,5", "0,50". Computed in
    /// integers: std's exact float formatting often falls back to a slow
    /// big-number path, and a server card shows a score of such figures.
    pub fn decimal(self, value: f64, places: u32) -> String {
        let places = places.min(9);
        let scale = 10u64.pow(places);
        let scaled = (value.abs() * scale as f64).round();
        if !scaled.is_finite() || scaled >= u64::MAX as f64 {
            return format!("{value:.*}", places as usize);
        }
        let scaled = scaled as u64;
        let sign = if value < 0.0 && scaled != 0 { "-" } else { "" };
        let whole = self.number(scaled / scale);
        match places as usize {
            0 => format!("{sign}{whole}"),
            width => format!(
                "{sign}{whole}{}{:0width$}",
                self.decimal_separator(),
                scaled % scale
            ),
        }
    }

    /// A decimal in as few digits as say it exactly, with the language's
    /// separator: 0.5 → "0,5" (a form field's value).
    pub fn plain_decimal(self, value: f64) -> String {
        value
            .to_string()
            .replace('.', &self.decimal_separator().to_string())
    }

    /// A percentage with `places` decimals, its sign placed as CLDR
    /// writes it in each language: "42.5%" (en, hi, ja), "42,5%" (pt-BR),
    /// "42,5 %" (es, sv; a no-break space, so the sign never starts a line).
    pub fn percent(self, value: f64, places: u32) -> String {
        let figure = self.decimal(value, places);
        match self {
            Lang::Es | Lang::Sv => format!("{figure}{NBSP}%"),
            Lang::En | Lang::Pt | Lang::Hi | Lang::Ja => format!("{figure}%"),
        }
    }

    /// Names joined as an "and" list: "A, B, and C" (en), "A, B y C"
    /// ("e" before an "i" sound), "A, B e C", "A, B och C", "A, B और C",
    /// "A、B、C". One name stays itself; none is empty.
    pub fn list<S: AsRef<str>>(self, items: &[S]) -> String {
        let Some((last, rest)) = items.split_last() else {
            return String::new();
        };
        let last = last.as_ref();
        if rest.is_empty() {
            return last.to_owned();
        }
        let separator = if self == Lang::Ja { "、" } else { ", " };
        let mut out = rest
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(separator);
        let and = match self {
            Lang::En if rest.len() > 1 => ", and ",
            Lang::En => " and ",
            Lang::Es if spanish_i_sound(last) => " e ",
            Lang::Es => " y ",
            Lang::Pt => " e ",
            Lang::Sv => " och ",
            Lang::Hi => " और ",
            Lang::Ja => "、",
        };
        out.push_str(and);
        out.push_str(last);
        out
    }

    /// A decimal number as a person types it in this language's panel:
    /// "0,5" or "0.5" (either separator, at most one), spaces around
    /// ignored. Digit grouping is not accepted: the panel's decimal
    /// inputs are fractions.
    pub fn parse_decimal(text: &str) -> Option<f64> {
        let text = text.trim();
        if text.matches([',', '.']).count() > 1 {
            return None;
        }
        let text = text.replace(',', ".");
        let digits_only = text
            .strip_prefix('-')
            .unwrap_or(&text)
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.');
        if !digits_only || !text.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        text.parse().ok()
    }
}

/// Spanish writes "e" instead of "y" before a word that starts with the
/// sound /i/ — CLDR's rule for its "and" list, `i.*|hi|hi[^ae].*`
/// regardless of case: "e Ibiza", "e Hidalgo", but "y Hierva".
fn spanish_i_sound(word: &str) -> bool {
    let lower = word.to_lowercase();
    match lower.strip_prefix("hi") {
        Some(rest) => !rest.starts_with(['a', 'e']),
        None => lower.starts_with('i'),
    }
}

#[cfg(test)]
mod tests;
