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

#[cfg(test)]
mod tests {
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
