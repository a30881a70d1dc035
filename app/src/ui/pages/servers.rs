//! The servers list with its live filter (works after hydration; without
//! JavaScript the same box submits `?q=` and the server filters).

use crate::api::list_servers;
use crate::lang::use_lang;
use crate::live::live_version;
use crate::ui::components::{Chip, EmptyState, ErrorNote, StaleBadge, StatusDot};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use meshwatch::i18n::Ui;
use meshwatch::status::ServerStatus;
use meshwatch::views::ServerListItem;

#[component]
pub fn ServersPage() -> impl IntoView {
    let lang = use_lang();
    let servers = Resource::new(live_version, |_| list_servers());
    let query = use_query_map();
    let filter = RwSignal::new(query.read_untracked().get("q").unwrap_or_default());
    let facets = Facets {
        status: RwSignal::new(query.read_untracked().get("status").unwrap_or_default()),
        country: RwSignal::new(query.read_untracked().get("country").unwrap_or_default()),
        route: RwSignal::new(query.read_untracked().get("route").unwrap_or_default()),
    };
    view! {
        <Title text=lang.ui(Ui::Servers)/>
        <Frame>
            <div class="flex flex-wrap items-end justify-between gap-4">
                <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Servers)}</h1>
                <form method="get" role="search" class="w-full sm:w-80" on:submit=move |ev| ev.prevent_default()>
                    <label for="server-filter" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::FilterServers)}</label>
                    <input
                        id="server-filter"
                        name="q"
                        type="search"
                        placeholder=lang.ui(Ui::ServerFilterPlaceholder)
                        class="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"
                        prop:value=filter
                        on:input=move |ev| filter.set(event_target_value(&ev))
                    />
                </form>
            </div>
            <Transition fallback=move || view! { <p class="mt-6 text-slate-500">{lang.ui(Ui::LoadingServers)}</p> }>
                {move || Suspend::new(async move {
                    match servers.await {
                        Ok(list) => view! { <ServersTable servers=list filter=filter.into() facets/> }.into_any(),
                        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                    }
                })}
            </Transition>
        </Frame>
    }
}

/// The status, country and route filters (empty = any), from `?status=`,
/// `?country=`, `?route=` so they work without JavaScript.
#[derive(Clone, Copy)]
struct Facets {
    status: RwSignal<String>,
    country: RwSignal<String>,
    route: RwSignal<String>,
}

impl Facets {
    fn admit(&self, item: &ServerListItem) -> bool {
        let (status, country, route) = (self.status.get(), self.country.get(), self.route.get());
        (status.is_empty() || item.status.as_str() == status)
            && (country.is_empty() || item.server.country == country)
            && (route.is_empty() || item.server.routes.iter().any(|r| r.as_str() == route))
    }
}

/// One `<select>` of the facet form; hydrated, a change filters at once.
#[component]
fn FacetSelect(
    name: &'static str,
    label: &'static str,
    signal: RwSignal<String>,
    options: Vec<(String, String)>,
) -> impl IntoView {
    let id = format!("facet-{name}");
    let any = use_lang().ui(Ui::Any);
    view! {
        <div>
            <label for=id.clone() class="block text-xs font-medium text-slate-600">{label}</label>
            <select id=id name=name class="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
                on:change=move |ev| signal.set(event_target_value(&ev))>
                <option value="" selected=move || signal.get().is_empty()>{any}</option>
                {options.into_iter().map(|(value, text)| {
                    let v = value.clone();
                    view! { <option value=value selected=move || signal.get() == v>{text}</option> }
                }).collect_view()}
            </select>
        </div>
    }
}

