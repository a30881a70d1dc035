//! The mesh: every witness (rows) against every server (columns), grouped
//! by country, each cell what that witness's evidence says right now. Up
//! to `TABLE_MAX_SERVERS` servers it is a table of symbols with sticky
//! headers; beyond, a picture (`/mesh.svg`, one square per cell) with the
//! counts of each kind, and an accessible table of one chosen witness's
//! row or one server's column (chosen from a list, or by clicking the
//! picture: a plain form, so it works without JavaScript too). Beyond the
//! witness set threshold there is no such picture: the page lists the
//! servers a search matches, each with its witness set
//! (docs/concepts/witness-sets.md).

use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{EmptyState, ErrorNote};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::verdict::MeshCell;
use meshwatch_views::i18n::{Lang, Ui};
use meshwatch_views::mesh_picture::{self, Picture, TABLE_MAX_SERVERS};
use meshwatch_views::views::{MeshMatrix, WitnessSetsPage, MAX_SETS_SHOWN};
use std::sync::Arc;

/// What the mesh page shows: the matrix of a fleet where everyone probes
/// everyone, or the witness sets of a bigger one.
pub enum MeshData {
    Matrix(MeshView),
    Sets(WitnessSetsPage),
}

/// The mesh page's data: the matrix, and the witness and the server chosen
/// for the table view of a big fleet (indexes into `matrix.servers`).
pub struct MeshView {
    pub matrix: MeshMatrix,
    pub witness: Option<usize>,
    pub target: Option<usize>,
}

impl MeshView {
    /// The view the address asks for: `?witness=` and `?target=` (server
    /// ids), or a click on the picture (`?at.x=&at.y=`: that cell's
    /// witness and server).
    pub fn of(matrix: MeshMatrix, param: impl Fn(&str) -> Option<String>) -> Self {
        let index = |name: &str| {
            let id = param(name)?;
            matrix.servers.iter().position(|s| s.id.as_str() == id)
        };
        let number = |name: &str| param(name)?.trim().parse::<u32>().ok();
        let clicked = number("at.x")
            .zip(number("at.y"))
            .and_then(|(x, y)| Picture::of(matrix.servers.len()).cell_at(x, y));
        let (witness, target) = match clicked {
            Some((witness, target)) => (Some(witness), Some(target)),
            None => (index("witness"), index("target")),
        };
        MeshView {
            matrix,
            witness,
            target,
        }
    }
}

#[component]
pub fn MeshPage() -> impl IntoView {
    let lang = use_lang();
    let (chooser, loaded) = match preload::take::<MeshData>() {
        Ok(MeshData::Sets(page)) => {
            let page = Arc::new(page);
            (
                Some(view! { <SetSearch query=page.query.clone()/> }.into_any()),
                view! { <Legend streak=page.failure_streak/><Sets page/> }.into_any(),
            )
        }
        Ok(MeshData::Matrix(v)) if v.matrix.servers.is_empty() => (
            None,
            view! {
                <div class="mt-6"><EmptyState title=lang.ui(Ui::NoServersYet) hint=lang.ui(Ui::ProvisionFleetHint)/></div>
            }
            .into_any(),
        ),
        Ok(MeshData::Matrix(v)) if v.matrix.servers.len() <= TABLE_MAX_SERVERS => {
            let m = v.matrix;
            (None, view! { <Legend streak=m.failure_streak/><Matrix m/> }.into_any())
        }
        Ok(MeshData::Matrix(v)) => {
            let view = Arc::new(v);
            (
                Some(view! { <Chooser view=view.clone()/> }.into_any()),
                view! { <MeshPicture view/> }.into_any(),
            )
        }
        Err(error) => (
            None,
            view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
        ),
    };
    view! {
        <Title text=lang.ui(Ui::Mesh)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Mesh)}</h1>
            <p class="mt-1 text-sm text-slate-500">{lang.ui(Ui::MeshIntro)}</p>
            {chooser}
            <LiveRegion key="mesh">
                {loaded}
            </LiveRegion>
        </Frame>
    }
}

/// The search over a big fleet's servers: a plain GET form (outside the
/// live region: the fleet, not the verdicts, changes what it matches).
#[component]
fn SetSearch(query: String) -> impl IntoView {
    let lang = use_lang();
    view! {
        <form method="get" action="/mesh" role="search" class="mt-4 flex flex-wrap items-end gap-3" data-testid="set-search">
            <div class="w-full sm:w-80">
                <label for="set-filter" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::FilterServers)}</label>
                <input id="set-filter" name="q" type="search" value=query
                    placeholder=lang.ui(Ui::ServerFilterPlaceholder)
                    class="mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 shadow-sm"/>
            </div>
            <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">{lang.ui(Ui::Search)}</button>
        </form>
    }
}

