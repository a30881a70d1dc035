//! How sizes and times read on the panel (numbers themselves follow the
//! page's language: [`Lang::number`], [`Lang::decimal`]).

use meshwatch::i18n::Lang;

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
        use meshwatch::i18n::Lang;
        assert_eq!(super::bytes(Lang::En, 512), "512 B");
        assert_eq!(super::bytes(Lang::En, 1536), "1.5 KiB");
        assert_eq!(super::bytes(Lang::Es, 1536), "1,5 KiB");
        assert_eq!(super::bytes(Lang::Sv, 3 * 1024 * 1024 * 1024), "3,0 GiB");
        assert_eq!(super::bytes(Lang::En, 1023), "1,023 B");
    }
}
