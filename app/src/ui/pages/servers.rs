//! The servers list, 100 servers a page, filtered on the panel by the
//! address (`?q=`, `?status=`, `?country=`, `?route=`, `?page=`), so it
//! works without JavaScript and stays as fast at 3000 servers as at 10.
//! Hydrated, the `ServerFilters` island filters the rows the page has at
//! once, as the operator types, with the same rule
//! (`meshwatch_views::server_list::ServerFilter`), then asks the panel for the
//! filter's first page and swaps it in.

use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{EmptyState, ErrorNote, Pager, StaleBadge, StatusDot};
use crate::ui::frame::Frame;
use crate::ui::memo::{joined, RenderMemo};
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::ids::ServerId;
use meshwatch::status::ServerStatus;
use meshwatch_views::i18n::{Lang, Slotted, Ui};
use meshwatch_views::server_list::{ServerFilter, ServersPage};
use meshwatch_views::views::ServerListItem;
use std::sync::{Arc, LazyLock};

#[component]
pub fn ServersPage() -> impl IntoView {
    let lang = use_lang();
    let list = match preload::take::<ServersPage>() {
        Ok(page) if page.fleet == 0 => view! {
            <div class="mt-6">
                <EmptyState title=lang.ui(Ui::NoServersYet) hint=lang.ui(Ui::ProvisionFleetHint)/>
            </div>
        }
        .into_any(),
        Ok(page) => view! { <ServersList page/> }.into_any(),
        Err(error) => view! { <div class="mt-6"><ErrorNote error/></div> }.into_any(),
    };
    view! {
        <Title text=lang.ui(Ui::Servers)/>
        <Frame>
            <h1 class="text-2xl font-semibold tracking-tight">{lang.ui(Ui::Servers)}</h1>
            {list}
        </Frame>
    }
}

/// The values each facet offers: (value, label) for statuses, the fleet's
/// countries and routes.
#[derive(Debug, Clone, Default)]
pub struct FacetOptions {
    statuses: Vec<(String, String)>,
    countries: Vec<String>,
    routes: Vec<String>,
}

impl FacetOptions {
    fn of(page: &ServersPage, lang: Lang) -> Self {
        FacetOptions {
            statuses: ServerStatus::ALL
                .iter()
                .map(|s| (s.as_str().to_owned(), lang.status(*s).to_owned()))
                .collect(),
            countries: page.countries.clone(),
            routes: page.routes.iter().map(|r| r.to_string()).collect(),
        }
    }
}

/// The filter as the pager's links carry it.
fn filter_params(filter: &ServerFilter) -> Vec<(&'static str, String)> {
    vec![
        ("q", filter.text.clone()),
        ("status", filter.status.clone()),
        ("country", filter.country.clone()),
        ("route", filter.route.clone()),
    ]
}

#[component]
fn ServersList(
    /// The page of servers the filter in the address admits.
    page: ServersPage,
) -> impl IntoView {
    let lang = use_lang();
    let showing = lang.showing_servers_of(page.fleet as usize);
    let options = FacetOptions::of(&page, lang);
    let ServersPage {
        servers,
        filter,
        matched,
        page,
        pages,
        ..
    } = page;
    let params = filter_params(&filter);
    let empty = servers.is_empty().then(|| {
        view! { <p class="px-4 py-6 text-sm text-slate-500">{lang.ui(Ui::NoServerMatches)}</p> }
    });
    let rows = rows(servers, lang, &filter, page);
    view! {
        <ServerFilters lang filter options shown=matched as usize showing/>
        // The region the filter and the live refresh swap: rows, pager and
        // how many servers the filter admits.
        <LiveRegion key="servers">
            <div data-servers-matched=matched.to_string()>
                <div class="mt-6 overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm" tabindex="0" role="region" aria-label=lang.ui(Ui::Servers)>
                    <table class="sl min-w-full divide-y divide-slate-200 text-left text-sm">
                        <caption class="sr-only">{lang.ui(Ui::Servers)}</caption>
                        <thead class="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                            <tr>
                                <th scope="col">{lang.ui(Ui::Server)}</th>
                                <th scope="col">{lang.ui(Ui::Status)}</th>
                                <th scope="col">{lang.ui(Ui::Country)}</th>
                                <th scope="col">{lang.ui(Ui::Routes)}</th>
                                <th scope="col">{lang.ui(Ui::EntryPoints)}</th>
                                <th scope="col">{lang.ui(Ui::Role)}</th>
                            </tr>
                        </thead>
                        <tbody class="divide-y divide-slate-100" inner_html=rows></tbody>
                    </table>
                    {empty}
                </div>
                {(pages > 1).then(|| view! { <Pager page pages path="/" params/> })}
            </div>
        </LiveRegion>
    }
}