/// A big fleet's mesh: the servers the search matches (the first
/// [`MAX_SETS_SHOWN`]), each with its witnesses and what each sees now.
#[component]
fn Sets(page: Arc<WitnessSetsPage>) -> impl IntoView {
    let lang = use_lang();
    let settings = format!(
        "{}: {} · {}: {} s",
        lang.ui(Ui::WitnessSetSize),
        lang.number(u64::from(page.set_size)),
        lang.ui(Ui::WitnessRotation),
        lang.number(u64::from(page.rotation_s)),
    );
    let rows = page
        .rows
        .iter()
        .map(|row| {
            let witnesses = row
                .witnesses
                .iter()
                .map(|w| {
                    let (class, symbol, _) = look(w.cell);
                    let meaning = meaning(lang, w.cell, page.failure_streak);
                    let confirming = w.confirming.then(|| {
                        view! { <span class="text-xs text-amber-700">{format!(" ({})", lang.ui(Ui::Confirming))}</span> }
                    });
                    view! {
                        <li class="flex items-center gap-1" data-testid="set-witness" data-witness=w.server.id.to_string()
                            data-confirming=w.confirming.to_string()>
                            <table aria-hidden="true"><tbody><tr><td class=class>{symbol}</td></tr></tbody></table>
                            <span class="sr-only">{meaning}</span>
                            <a href=format!("/servers/{}", w.server.id) class="hover:underline">{format!("{} ({})", w.server.name, w.server.country)}</a>
                            {confirming}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <tr data-testid="witness-set" data-server=row.server.id.to_string()>
                    <th scope="row" class="whitespace-nowrap pr-3 text-left align-top text-sm font-medium">
                        <a href=format!("/servers/{}", row.server.id) class="hover:underline">{format!("{} ({})", row.server.name, row.server.country)}</a>
                    </th>
                    <td class="py-1"><ul class="mx flex flex-wrap gap-x-4 gap-y-1 text-sm">{witnesses}</ul></td>
                    <td class="whitespace-nowrap pl-3 align-top text-sm text-slate-500">
                        <time datetime=row.rotated_at.to_rfc3339()>{lang.age(row.rotated_at, page.as_of)}</time>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let shown = page.rows.len().min(MAX_SETS_SHOWN);
    view! {
        <section class="mt-4" data-testid="witness-sets">
            <h2 class="text-base font-semibold">{lang.ui(Ui::WitnessSets)}</h2>
            <p class="mt-1 text-sm text-slate-500">{lang.ui(Ui::WitnessSetsIntro)}</p>
            <p class="mt-1 text-sm text-slate-500">{settings}</p>
            <p class="mt-1 text-sm text-slate-500" data-testid="sets-shown">{lang.showing_servers(shown, page.matching)}</p>
            <div class="mt-2 overflow-auto rounded-xl border border-slate-200 bg-white p-2 shadow-sm">
                <table class="min-w-full text-left">
                    <caption class="sr-only">{lang.ui(Ui::WitnessSets)}</caption>
                    <thead class="text-xs uppercase tracking-wide text-slate-500">
                        <tr>
                            <th scope="col">{lang.ui(Ui::Server)}</th>
                            <th scope="col">{lang.ui(Ui::SetWitnesses)}</th>
                            <th scope="col" class="pl-3">{lang.ui(Ui::LastRotated)}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

/// The kinds of cell, as the legend lists them.
const KINDS: [MeshCell; 5] = [
    MeshCell::Reaches,
    MeshCell::Failing(1),
    MeshCell::Sustained,
    MeshCell::Discarded,
    MeshCell::NotProbed,
];

/// What a kind of cell means, in words.
fn meaning(lang: Lang, cell: MeshCell, streak: u32) -> String {
    match cell {
        MeshCell::Failing(_) => lang.failing_streak(streak),
        other => lang.ui(look(other).2).to_string(),
    }
}

/// Choose a witness's row or a server's column for the table view: a
/// plain GET form (outside the live region: the fleet, not the verdicts,
/// changes it).
#[component]
fn Chooser(view: Arc<MeshView>) -> impl IntoView {
    let lang = use_lang();
    let select = |id: &'static str, name: &'static str, label: Ui, chosen: Option<usize>| {
        let options = view
            .matrix
            .servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = format!("{} ({})", s.name, s.country);
                view! { <option value=s.id.to_string() selected=chosen == Some(i)>{text}</option> }
            })
            .collect_view();
        view! {
            <div>
                <label for=id class="block text-xs font-medium text-slate-600">{lang.ui(label)}</label>
                <select id=id name=name class="mt-1 max-w-64 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm">
                    <option value="">{lang.ui(Ui::MeshNone)}</option>
                    {options}
                </select>
            </div>
        }
    };
    view! {
        <form method="get" action="/mesh" class="mt-4 flex flex-wrap items-end gap-3" data-testid="mesh-chooser">
            {select("mesh-witness", "witness", Ui::MeshAsWitness, view.witness)}
            {select("mesh-target", "target", Ui::MeshAsTarget, view.target)}
            <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">{lang.ui(Ui::ShowMeshTable)}</button>
        </form>
    }
}

/// A big fleet's mesh: the counts of each kind, the picture, and the
/// chosen row and column as tables.
#[component]
fn MeshPicture(view: Arc<MeshView>) -> impl IntoView {
    let lang = use_lang();
    let m = &view.matrix;
    let picture = Picture::of(m.servers.len());
    let mut counts = [0u64; KINDS.len()];
    for cell in m.cells.chars().filter_map(MeshCell::from_char) {
        let kind = KINDS.iter().position(|k| mesh_picture::same_kind(cell, *k));
        if let Some(kind) = kind {
            counts[kind] += 1;
        }
    }
    let legend = KINDS
        .iter()
        .zip(counts)
        .map(|(kind, count)| {
            let text = format!("{} — {}", meaning(lang, *kind, m.failure_streak), lang.number(count));
            view! {
                <li class="flex items-center gap-2" data-kind=look(*kind).0>
                    <svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill=mesh_picture::colour(*kind)/></svg>
                    {text}
                </li>
            }
        })
        .collect_view();
    let source = format!("/mesh.svg?v={:x}", mesh_picture::fingerprint(m));
    let rows = view
        .witness
        .map(|w| view! { <OneSide view=view.clone() chosen=w as_witness=true/> });
    let columns = view
        .target
        .map(|t| view! { <OneSide view=view.clone() chosen=t as_witness=false/> });
    view! {
        <ul class="mt-4 flex flex-wrap gap-4 text-sm text-slate-600" aria-label=lang.ui(Ui::Legend) data-testid="mesh-counts">{legend}</ul>
        <p class="mt-2 text-sm text-slate-500">{lang.ui(Ui::MeshPictureHint)}</p>
        <form method="get" action="/mesh" class="mt-3 max-h-[75vh] overflow-auto rounded-xl border border-slate-200 bg-white p-2 shadow-sm">
            <input type="image" name="at" src=source alt=lang.ui(Ui::MeshPictureAlt) data-testid="mesh-picture"
                width=picture.width().to_string() height=picture.height().to_string()/>
        </form>
        {rows}
        {columns}
    }
}

/// One witness's row (what it says of every server) or one server's
/// column (what every witness says of it), as a table.
#[component]
fn OneSide(view: Arc<MeshView>, chosen: usize, as_witness: bool) -> impl IntoView {
    let lang = use_lang();
    let m = &view.matrix;
    let me = &m.servers[chosen];
    let (title, testid) = if as_witness {
        (Ui::MeshAsWitness, "mesh-row")
    } else {
        (Ui::MeshAsTarget, "mesh-column")
    };
    let rows = m
        .servers
        .iter()
        .enumerate()
        .filter(|(other, _)| *other != chosen)
        .map(|(other, s)| {
            let cell = if as_witness {
                m.cell(chosen, other)
            } else {
                m.cell(other, chosen)
            };
            let (class, symbol, _) = look(cell);
            view! {
                <tr>
                    <th scope="row"><a href=format!("/servers/{}", s.id)>{s.name.clone()}</a></th>
                    <td>{s.country.clone()}</td>
                    <td><span class=format!("sym {class}")>{symbol}</span></td>
                    <td>{meaning(lang, cell, m.failure_streak)}</td>
                </tr>
            }
        })
        .collect_view();
    let heading = format!("{}: {} ({})", lang.ui(title), me.name, me.country);
    view! {
        <section class="mt-6 rounded-xl border border-slate-200 bg-white p-4 shadow-sm" data-testid=testid>
            <h2 class="text-base font-semibold">{heading}</h2>
            <table class="sl mt-2 min-w-full text-left text-sm">
                <caption class="sr-only">{heading_caption(lang, title, &me.name)}</caption>
                <thead class="text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col">{lang.ui(Ui::Server)}</th>
                        <th scope="col">{lang.ui(Ui::Country)}</th>
                        <th scope="col">{lang.ui(Ui::MeshCell)}</th>
                        <th scope="col"><span class="sr-only">{lang.ui(Ui::MeshCell)}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}

fn heading_caption(lang: Lang, title: Ui, name: &str) -> String {
    format!("{}: {name}", lang.ui(title))
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
    view! {
        <ul class="mx mt-4 flex flex-wrap gap-4 text-sm text-slate-600" aria-label=lang.ui(Ui::Legend)>
            {KINDS.into_iter().map(|cell| {
                let (class, symbol, _) = look(cell);
                let meaning = meaning(lang, cell, streak);
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
        <div class="mt-4 max-h-[75vh] overflow-auto rounded-xl border border-slate-200 bg-white p-2 shadow-sm" tabindex="0" role="region" aria-label=lang.ui(Ui::Mesh)>
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
