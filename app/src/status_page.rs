//! The public status page's HTML (§6): a plain document, no script, one
//! stylesheet (the panel's, whose classes Tailwind finds here). It is
//! written from a [`PublicStatus`] only, which names no server, address,
//! entry point or verifier, so none can appear in it.

use crate::ui::format::timestamp;
use meshwatch_views::i18n::{Lang, Ui};
use meshwatch_views::markup::escape;
use meshwatch_views::status_page::{DayState, PublicRoute, PublicStatus, RouteState};
use std::fmt::Write as _;

/// The colour of a state, on a bar, a badge and the headline.
fn bar_class(state: Option<RouteState>) -> &'static str {
    match state {
        Some(RouteState::Operational) => "bg-emerald-500",
        Some(RouteState::Maintenance) => "bg-blue-500",
        Some(RouteState::Degraded) => "bg-amber-400",
        Some(RouteState::PartialOutage) => "bg-red-600",
        None => "bg-slate-200",
    }
}

fn banner_class(state: RouteState) -> &'static str {
    match state {
        RouteState::Operational => "border-emerald-200 bg-emerald-50 text-emerald-900",
        RouteState::Maintenance => "border-blue-200 bg-blue-50 text-blue-900",
        RouteState::Degraded => "border-amber-200 bg-amber-50 text-amber-900",
        RouteState::PartialOutage => "border-red-200 bg-red-50 text-red-900",
    }
}

fn state_wire(state: RouteState) -> &'static str {
    match state {
        RouteState::Operational => "operational",
        RouteState::Maintenance => "maintenance",
        RouteState::Degraded => "degraded",
        RouteState::PartialOutage => "partial_outage",
    }
}

fn day_bar(out: &mut String, lang: Lang, day: &DayState) {
    let label = day
        .state
        .map_or_else(|| lang.ui(Ui::NoDataDay), |s| lang.route_state(s));
    let text = escape(&format!("{}: {label}", day.date));
    let _ = write!(
        out,
        r#"<li class="h-8 flex-1 rounded-sm {}" title="{text}"><span class="sr-only">{text}</span></li>"#,
        bar_class(day.state),
    );
}

fn route(out: &mut String, lang: Lang, route: &PublicRoute) {
    let _ = write!(
        out,
        r#"<section class="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm" data-testid="status-route" data-state="{wire}"><div class="flex flex-wrap items-center justify-between gap-2"><h2 class="text-lg font-semibold">{name}</h2><span class="inline-flex items-center gap-2 text-sm font-medium"><span aria-hidden="true" class="inline-block size-2.5 rounded-full {dot}"></span>{state}</span></div>"#,
        wire = state_wire(route.state),
        name = escape(&route.name),
        dot = bar_class(Some(route.state)),
        state = escape(lang.route_state(route.state)),
    );
    let _ = write!(
        out,
        r#"<ol class="mt-3 flex gap-0.5" aria-label="{}">"#,
        escape(lang.ui(Ui::Last30Days))
    );
    for day in &route.days {
        day_bar(out, lang, day);
    }
    out.push_str("</ol>");
    if let (Some(first), Some(last)) = (route.days.first(), route.days.last()) {
        let _ = write!(
            out,
            r#"<p class="mt-1 flex justify-between text-xs text-slate-500"><span>{}</span><span>{}</span></p>"#,
            first.date, last.date
        );
    }
    if !route.maintenance.is_empty() {
        let _ = write!(
            out,
            r#"<div class="mt-3 text-sm"><h3 class="font-medium text-blue-900">{}</h3><ul class="mt-1 space-y-1" data-testid="status-maintenance">"#,
            escape(lang.ui(Ui::PlannedMaintenance))
        );
        for o in &route.maintenance {
            let _ = write!(
                out,
                r#"<li class="font-mono text-xs text-slate-700">{} – {}</li>"#,
                timestamp(o.start),
                timestamp(o.end)
            );
        }
        out.push_str("</ul></div>");
    }
    out.push_str("</section>");
}

/// The whole page in `lang`, with `stylesheet` linked.
pub fn render(lang: Lang, status: &PublicStatus, stylesheet: &str) -> String {
    let mut out = String::with_capacity(4096 + status.routes.len() * 4096);
    let title = escape(lang.ui(Ui::ServiceStatus));
    let overall = status.overall();
    let _ = write!(
        out,
        r#"<!DOCTYPE html><html lang="{code}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title><link rel="stylesheet" href="{css}"></head><body class="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased"><main class="mx-auto max-w-3xl px-4 py-10"><h1 class="text-2xl font-semibold tracking-tight">{title}</h1><p class="mt-4 rounded-lg border px-4 py-3 font-medium {banner}" data-testid="status-overall" data-state="{wire}">{headline}</p>"#,
        code = lang.code(),
        css = escape(stylesheet),
        banner = banner_class(overall),
        wire = state_wire(overall),
        headline = escape(lang.overall_state(overall)),
    );
    if status.routes.is_empty() {
        let _ = write!(
            out,
            r#"<p class="mt-6 text-slate-500">{}</p>"#,
            escape(lang.ui(Ui::NoRoutesPublic))
        );
    }
    for r in &status.routes {
        route(&mut out, lang, r);
    }
    let _ = write!(
        out,
        r#"<footer class="mt-8 text-xs text-slate-500"><p>{}</p><p>{}</p></footer></main></body></html>"#,
        escape(&lang.updated_at(&timestamp(status.updated_at))),
        escape(lang.ui(Ui::TimesInUtc)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn page() -> PublicStatus {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 12, 4, 12, 0, 0)
            .single()
            .expect("a time");
        let day = |k: i64, state| DayState {
            date: now.date_naive() - chrono::Duration::days(k),
            state,
        };
        PublicStatus {
            routes: vec![PublicRoute {
                name: "Germany <fast> & \"safe\"".into(),
                state: RouteState::Degraded,
                days: vec![day(1, None), day(0, Some(RouteState::Degraded))],
                maintenance: vec![meshwatch::maintenance::Occurrence {
                    start: now,
                    end: now + chrono::Duration::hours(2),
                }],
            }],
            updated_at: now,
        }
    }

    #[test]
    fn the_page_is_a_whole_document_without_a_script_and_escapes_names() {
        let html = render(Lang::En, &page(), "/pkg/meshwatch.css");
        assert!(html.starts_with("<!DOCTYPE html><html lang=\"en\">"));
        assert!(html.ends_with("</html>"));
        assert!(!html.contains("<script"));
        assert!(
            html.contains("Germany &lt;fast&gt; &amp; &quot;safe&quot;"),
            "{html}"
        );
        assert!(html.contains("Some routes are degraded."));
        assert!(html.contains("2026-12-03: No data"));
        assert!(html.contains("2026-12-04: Degraded"));
        assert!(html.contains("2026-12-04 12:00:00 UTC – 2026-12-04 14:00:00 UTC"));
    }

    #[test]
    fn each_language_writes_its_own_words() {
        let html = render(Lang::Ja, &page(), "/pkg/meshwatch.css");
        assert!(html.contains("lang=\"ja\""));
        assert!(
            html.contains("サービスの稼働状況") && html.contains("一部機能低下"),
            "{html}"
        );
        let html = render(Lang::Es, &page(), "/pkg/meshwatch.css");
        assert!(html.contains("Algunas rutas están degradadas."));
    }
}