/// The filter form's id, its text field's, and its count's.
const FILTER_FORM: &str = "server-filters";
const TEXT_FIELD: &str = "server-filter";
const SHOWN_COUNT: &str = "servers-shown";

/// A facet's field id.
fn facet_id(name: &str) -> String {
    format!("facet-{name}")
}

/// The search box and the facets: a plain GET form (the panel filters);
/// hydrated ([`FilterAsYouType`]), every keystroke and choice filters the
/// rows on the page at once, then the filter's first page comes from the
/// panel (the rows on other pages too) and the address follows, so a
/// reload or a shared link shows the same.
#[component]
fn ServerFilters(
    lang: Lang,
    filter: ServerFilter,
    options: FacetOptions,
    /// Servers the filter admits now.
    shown: usize,
    /// "Showing … of 10 servers", in its form for the fleet's size.
    showing: Slotted,
) -> impl IntoView {
    let facet = move |name: &'static str,
                      label: Ui,
                      chosen: String,
                      options: Vec<(String, String)>| {
        let id = facet_id(name);
        view! {
            <div>
                <label for=id.clone() class="block text-xs font-medium text-slate-600">{lang.ui(label)}</label>
                <select id=id name=name class="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm">
                    <option value="" selected=chosen.is_empty()>{lang.ui(Ui::Any)}</option>
                    {options.into_iter().map(|(value, text)| {
                        let selected = value == chosen;
                        view! { <option value=value selected=selected>{text}</option> }
                    }).collect_view()}
                </select>
            </div>
        }
    };
    let pairs = |v: Vec<String>| v.into_iter().map(|x| (x.clone(), x)).collect::<Vec<_>>();
    let count = showing.fill(lang, shown as u64);
    let (before, after) = showing.parts();
    let (before, after) = (before.to_owned(), after.to_owned());
    let (before_one, after_one) = showing
        .one_parts()
        .map(|(b, a)| (b.to_owned(), a.to_owned()))
        .unzip();
    view! {
        <FilterAsYouType>
            <form id=FILTER_FORM method="get" role="search" aria-label=lang.ui(Ui::FilterFacets)
                class="mt-4 flex flex-wrap items-end gap-3">
                <div class="w-full sm:w-80">
                    <label for=TEXT_FIELD class="block text-sm font-medium text-slate-700">{lang.ui(Ui::FilterServers)}</label>
                    <input id=TEXT_FIELD name="q" type="search" value=filter.text.clone()
                        placeholder=lang.ui(Ui::ServerFilterPlaceholder)
                        class="mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200"/>
                </div>
                {facet("status", Ui::Status, filter.status.clone(), options.statuses)}
                {facet("country", Ui::Country, filter.country.clone(), pairs(options.countries))}
                {facet("route", Ui::Route, filter.route.clone(), pairs(options.routes))}
                <button type="submit" class="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">{lang.ui(Ui::ApplyFilters)}</button>
            </form>
            // The browser writes the count into the same words.
            <p id=SHOWN_COUNT class="mt-1 text-sm text-slate-500" aria-live="polite"
                data-lang=lang.code() data-before=before data-after=after
                data-before-one=before_one data-after-one=after_one>
                {count}
            </p>
        </FilterAsYouType>
    }
}

