//! The mesh: every witness (rows) against every server (columns), grouped
//! by country, each cell what that witness's evidence says right now. The
//! table scrolls with sticky headers, so it stays usable at 300 servers.

use crate::api::load_mesh;
use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::ui::components::{EmptyState, ErrorNote};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::i18n::Ui;
use meshwatch::verdict::MeshCell;
use meshwatch::views::MeshMatrix;

#[component]
pub fn MeshPage() -> impl IntoView {
    let lang = use_lang();
    let matrix = Resource::new(|| (), |_| load_mesh());
    view! {
        <Title text=lang.ui(Ui::Mesh)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Mesh)}</h1>
            <p class="mt-1 text-sm text-slate-500">{lang.ui(Ui::MeshIntro)}</p>
            <LiveRegion key="mesh">
                <Transition fallback=move || view! { <p class="mt-6 text-slate-500">{lang.ui(Ui::LoadingMesh)}</p> }>
                    {move || Suspend::new(async move {
                        match matrix.await {
                            Ok(m) if m.servers.is_empty() => view! {
                                <div class="mt-6"><EmptyState title=lang.ui(Ui::NoServersYet) hint=lang.ui(Ui::ProvisionFleetHint)/></div>
                            }.into_any(),
                            Ok(m) => view! { <Legend streak=m.failure_streak/><Matrix m/> }.into_any(),
                            Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                        }
                    })}
                </Transition>
            </LiveRegion>
        </Frame>
    }
}

/// (class, symbol, meaning) of each kind of cell.
fn look(cell: MeshCell) -> (&'static str, String, Ui) {
    match cell {
        MeshCell::Itself => ("c-s", String::new(), Ui::CellItself),
        MeshCell::NotProbed => ("c-n", "·".into(), Ui::CellNotProbed),
        MeshCell::Reaches => ("c-o", "✓".into(), Ui::CellReaches),
        MeshCell::Failing(n) => ("c-f", n.to_string(), Ui::CellFailing),
        MeshCell::Sustained => ("c-x", "✗".into(), Ui::CellSustained),
        MeshCell::Discarded => ("c-d", "d".into(), Ui::CellDiscarded),
    }
}

#[component]
fn Legend(streak: u32) -> impl IntoView {
    let lang = use_lang();
    let items = [
        MeshCell::Reaches,
        MeshCell::Failing(1),
        MeshCell::Sustained,
        MeshCell::Discarded,
        MeshCell::NotProbed,
    ];
    view! {
        <ul class="mx mt-4 flex flex-wrap gap-4 text-sm text-slate-600" aria-label=lang.ui(Ui::Legend)>
            {items.into_iter().map(|cell| {
                let (class, symbol, meaning) = look(cell);
                let meaning = if let MeshCell::Failing(_) = cell {
                    lang.failing_streak(streak)
                } else {
                    lang.ui(meaning).to_string()
                };
                view! {
                    <li class="flex items-center gap-2">
                        <table aria-hidden="true"><tbody><tr><td class=class>{symbol}</td></tr></tbody></table>
                        {meaning}
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

#[component]
fn Matrix(m: MeshMatrix) -> impl IntoView {
    let lang = use_lang();
    let n = m.servers.len();
    // A thicker line where the country changes.
    let group_start = |i: usize| i > 0 && m.servers[i].country != m.servers[i - 1].country;
    let header = m
        .servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let class = if group_start(i) {
                "sticky top-0 z-10 border-l-2 border-slate-400 bg-white px-0.5 align-bottom"
            } else {
                "sticky top-0 z-10 bg-white px-0.5 align-bottom"
            };
            view! {
                <th scope="col" class=class title=format!("{} ({})", s.name, s.country)>
                    <span class="inline-block font-mono text-[0.65rem] font-normal [writing-mode:vertical-rl] rotate-180">{s.id.to_string()}</span>
                </th>
            }
        })
        .collect_view();
    let rows = (0..n)
        .map(|w| {
            let witness = &m.servers[w];
            let cells = (0..n)
                .map(|s| {
                    let (class, symbol, _) = look(m.cell(w, s));
                    let class = if group_start(s) {
                        format!("{class} border-l-2 border-l-slate-400")
                    } else {
                        class.to_string()
                    };
                    view! { <td class=class>{symbol}</td> }
                })
                .collect_view();
            let row_class = if group_start(w) { "border-t-2 border-slate-400" } else { "" };
            view! {
                <tr class=row_class>
                    <th scope="row" class="sticky left-0 z-10 whitespace-nowrap bg-white pr-2 text-left text-xs font-medium">
                        <a href=format!("/servers/{}", witness.id) class="hover:underline">{format!("{} ({})", witness.name, witness.country)}</a>
                    </th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="mt-4 max-h-[75vh] overflow-auto rounded-xl border border-slate-200 bg-white p-2 shadow-sm">
            <table class="mx border-collapse" data-testid="mesh-matrix">
                <caption class="sr-only">{lang.ui(Ui::MeshCaption)}</caption>
                <thead>
                    <tr>
                        <th scope="col" class="sticky left-0 top-0 z-20 bg-white text-left text-xs text-slate-500">{lang.ui(Ui::WitnessServer)}</th>
                        {header}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
