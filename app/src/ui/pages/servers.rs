//! The servers list. The server renders every row and hides those the
//! filter in the address (`?q=`, `?status=`, `?country=`, `?route=`) does
//! not admit, so filtering works without JavaScript; the `ServerFilters`
//! island then filters the same rows as the operator types, with the same
//! rule (`meshwatch::views::ServerFilter`).

use crate::api::list_servers;
use crate::lang::use_lang;
use crate::ui::components::{Chip, EmptyState, ErrorNote, StaleBadge, StatusDot};
use crate::ui::frame::Frame;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use meshwatch::i18n::{Lang, Slotted, Ui};
use meshwatch::status::ServerStatus;
use meshwatch::views::{FilterKeys, ServerFilter, ServerListItem};
use serde::{Deserialize, Serialize};

#[component]
pub fn ServersPage() -> impl IntoView {
    let lang = use_lang();
    let servers = Resource::new(|| (), |_| list_servers());
    let query = use_query_map();
    let filter = query.with_untracked(|q| ServerFilter {
        text: q.get("q").unwrap_or_default(),
        status: q.get("status").unwrap_or_default(),
        country: q.get("country").unwrap_or_default(),
        route: q.get("route").unwrap_or_default(),
    });
    view! {
        <Title text=lang.ui(Ui::Servers)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Servers)}</h1>
            <Transition fallback=move || view! { <p class="mt-6 text-slate-500">{lang.ui(Ui::LoadingServers)}</p> }>
                {move || {
                    let filter = filter.clone();
                    Suspend::new(async move {
                        match servers.await {
                            Ok(list) if list.is_empty() => view! {
                                <div class="mt-6">
                                    <EmptyState title=lang.ui(Ui::NoServersYet) hint=lang.ui(Ui::ProvisionFleetHint)/>
                                </div>
                            }.into_any(),
                            Ok(list) => view! { <ServersTable servers=list filter/> }.into_any(),
                            Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
                        }
                    })
                }}
            </Transition>
        </Frame>
    }
}

/// The values each facet offers: (value, label) for statuses, the fleet's
/// countries and routes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FacetOptions {
    statuses: Vec<(String, String)>,
    countries: Vec<String>,
    routes: Vec<String>,
}

impl FacetOptions {
    fn of(servers: &[ServerListItem], lang: Lang) -> Self {
        let statuses = ServerStatus::ALL
            .iter()
            .map(|s| (s.as_str().to_owned(), lang.status(*s).to_owned()))
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
        FacetOptions {
            statuses,
            countries,
            routes,
        }
    }
}

