//! A metric's last 24 h as a small SVG line, drawn on the server so it
//! shows without JavaScript.

use crate::lang::use_lang;
use leptos::prelude::*;
use meshwatch::chart::ChartSeries;
use meshwatch::i18n::Ui;

const WIDTH: f32 = 240.0;
const HEIGHT: f32 = 40.0;

#[component]
pub fn Sparkline(
    /// The series to draw.
    series: ChartSeries,
    /// What it shows, for the text alternative ("CPU").
    label: &'static str,
    /// How the peak reads ("42.0 %").
    peak: Option<String>,
) -> impl IntoView {
    let lang = use_lang();
    let summary = match &peak {
        Some(peak) => lang.chart_summary(label, peak),
        None => lang.chart_no_reports(label),
    };
    let d = series.path(WIDTH, HEIGHT);
    let title = summary.clone();
    view! {
        <figure class="mt-1">
            <svg role="img" aria-label=summary viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none"
                class="h-10 w-full rounded bg-slate-50 text-sky-600">
                <title>{title}</title>
                <path d=d fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" vector-effect="non-scaling-stroke"/>
            </svg>
            <figcaption class="mt-0.5 flex justify-between text-[10px] text-slate-400">
                <span>{lang.ui(Ui::ChartStart)}</span>
                {peak.map(|p| view! { <span>{lang.chart_peak(&p)}</span> })}
                <span>{lang.ui(Ui::ChartNow)}</span>
            </figcaption>
        </figure>
    }
}
