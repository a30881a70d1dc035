//! A metric's last 24 h as a small SVG line, drawn on the server so it
//! shows without JavaScript. The store hands over numbers (one average per
//! bucket); how they are scaled and drawn is decided here, where they are
//! shown.

use crate::lang::use_lang;
use leptos::prelude::*;
use meshwatch_views::chart::{ChartMetric, ChartSeries};
use meshwatch_views::i18n::Ui;

#[component]
pub fn Sparkline<'a>(
    /// The values to draw, one per bucket, oldest first.
    series: &'a ChartSeries,
    /// What it shows, for the text alternative ("CPU").
    label: &'static str,
    /// How the peak reads ("42.0%").
    peak: Option<String>,
) -> impl IntoView {
    let lang = use_lang();
    let summary = match &peak {
        Some(peak) => lang.chart_summary(label, peak),
        None => lang.chart_no_reports(label),
    };
    // The drawing has no words: they are the reader's and stay here. The
    // time axis is the list's (`ChartAxis`).
    let svg = series.drawing(svg);
    view! {
        <div role="img" aria-label=summary inner_html=svg
            class="mt-1 h-10 w-full rounded bg-slate-50 text-sky-600 *:size-full"></div>
        {peak.map(|p| view! { <p class="text-right text-[10px] text-slate-500">{lang.chart_peak(&p)}</p> })}
    }
}

/// The time axis every chart of a list shares, said once under it.
#[component]
pub fn ChartAxis() -> impl IntoView {
    let lang = use_lang();
    view! {
        <p class="mt-3 text-[10px] text-slate-500">
            {lang.ui(Ui::ChartStart)}" → "{lang.ui(Ui::ChartNow)}
        </p>
    }
}

/// The series as an SVG image: a line in `currentColor` stretched to the
/// size of whatever holds it.
pub fn svg(series: &ChartSeries) -> String {
    let path = draw(series.values(), ceiling(series.metric, series.peak()));
    // The path's own units: one per bucket across, PATH_HEIGHT up.
    format!(
        r#"<svg viewBox="0 0 {} {PATH_HEIGHT}" preserveAspectRatio="none" aria-hidden="true"><path d="{path}" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" vector-effect="non-scaling-stroke"/></svg>"#,
        series.values().len().max(1)
    )
}

/// Percentages always draw on 0–100 so a flat 3 % never looks like a full
/// CPU; the others scale to their own peak.
fn fixed_ceiling(metric: ChartMetric) -> Option<f32> {
    match metric {
        ChartMetric::CpuPct | ChartMetric::MemoryPct | ChartMetric::DiskPct => Some(100.0),
        _ => None,
    }
}

/// The top of the chart: the fixed ceiling, else the peak (at least 1, so
/// an all-zero series draws along the bottom).
fn ceiling(metric: ChartMetric, peak: Option<f32>) -> f32 {
    fixed_ceiling(metric).unwrap_or_else(|| peak.unwrap_or(0.0).max(1.0))
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
    fn path(series: &ChartSeries) -> String {
        let svg = svg(series);
        let start = svg.find(r#"<path d=""#).expect("a path") + 9;
        let len = svg[start..].find('"').expect("closed");
        svg[start..start + len].to_owned()
    }

    #[test]
    fn percentages_draw_on_a_fixed_scale_others_on_their_peak() {
        let cpu = series(ChartMetric::CpuPct, &[Some(5.0), Some(10.0)]);
        assert_eq!(ceiling(cpu.metric, cpu.peak()), 100.0);
        let net = series(ChartMetric::NetInBps, &[Some(5.0), Some(10.0), None]);
        assert_eq!(ceiling(net.metric, net.peak()), 10.0);
        let idle = series(ChartMetric::Connections, &[Some(0.0)]);
        assert_eq!(ceiling(idle.metric, idle.peak()), 1.0);
    }

    #[test]
    fn paths_follow_the_values_and_break_at_gaps() {
        let s = series(
            ChartMetric::CpuPct,
            &[Some(100.0), Some(50.0), None, Some(0.0)],
        );
        assert_eq!(path(&s), "M0 0H1V50H2M3 100H4");
        assert_eq!(
            svg(&s),
            r#"<svg viewBox="0 0 4 100" preserveAspectRatio="none" aria-hidden="true"><path d="M0 0H1V50H2M3 100H4" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" vector-effect="non-scaling-stroke"/></svg>"#
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
    fn an_empty_series_still_has_a_box_one_bucket_wide() {
        assert!(svg(&series(ChartMetric::Load1, &[])).starts_with(r#"<svg viewBox="0 0 1 100" "#));
    }
}
