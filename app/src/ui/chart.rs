//! A metric's last 24 h as a small SVG line, drawn on the server so it
//! shows without JavaScript.

use crate::lang::use_lang;
use leptos::prelude::*;
use meshwatch::chart::ChartSeries;
use meshwatch::i18n::Ui;

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
    // The drawing comes with the series, made once per refresh of the
    // charts rather than on every view of the card; the words are the
    // reader's and stay here.
    view! {
        <figure class="mt-1">
            <div role="img" aria-label=summary inner_html=series.svg
                class="h-10 w-full rounded bg-slate-50 text-sky-600 *:size-full"></div>
            <figcaption class="mt-0.5 flex justify-between text-[10px] text-slate-400">
                <span>{lang.ui(Ui::ChartStart)}</span>
                {peak.map(|p| view! { <span>{lang.chart_peak(&p)}</span> })}
                <span>{lang.ui(Ui::ChartNow)}</span>
            </figcaption>
        </figure>
    }
}