/// Makes the filter form in its children filter as the operator types. It
/// takes no props (it reads the filter from the form's fields and the
/// count's words from its element): the islands' WASM then decodes no JSON.
#[island]
fn FilterAsYouType(children: Children) -> impl IntoView {
    // Effects run only in the browser.
    Effect::new(move |_| browser::attach());
    children()
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::{facet_id, filter_params, FILTER_FORM, SHOWN_COUNT, TEXT_FIELD};
    use meshwatch_views::i18n::{Lang, Slotted};
    use meshwatch_views::server_list::{FilterKeys, ServerFilter};
    use std::cell::Cell;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::{Document, Event, EventTarget, HtmlInputElement, HtmlSelectElement};

    thread_local! {
        /// The latest filter asked of the panel: an answer to an older one
        /// is dropped.
        static ASKED: Cell<u64> = const { Cell::new(0) };
    }

    fn document() -> Option<Document> {
        web_sys::window().and_then(|w| w.document())
    }

    /// Filters as the form's fields change and when it is sent, and again
    /// after the live refresh redrew the rows.
    pub fn attach() {
        let Some(document) = document() else {
            return;
        };
        let Some(form) = document.get_element_by_id(FILTER_FORM) else {
            return;
        };
        // Typing and choosing a facet both fire `input` on the form.
        listen(&form, "input", |_| filter(&read_filter()));
        listen(&form, "submit", |event| {
            event.prevent_default();
            filter(&read_filter());
        });
        listen(&document, crate::live::REFRESHED_EVENT, |_| {
            refreshed(&read_filter())
        });
    }

    /// Calls `f` on every `name` event at `target`, as long as the page lives.
    fn listen(target: &EventTarget, name: &str, f: impl Fn(Event) + 'static) {
        let callback = Closure::<dyn Fn(Event)>::new(f);
        let _ = target.add_event_listener_with_callback(name, callback.as_ref().unchecked_ref());
        callback.forget();
    }

    /// The filter the form's fields hold now.
    fn read_filter() -> ServerFilter {
        let value = |id: &str| {
            let field = document().and_then(|d| d.get_element_by_id(id));
            match field {
                Some(f) if f.is_instance_of::<HtmlInputElement>() => {
                    f.unchecked_into::<HtmlInputElement>().value()
                }
                Some(f) if f.is_instance_of::<HtmlSelectElement>() => {
                    f.unchecked_into::<HtmlSelectElement>().value()
                }
                _ => String::new(),
            }
        };
        ServerFilter {
            text: value(TEXT_FIELD),
            status: value(&facet_id("status")),
            country: value(&facet_id("country")),
            route: value(&facet_id("route")),
        }
    }

    /// Writes `n` into "Showing … of 10 servers".
    fn show_count(n: usize) {
        let Some(count) = document().and_then(|d| d.get_element_by_id(SHOWN_COUNT)) else {
            return;
        };
        let read = |name: &str| count.get_attribute(name).unwrap_or_default();
        let lang = Lang::from_code(&read("data-lang")).unwrap_or_default();
        let one = count
            .get_attribute("data-before-one")
            .map(|before| (before, read("data-after-one")));
        let words = Slotted::from_parts(read("data-before"), read("data-after"), one);
        count.set_text_content(Some(&words.fill(lang, n as u64)));
    }

    /// Filters the rows on the page at once, then (after a short pause, so
    /// typing asks once) shows the filter's first page from the panel.
    fn filter(filter: &ServerFilter) {
        show_count(filter_rows(filter));
        let address = crate::ui::format::list_address("/", &filter_params(filter), 1);
        remember(&address);
        let asked = ASKED.with(|a| {
            a.set(a.get() + 1);
            a.get()
        });
        let latest = move || ASKED.with(Cell::get) == asked;
        leptos::task::spawn_local(async move {
            crate::live::pause(PAUSE_MS).await;
            if !latest() {
                return;
            }
            match crate::live::fetch_page(&address).await {
                Ok(Some(fresh)) if latest() => {
                    if let Err(error) = crate::live::swap_regions(&fresh) {
                        leptos::logging::warn!("servers filter: {error:?}");
                    }
                    if let Some(matched) = matched_in_page() {
                        show_count(matched);
                    }
                }
                Ok(_) => {}
                Err(error) => leptos::logging::warn!("servers filter: {error:?}"),
            }
        });
    }

    /// After the live refresh redrew the rows: filtered again, and counted
    /// as the panel counted them.
    fn refreshed(filter: &ServerFilter) {
        let on_page = filter_rows(filter);
        show_count(matched_in_page().unwrap_or(on_page));
    }

    /// How long typing must pause before the panel is asked.
    const PAUSE_MS: i32 = 150;

    /// Hides the rows on the page `filter` does not admit; how many are
    /// left.
    fn filter_rows(filter: &ServerFilter) -> usize {
        let Some(document) = document() else {
            return 0;
        };
        let Ok(rows) = document.query_selector_all("tr[data-filter-text]") else {
            return 0;
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
        count
    }

    /// How many servers the page's region says its filter admits.
    fn matched_in_page() -> Option<usize> {
        document()
            .and_then(|d| d.query_selector("[data-servers-matched]").ok().flatten())
            .and_then(|e| e.get_attribute("data-servers-matched"))
            .and_then(|n| n.parse().ok())
    }

    fn remember(address: &str) {
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(address));
        }
    }
}

