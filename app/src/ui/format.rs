//! How sizes and times read on the panel (numbers themselves follow the
//! page's language: [`Lang::number`], [`Lang::decimal`]).

use meshwatch_views::i18n::Lang;

/// 1536 → "1.5 KiB" ("1,5 KiB" in Spanish).
pub fn bytes(lang: Lang, n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{} B", lang.number(n))
    } else {
        format!("{} {}", lang.decimal(value, 1), UNITS[unit])
    }
}

/// "2026-12-02 19:35:07 UTC". Built from the fields rather than chrono's
/// `format`, whose strftime machinery would add to the WASM bundle.
pub fn timestamp(at: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike, Timelike};
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

/// A list page's address: `path` with the non-empty `params`
/// (percent-encoded) and `page` when past the first.
pub fn list_address(path: &str, params: &[(&str, String)], page: u32) -> String {
    let encode = |value: &str| -> String {
        value
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                    char::from(b).to_string()
                }
                other => format!("%{other:02X}"),
            })
            .collect()
    };
    let page = (page > 1).then(|| page.to_string());
    let query: Vec<String> = params
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .chain(page.as_deref().map(|p| ("page", p)))
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect();
    if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", query.join("&"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_read_as_utc() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-03-04T05:06:07.890+00:00")
            .expect("valid")
            .with_timezone(&chrono::Utc);
        assert_eq!(super::timestamp(at), "2026-03-04 05:06:07 UTC");
    }

    #[test]
    fn sizes_read_in_the_language() {
        use meshwatch_views::i18n::Lang;
        assert_eq!(super::bytes(Lang::En, 512), "512 B");
        assert_eq!(super::bytes(Lang::En, 1536), "1.5 KiB");
        assert_eq!(super::bytes(Lang::Es, 1536), "1,5 KiB");
        assert_eq!(super::bytes(Lang::Sv, 3 * 1024 * 1024 * 1024), "3,0 GiB");
        assert_eq!(super::bytes(Lang::En, 1023), "1,023 B");
    }

    #[test]
    fn list_addresses_keep_the_filters_and_drop_what_is_empty() {
        assert_eq!(
            super::list_address("/users", &[("q", String::new())], 1),
            "/users"
        );
        assert_eq!(
            super::list_address("/users", &[("q", "de 1&x".into())], 2),
            "/users?q=de%201%26x&page=2"
        );
        assert_eq!(
            super::list_address("/", &[("q", String::new()), ("country", "NL".into())], 3),
            "/?country=NL&page=3"
        );
    }
}
