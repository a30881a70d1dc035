//! Metric charts: a server's metrics over a window (24 h on the server
//! card), averaged per time bucket. These are the numbers only: the server
//! fills the buckets, and the panel (`app`) decides the scale and draws.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

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
}

/// One metric per bucket, oldest first; `None` where no report fell in.
/// The values are fixed once made: the drawing made of them is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSeries {
    pub metric: ChartMetric,
    values: Vec<Option<f32>>,
    #[serde(skip)]
    drawing: Drawing,
}

/// A series' drawing, made on first use and shared by its clones: the
/// server's card cache keeps a server's charts for a minute, and each card
/// rendered meanwhile shows the same drawing instead of drawing it again.
#[derive(Clone, Default)]
struct Drawing(Arc<OnceLock<Arc<str>>>);

/// The values alone say what a series is; the drawing follows from them.
impl PartialEq for Drawing {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Drawing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "drawn"
        } else {
            "not drawn"
        })
    }
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
    pub fn new(metric: ChartMetric, values: Vec<Option<f32>>) -> Self {
        ChartSeries {
            metric,
            values,
            drawing: Drawing::default(),
        }
    }

    pub fn values(&self) -> &[Option<f32>] {
        &self.values
    }

    /// What `draw` makes of this series, drawn on the first call only
    /// (this series and its clones share it).
    pub fn drawing(&self, draw: impl FnOnce(&ChartSeries) -> String) -> Arc<str> {
        self.drawing.0.get_or_init(|| draw(self).into()).clone()
    }

    /// The highest value (`None` when no bucket holds one).
    pub fn peak(&self) -> Option<f32> {
        self.values.iter().flatten().copied().reduce(f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(metric: ChartMetric, values: &[Option<f32>]) -> ChartSeries {
        ChartSeries::new(metric, values.to_vec())
    }

    #[test]
    fn the_peak_is_the_highest_bucket_with_a_value() {
        let net = series(ChartMetric::NetInBps, &[Some(5.0), Some(10.0), None]);
        assert_eq!(net.peak(), Some(10.0));
        assert_eq!(series(ChartMetric::CpuPct, &[None, None]).peak(), None);
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

    #[test]
    fn a_series_is_drawn_once_for_all_its_clones() {
        let cpu = series(ChartMetric::CpuPct, &[Some(5.0)]);
        let draws = std::cell::Cell::new(0);
        let draw = |s: &ChartSeries| {
            draws.set(draws.get() + 1);
            format!("{} buckets", s.values().len())
        };
        let kept = cpu.clone();
        assert_eq!(&*cpu.drawing(draw), "1 buckets");
        assert_eq!(&*kept.drawing(draw), "1 buckets");
        assert_eq!(draws.get(), 1);
        // A series made anew (the next minute's charts) is drawn anew, and
        // the drawing never makes two series differ.
        let next = series(ChartMetric::CpuPct, &[Some(5.0)]);
        assert_eq!(next, cpu);
        next.drawing(draw);
        assert_eq!(draws.get(), 2);
    }

    #[test]
    fn a_series_travels_without_its_drawing() {
        let cpu = series(ChartMetric::CpuPct, &[Some(5.0), None]);
        cpu.drawing(|_| "svg".into());
        let json = serde_json::to_string(&cpu).expect("serialized");
        assert!(!json.contains("svg"), "{json}");
        let back: ChartSeries = serde_json::from_str(&json).expect("parsed");
        assert_eq!(back, cpu);
        assert_eq!(&*back.drawing(|_| "again".into()), "again");
    }
}