#[cfg(not(feature = "hydrate"))]
mod browser {
    pub fn attach() {}
}

/// Rows kept (a server and a language each).
const MAX_ROWS: usize = 32_768;

static ROWS: LazyLock<RenderMemo<(Lang, ServerId), ServerListItem>> =
    LazyLock::new(|| RenderMemo::new(MAX_ROWS));

/// Pages of rows kept (a language, filter and page each; about 54 KB a
/// page), one version each: a page whose servers change seldom shows the
/// earlier ones again.
const MAX_PAGES_OF_ROWS: usize = 256;

static PAGES_OF_ROWS: LazyLock<RenderMemo<(Lang, ServerFilter, u32), Vec<ServerListItem>>> =
    LazyLock::new(|| RenderMemo::with_variants(MAX_PAGES_OF_ROWS, 1));

/// The page's rows, kept whole while the page shows the same servers in
/// the same states; otherwise joined from rows each drawn once per server,
/// language and state.
fn rows(servers: Vec<ServerListItem>, lang: Lang, filter: &ServerFilter, page: u32) -> Arc<str> {
    PAGES_OF_ROWS.markup((lang, filter.clone(), page), &servers, |servers| {
        joined(servers.iter().map(|item| {
            ROWS.html((lang, item.server.id.clone()), item, |item| {
                view! { <ServerRow item lang/> }
            })
        }))
    })
}

#[component]
fn ServerRow(
    /// The server and its verdict.
    item: ServerListItem,
    lang: Lang,
) -> impl IntoView {
    // Written into the row, so the browser filters with the panel's rule.
    let keys = item.filter_keys();
    let ServerListItem {
        server,
        status,
        stale,
    } = item;
    // "No data" already says the agent is silent; the badge flags stale
    // evidence behind any other status.
    let badge = (stale && status != ServerStatus::NoData).then(|| view! { <StaleBadge/> });
    let role = server
        .verifier
        .then(|| view! { <span class="role">{lang.ui(Ui::Verifier)}</span> });
    // The list's cells are styled by the table's class (`sl`, in the
    // stylesheet): a hundred rows carry no utility classes.
    view! {
        <tr data-filter-text=keys.text data-filter-status=keys.status
            data-filter-country=keys.country data-filter-routes=keys.routes>
            <th scope="row">
                <a href=format!("/servers/{}", server.id)>{server.name.clone()}</a>
                <span class="id">{server.id.to_string()}</span>
            </th>
            <td><StatusDot status/>{badge}</td>
            <td><span class="chip">{server.country.clone()}</span></td>
            <td>{server.routes.iter().map(|r| view! { <span class="chip">{r.to_string()}</span> }).collect_view()}</td>
            <td>
                {server.entry_points.iter().map(|e| view! {
                    <span class="ep"><b>{e.protocol.to_string()}</b>" "{format!("{}:{}", e.host, e.port)}</span>
                }).collect_view()}
            </td>
            <td>{role}</td>
        </tr>
    }
}