#[component]
fn ServersTable(
    /// Every server with its verdict, sorted by id.
    servers: Vec<ServerListItem>,
    /// The filter from the address.
    filter: ServerFilter,
) -> impl IntoView {
    let lang = use_lang();
    let showing = lang.showing_servers_of(servers.len());
    let options = FacetOptions::of(&servers, lang);
    let rows: Vec<_> = servers
        .into_iter()
        .map(|item| {
            let keys = item.filter_keys();
            (filter.admits(&keys), keys, item)
        })
        .collect();
    let shown = rows.iter().filter(|(admitted, _, _)| *admitted).count();
    view! {
        <ServerFilters lang filter options shown showing/>
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
                // A live region (see `LiveRegion`), as a table allows no <div> here.
                <tbody class="divide-y divide-slate-100" data-live-region="servers">
                    {rows.into_iter().map(|(admitted, keys, item)| view! {
                        <ServerRow item hidden=!admitted keys/>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// The search box and the facets: a plain GET form (the server filters);
/// hydrated, every keystroke and choice filters the rendered rows at once
/// and the address follows, so a reload or a shared link shows the same.
#[island]
fn ServerFilters(
    lang: Lang,
    filter: ServerFilter,
    options: FacetOptions,
    /// Rows the filter admits now.
    shown: usize,
    /// "Showing … of 10 servers", in its form for the fleet's size.
    showing: Slotted,
) -> impl IntoView {
    let current = RwSignal::new(filter.clone());
    let shown = RwSignal::new(shown);
    let apply = move || browser::apply(current.get_untracked(), shown);
    // Rows redrawn by the live refresh are filtered again (effects run only
    // in the browser).
    Effect::new(move |_| {
        browser::on_refresh(move || browser::apply(current.get_untracked(), shown))
    });
    let any = lang.ui(Ui::Any);
    let facet = move |name: &'static str,
                      label: Ui,
                      chosen: String,
                      options: Vec<(String, String)>,
                      set: fn(&mut ServerFilter, String)| {
        let id = format!("facet-{name}");
        view! {
            <div>
                <label for=id.clone() class="block text-xs font-medium text-slate-600">{lang.ui(label)}</label>
                <select id=id name=name class="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
                    on:change=move |ev| { current.update(|f| set(f, event_target_value(&ev))); apply(); }>
                    <option value="" selected=chosen.is_empty()>{any}</option>
                    {options.into_iter().map(|(value, text)| {
                        let selected = value == chosen;
                        view! { <option value=value selected=selected>{text}</option> }
                    }).collect_view()}
                </select>
            </div>
        }
    };
    let pairs = |v: Vec<String>| v.into_iter().map(|x| (x.clone(), x)).collect::<Vec<_>>();
    view! {
        <form method="get" role="search" aria-label=lang.ui(Ui::FilterFacets)
            class="mt-4 flex flex-wrap items-end gap-3"
            on:submit=move |ev| { ev.prevent_default(); apply(); }>
            <div class="w-full sm:w-80">
                <label for="server-filter" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::FilterServers)}</label>
                <input id="server-filter" name="q" type="search" value=filter.text.clone()
                    placeholder=lang.ui(Ui::ServerFilterPlaceholder)
                    class="mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"
                    on:input=move |ev| { current.update(|f| f.text = event_target_value(&ev)); apply(); }/>
            </div>
            {facet("status", Ui::Status, filter.status.clone(), options.statuses, |f, v| f.status = v)}
            {facet("country", Ui::Country, filter.country.clone(), pairs(options.countries), |f, v| f.country = v)}
            {facet("route", Ui::Route, filter.route.clone(), pairs(options.routes), |f, v| f.route = v)}
            <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">{lang.ui(Ui::ApplyFilters)}</button>
        </form>
        <p class="mt-1 text-sm text-slate-500" aria-live="polite">
            {move || showing.fill(lang, shown.get() as u64)}
        </p>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::*;
    use meshwatch::views::{FilterKeys, ServerFilter};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    /// Hides the rows `filter` does not admit, counts the rest and puts
    /// the filter in the address.
    pub fn apply(filter: ServerFilter, shown: RwSignal<usize>) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(rows) = document.query_selector_all("tr[data-filter-text]") else {
            return;
        };
        let mut count = 0;
        for row in (0..rows.length()).filter_map(|i| rows.item(i)) {
            let Ok(row) = row.dyn_into::<web_sys::Element>() else {
                continue;
            };
            let key = |name: &str| row.get_attribute(name).unwrap_or_default();
            let keys = FilterKeys {
                text: key("data-filter-text"),
                status: key("data-filter-status"),
                country: key("data-filter-country"),
                routes: key("data-filter-routes"),
            };
            if filter.admits(&keys) {
                count += 1;
                let _ = row.remove_attribute("hidden");
            } else {
                let _ = row.set_attribute("hidden", "");
            }
        }
        shown.set(count);
        remember(&filter);
    }

    fn remember(filter: &ServerFilter) {
        let Ok(params) = web_sys::UrlSearchParams::new() else {
            return;
        };
        for (name, value) in [
            ("q", &filter.text),
            ("status", &filter.status),
            ("country", &filter.country),
            ("route", &filter.route),
        ] {
            if !value.is_empty() {
                params.append(name, value);
            }
        }
        let query = String::from(params.to_string());
        let url = if query.is_empty() {
            "/".to_owned()
        } else {
            format!("/?{query}")
        };
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }

    pub fn on_refresh(again: impl Fn() + 'static) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let callback = Closure::<dyn Fn(web_sys::Event)>::new(move |_| again());
        let _ = document.add_event_listener_with_callback(
            crate::live::REFRESHED_EVENT,
            callback.as_ref().unchecked_ref(),
        );
        callback.forget();
    }
}

#[cfg(not(feature = "hydrate"))]
mod browser {
    use leptos::prelude::RwSignal;
    use meshwatch::views::ServerFilter;

    pub fn apply(_: ServerFilter, _: RwSignal<usize>) {}
    pub fn on_refresh(_: impl Fn() + 'static) {}
}

#[component]
fn ServerRow(
    /// The server and its verdict.
    item: ServerListItem,
    /// Not admitted by the filter in the address.
    hidden: bool,
    /// What the browser's filter reads.
    keys: FilterKeys,
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
        <tr class="align-top hover:bg-slate-50" hidden=hidden
            data-filter-text=keys.text data-filter-status=keys.status
            data-filter-country=keys.country data-filter-routes=keys.routes>
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
