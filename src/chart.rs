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
    pub fn peak(&self) -> Option<f32> {
        self.values.iter().flatten().copied().reduce(f32::max)
    }

    /// The top of the chart: the fixed ceiling, else the peak (at least 1,
    /// so an all-zero series draws along the bottom).
    pub fn ceiling(&self) -> f32 {
        self.metric
            .fixed_ceiling()
            .unwrap_or_else(|| self.peak().unwrap_or(0.0).max(1.0))
    }

    /// SVG path data in a `width` × `height` box: one line per run of
    /// buckets with data, so a gap in reporting shows as a gap (a lone
    /// bucket is a short flat stroke, not an invisible point).
    pub fn path(&self, width: f32, height: f32) -> String {
        let n = self.values.len();
        if n == 0 {
            return String::new();
        }
        let step = width / n as f32;
        let ceiling = self.ceiling();
        let y = |v: f32| height - (v.clamp(0.0, ceiling) / ceiling) * height;
        let mut d = String::new();
        let mut drawing = false;
        for (i, value) in self.values.iter().enumerate() {
            match value {
                Some(v) => {
                    let (x0, x1) = (i as f32 * step, (i + 1) as f32 * step);
                    let command = if drawing { 'L' } else { 'M' };
                    d.push_str(&format!(
                        "{command}{x0:.1} {:.1}L{x1:.1} {:.1}",
                        y(*v),
                        y(*v)
                    ));
                    drawing = true;
                }
                None => drawing = false,
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(metric: ChartMetric, values: &[Option<f32>]) -> ChartSeries {
        ChartSeries {
            metric,
            values: values.to_vec(),
        }
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
        assert_eq!(
            s.path(40.0, 10.0),
            "M0.0 0.0L10.0 0.0L10.0 5.0L20.0 5.0M30.0 10.0L40.0 10.0"
        );
        assert_eq!(
            series(ChartMetric::CpuPct, &[None, None]).path(40.0, 10.0),
            ""
        );
        // Out-of-range samples stay inside the box.
        let wild = series(ChartMetric::MemoryPct, &[Some(250.0), Some(-3.0)]);
        assert_eq!(
            wild.path(20.0, 10.0),
            "M0.0 0.0L10.0 0.0L10.0 10.0L20.0 10.0"
        );
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
