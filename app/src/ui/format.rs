//! How numbers read on the panel.

/// 1536 → "1.5 KiB".
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// 93_784 s → "1 d 2 h".
pub fn duration(seconds: u64) -> String {
    let (d, h, m) = (
        seconds / 86_400,
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
    );
    match (d, h) {
        (0, 0) => format!("{m} min"),
        (0, h) => format!("{h} h {m} min"),
        (d, h) => format!("{d} d {h} h"),
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
    fn bytes_and_durations() {
        assert_eq!(super::bytes(512), "512 B");
        assert_eq!(super::bytes(1536), "1.5 KiB");
        assert_eq!(super::bytes(3 * 1024 * 1024 * 1024), "3.0 GiB");
        assert_eq!(super::duration(90), "1 min");
        assert_eq!(super::duration(3 * 3600 + 120), "3 h 2 min");
        assert_eq!(super::duration(93_784), "1 d 2 h");
    }
}
