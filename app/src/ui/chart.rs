//! A metric's last 24 h as a small SVG line, drawn on the server so it
//! shows without JavaScript.

use crate::lang::use_lang;
use leptos::prelude::*;
use meshwatch::i18n::Ui;

#[component]
pub fn Sparkline(
    /// The series' drawing ([`meshwatch::chart::ChartSeries::svg`]).
    svg: String,
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
    // reader's and stay here. The time axis is the list's (`ChartAxis`).
    view! {
        <div role="img" aria-label=summary inner_html=svg
            class="mt-1 h-10 w-full rounded bg-slate-50 text-sky-600 *:size-full"></div>
        {peak.map(|p| view! { <p class="text-right text-[10px] text-slate-400">{lang.chart_peak(&p)}</p> })}
    }
}

/// The time axis every chart of a list shares, said once under it.
#[component]
pub fn ChartAxis() -> impl IntoView {
    let lang = use_lang();
    view! {
        <p class="mt-3 text-[10px] text-slate-400">
            {lang.ui(Ui::ChartStart)}" → "{lang.ui(Ui::ChartNow)}
        </p>
    }
}
