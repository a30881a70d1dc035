//! Metric charts: a server's metrics over a window (24 h on the server
//! card), averaged per time bucket, and the SVG path that draws them.
//! The server fills the buckets; the panel draws the same data on the
//! server and in the browser.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What a chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChartMetric {
    CpuPct,
    MemoryPct,
    DiskPct,
    NetInBps,
    NetOutBps,
    Connections,
    Load1,
}

impl ChartMetric {
    pub const ALL: [ChartMetric; 7] = [
        ChartMetric::CpuPct,
        ChartMetric::MemoryPct,
        ChartMetric::DiskPct,
        ChartMetric::NetInBps,
        ChartMetric::NetOutBps,
        ChartMetric::Connections,
        ChartMetric::Load1,
    ];

    /// Percentages always draw on 0–100 so a flat 3 % never looks like a
    /// full CPU; the others scale to their own peak.
    pub fn fixed_ceiling(self) -> Option<f32> {
        match self {
            ChartMetric::CpuPct | ChartMetric::MemoryPct | ChartMetric::DiskPct => Some(100.0),
            _ => None,
        }
    }
}

/// One metric per bucket, oldest first; `None` where no report fell in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSeries {
    pub metric: ChartMetric,
    pub values: Vec<Option<f32>>,
    /// The values drawn as an SVG image (see [`ChartSeries::new`]): drawn
    /// once when the series is built, not on every view of a card.
    pub svg: String,
    /// The highest value (`None` when no bucket holds one).
    peak: Option<f32>,
}

/// Every chart of one server over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricCharts {
    /// The end of the last bucket.
    pub until: DateTime<Utc>,
    pub bucket_s: u32,
    pub series: Vec<ChartSeries>,
}

impl MetricCharts {
    pub fn series(&self, metric: ChartMetric) -> Option<&ChartSeries> {
        self.series.iter().find(|s| s.metric == metric)
    }

    /// Whether any bucket holds a value (a server that never reported has
    /// nothing to draw).
    pub fn is_empty(&self) -> bool {
        self.series
            .iter()
            .all(|s| s.values.iter().all(Option::is_none))
    }
}

impl ChartSeries {
    /// The series with its drawing: a line in `currentColor` stretched to
    /// the size of whatever holds it, with no words (the page puts them
    /// around it, in the reader's language).
    pub fn new(metric: ChartMetric, values: Vec<Option<f32>>) -> Self {
        let peak = peak(&values);
        let path = draw(&values, ceiling(metric, peak));
        // The path's own units: one per bucket across, PATH_HEIGHT up.
        let svg = format!(
            r#"<svg viewBox="0 0 {} {PATH_HEIGHT}" preserveAspectRatio="none" aria-hidden="true"><path d="{path}" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" vector-effect="non-scaling-stroke"/></svg>"#,
            values.len().max(1)
        );
        ChartSeries {
            metric,
            values,
            svg,
            peak,
        }
    }

    pub fn peak(&self) -> Option<f32> {
        self.peak
    }

    /// The top of the chart: see [`ceiling`].
    pub fn ceiling(&self) -> f32 {
        ceiling(self.metric, self.peak())
    }
}

fn peak(values: &[Option<f32>]) -> Option<f32> {
    values.iter().flatten().copied().reduce(f32::max)
}

/// The fixed ceiling, else the peak (at least 1, so an all-zero series
/// draws along the bottom).
fn ceiling(metric: ChartMetric, peak: Option<f32>) -> f32 {
    metric
        .fixed_ceiling()
        .unwrap_or_else(|| peak.unwrap_or(0.0).max(1.0))
}

/// SVG path data for `values` under `ceiling`: each bucket is a flat
/// step, one line per run of buckets with data, so a gap in reporting
/// shows as a gap (a lone bucket is a short stroke, not an invisible
/// point). Whole numbers and `H`/`V` steps keep it short.
fn draw(values: &[Option<f32>], ceiling: f32) -> String {
    use std::fmt::Write;
    let full = PATH_HEIGHT as f32;
    let y = |v: f32| (full - v.clamp(0.0, ceiling) / ceiling * full).round() as u32;
    let mut d = String::with_capacity(values.len() * 8);
    let mut drawing = false;
    for (i, value) in values.iter().enumerate() {
        let Some(v) = value else {
            drawing = false;
            continue;
        };
        let (y, next) = (y(*v), i + 1);
        // Writing to a String cannot fail.
        let _ = if drawing {
            write!(d, "V{y}H{next}")
        } else {
            write!(d, "M{i} {y}H{next}")
        };
        drawing = true;
    }
    d
}

/// The height of a chart's drawing box: y runs in hundredths of the
/// chart's ceiling (finer than the pixels of a small chart).
const PATH_HEIGHT: u32 = 100;

#[cfg(test)]
mod tests {
    use super::*;

    fn series(metric: ChartMetric, values: &[Option<f32>]) -> ChartSeries {
        ChartSeries::new(metric, values.to_vec())
    }

    /// The path data inside a series' drawing.
    fn path(series: &ChartSeries) -> &str {
        let start = series.svg.find(r#"<path d=""#).expect("a path") + 9;
        let len = series.svg[start..].find('"').expect("closed");
        &series.svg[start..start + len]
    }

    #[test]
    fn percentages_draw_on_a_fixed_scale_others_on_their_peak() {
        let cpu = series(ChartMetric::CpuPct, &[Some(5.0), Some(10.0)]);
        assert_eq!(cpu.ceiling(), 100.0);
        let net = series(ChartMetric::NetInBps, &[Some(5.0), Some(10.0), None]);
        assert_eq!((net.ceiling(), net.peak()), (10.0, Some(10.0)));
        let idle = series(ChartMetric::Connections, &[Some(0.0)]);
        assert_eq!(idle.ceiling(), 1.0);
    }

    #[test]
    fn paths_follow_the_values_and_break_at_gaps() {
        let s = series(
            ChartMetric::CpuPct,
            &[Some(100.0), Some(50.0), None, Some(0.0)],
        );
        assert_eq!(path(&s), "M0 0H1V50H2M3 100H4");
        assert!(
            s.svg.starts_with(r#"<svg viewBox="0 0 4 100" "#),
            "{}",
            s.svg
        );
        assert_eq!(path(&series(ChartMetric::CpuPct, &[None, None])), "");
        // Out-of-range samples stay inside the box.
        let wild = series(ChartMetric::MemoryPct, &[Some(250.0), Some(-3.0)]);
        assert_eq!(path(&wild), "M0 0H1V100H2");
        // A scale that is not a percentage rounds to whole hundredths.
        let net = series(ChartMetric::NetInBps, &[Some(3.0), Some(1.0)]);
        assert_eq!(path(&net), "M0 0H1V67H2");
    }

    #[test]
    fn charts_without_any_sample_are_empty() {
        let charts = MetricCharts {
            until: Utc::now(),
            bucket_s: 900,
            series: vec![
                series(ChartMetric::CpuPct, &[None]),
                series(ChartMetric::Load1, &[None]),
            ],
        };
        assert!(charts.is_empty());
        assert!(charts.series(ChartMetric::Load1).is_some());
        assert!(charts.series(ChartMetric::DiskPct).is_none());
    }
}
