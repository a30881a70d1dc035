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
        format!("{} {}", decimal(value, 1), UNITS[unit])
    }
}

/// `value` with `places` decimals, rounded half away from zero: "42.5".
/// In integers: std's exact float formatting often falls back to a slow
/// big-number path, and a server card shows a score of such figures.
pub fn decimal(value: f64, places: u32) -> String {
    let scale = 10u64.pow(places.min(9));
    let scaled = (value.abs() * scale as f64).round();
    if !scaled.is_finite() || scaled >= u64::MAX as f64 {
        return format!("{value:.*}", places as usize);
    }
    let scaled = scaled as u64;
    let sign = if value < 0.0 && scaled != 0 { "-" } else { "" };
    match places.min(9) as usize {
        0 => format!("{sign}{scaled}"),
        width => format!("{sign}{}.{:0width$}", scaled / scale, scaled % scale),
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

    #[test]
    fn decimals_round_half_away_from_zero() {
        use super::decimal;
        assert_eq!(decimal(42.0, 1), "42.0");
        assert_eq!(decimal(99.95, 2), "99.95");
        assert_eq!(decimal(0.125, 2), "0.13");
        assert_eq!(decimal(2.5, 0), "3");
        assert_eq!(decimal(-1.25, 1), "-1.3");
        assert_eq!(decimal(-0.01, 1), "0.0");
        assert_eq!(decimal(0.05, 3), "0.050");
        assert_eq!(decimal(f64::NAN, 1), "NaN");
    }
}
