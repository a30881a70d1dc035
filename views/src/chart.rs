//! Metric charts: a server's metrics over a window (24 h on the server
//! card), averaged per time bucket. These are the numbers only: the server
//! fills the buckets, and the panel (`app`) decides the scale and draws.

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
}

/// One metric per bucket, oldest first; `None` where no report fell in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSeries {
    pub metric: ChartMetric,
    pub values: Vec<Option<f32>>,
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
        ChartSeries { metric, values }
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
}