#[component]
fn ServersTable(
    /// Every server with its verdict, sorted by id.
    servers: Vec<ServerListItem>,
    /// The free-text filter typed by the operator.
    filter: Signal<String>,
    /// Status, country and route filters.
    facets: Facets,
) -> impl IntoView {
    let lang = use_lang();
    if servers.is_empty() {
        return view! {
            <div class="mt-6">
                <EmptyState title=lang.ui(Ui::NoServersYet) hint=lang.ui(Ui::ProvisionFleetHint)/>
            </div>
        }
        .into_any();
    }
    let total = servers.len();
    let statuses = ServerStatus::ALL
        .iter()
        .map(|s| (s.as_str().to_string(), lang.status(*s).to_string()))
        .collect();
    let mut countries: Vec<String> = servers.iter().map(|s| s.server.country.clone()).collect();
    countries.sort();
    countries.dedup();
    let mut routes: Vec<String> = servers
        .iter()
        .flat_map(|s| s.server.routes.iter().map(|r| r.to_string()))
        .collect();
    routes.sort();
    routes.dedup();
    let pairs = |v: Vec<String>| v.into_iter().map(|x| (x.clone(), x)).collect::<Vec<_>>();
    let all = StoredValue::new(servers);
    let visible = Memo::new(move |_| {
        let needle = filter.get();
        all.with_value(|all| {
            all.iter()
                .filter(|s| s.matches(&needle) && facets.admit(s))
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    view! {
        <form method="get" class="mt-4 flex flex-wrap items-end gap-3" aria-label=lang.ui(Ui::FilterFacets)
            on:submit=move |ev| ev.prevent_default()>
            <input type="hidden" name="q" value=move || filter.get()/>
            <FacetSelect name="status" label=lang.ui(Ui::Status) signal=facets.status options=statuses/>
            <FacetSelect name="country" label=lang.ui(Ui::Country) signal=facets.country options=pairs(countries)/>
            <FacetSelect name="route" label=lang.ui(Ui::Route) signal=facets.route options=pairs(routes)/>
            <button type="submit" class="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">{lang.ui(Ui::ApplyFilters)}</button>
        </form>
        <p class="mt-1 text-sm text-slate-500" aria-live="polite">
            {move || lang.showing_servers(visible.read().len(), total)}
        </p>
        <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
            <table class="min-w-full divide-y divide-slate-200 text-left text-sm">
                <caption class="sr-only">{lang.ui(Ui::Servers)}</caption>
                <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Server)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Status)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Country)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Routes)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::EntryPoints)}</th>
                        <th scope="col" class="px-4 py-3">{lang.ui(Ui::Role)}</th>
                    </tr>
                </thead>
                <tbody class="divide-y divide-slate-100">
                    <For each=move || visible.get() key=|s| (s.server.id.clone(), s.status, s.stale) let:item>
                        <ServerRow item/>
                    </For>
                </tbody>
            </table>
        </div>
    }
    .into_any()
}

#[component]
fn ServerRow(
    /// The server and its verdict.
    item: ServerListItem,
) -> impl IntoView {
    let ServerListItem {
        server,
        status,
        stale,
    } = item;
    // "No data" already says the agent is silent; the badge flags stale
    // evidence behind any other status.
    let badge = (stale && status != ServerStatus::NoData).then(|| view! { <StaleBadge/> });
    let verifier = use_lang().ui(Ui::Verifier);
    let role = server.verifier.then(|| view! {
        <span class="inline-flex items-center rounded-md bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-800">{verifier}</span>
    });
    view! {
        <tr class="align-top hover:bg-slate-50">
            <th scope="row" class="px-4 py-3 font-medium text-slate-900">
                <a href=format!("/servers/{}", server.id) class="hover:underline focus:underline">{server.name}</a>
                <span class="block font-mono text-xs font-normal text-slate-500">{server.id.to_string()}</span>
            </th>
            <td class="px-4 py-3">
                <span class="inline-flex items-center gap-2"><StatusDot status/>{badge}</span>
            </td>
            <td class="px-4 py-3"><Chip text=server.country/></td>
            <td class="px-4 py-3">
                <div class="flex flex-wrap gap-1">
                    {server.routes.into_iter().map(|r| view! { <Chip text=r.to_string()/> }).collect_view()}
                </div>
            </td>
            <td class="px-4 py-3">
                <ul class="space-y-1">
                    {server.entry_points.into_iter().map(|e| view! {
                        <li class="font-mono text-xs text-slate-700">
                            <span class="font-sans font-medium">{e.protocol.to_string()}</span>
                            " "{format!("{}:{}", e.host, e.port)}
                        </li>
                    }).collect_view()}
                </ul>
            </td>
            <td class="px-4 py-3">{role}</td>
        </tr>
    }
}
