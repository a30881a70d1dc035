//! Live verdicts without shipping the pages to the browser. Pages are
//! rendered on the server only; the [`LiveIndicator`] island in the header
//! listens to `/events` (server-sent events from the engine) and, on every
//! verdict change — and on every (re)connect, to catch what changed while
//! the stream was down — fetches the same page again and swaps each
//! [`LiveRegion`] whose HTML changed. Dots, captions and badges are thus
//! redrawn in place by the very code that drew them first; open entry
//! points, focus and whatever the operator has typed, ticked or chosen in
//! a form inside a region (by the field's id) are kept.

use leptos::prelude::*;

/// Sent with the live refresh's page request, so that fetching the page in
/// the background does not consume a form's one-time outcome.
pub const REFRESH_HEADER: &str = "x-meshwatch-refresh";

/// Dispatched on `document` after a refresh swapped regions (the servers
/// filter applies itself again to the fresh rows).
pub const REFRESHED_EVENT: &str = "meshwatch:refreshed";

/// A part of a page the live refresh replaces; `key` is unique on the page.
#[component]
pub fn LiveRegion<C: IntoView + 'static>(
    key: &'static str,
    children: TypedChildren<C>,
) -> impl IntoView {
    view! { <div data-live-region=key>{children.into_inner()()}</div> }
}

/// The header's "Live" / "Not live" indicator, and the stream behind it.
/// `data-hydrated` tells tests (and the curious) that the page's islands run.
#[component]
pub fn LiveIndicator(
    /// "Live" in the page's language.
    on: &'static str,
    /// "Not live" in the page's language.
    off: &'static str,
) -> impl IntoView {
    // Both words are rendered on the panel; `data-live` shows one.
    view! {
        <LiveStream>
            <span class="group-data-[live=off]:hidden">{on}</span>
            <span class="group-data-[live=on]:hidden">{off}</span>
        </LiveStream>
    }
}

/// The indicator's island. It takes no props (its words come as children,
/// rendered on the panel): the islands' WASM then decodes no JSON.
#[island]
fn LiveStream(children: Children) -> impl IntoView {
    let connected = RwSignal::new(false);
    let hydrated = RwSignal::new(false);
    // Effects run only in the browser.
    Effect::new(move |_| {
        hydrated.set(true);
        browser::listen(connected);
    });
    view! {
        <span class="group inline-flex items-center gap-1.5 text-xs" data-testid="live"
            data-live=move || if connected.get() { "on" } else { "off" }
            data-hydrated=move || if hydrated.get() { "true" } else { "false" }>
            <span aria-hidden="true" class=move || if connected.get() {
                "inline-block size-2 rounded-full bg-emerald-500"
            } else {
                "inline-block size-2 rounded-full bg-slate-300"
            }></span>
            {children()}
        </span>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::{REFRESHED_EVENT, REFRESH_HEADER};
    use leptos::prelude::*;
    use std::cell::Cell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        Document, Element, HtmlElement, HtmlInputElement, HtmlOptionElement, HtmlSelectElement,
        HtmlTextAreaElement,
    };

    /// Opens the stream (the browser reconnects a dropped one by itself).
    pub fn listen(connected: RwSignal<bool>) {
        let Ok(source) = web_sys::EventSource::new("/events") else {
            return;
        };
        let refresh = Rc::new(Refresh::default());
        let changed = {
            let refresh = refresh.clone();
            Closure::<dyn Fn(web_sys::Event)>::new(move |_| refresh.request())
        };
        let opened = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
            connected.set(true);
            refresh.request();
        });
        let dropped = Closure::<dyn Fn(web_sys::Event)>::new(move |_| connected.set(false));
        for (name, callback) in [
            ("verdict", &changed),
            ("resync", &changed),
            ("open", &opened),
            ("error", &dropped),
        ] {
            let _ =
                source.add_event_listener_with_callback(name, callback.as_ref().unchecked_ref());
        }
        // The stream lives as long as the page.
        changed.forget();
        opened.forget();
        dropped.forget();
        std::mem::forget(source);
    }

    /// One refresh at a time; changes arriving meanwhile make one more.
    #[derive(Default)]
    struct Refresh {
        running: Cell<bool>,
        again: Cell<bool>,
    }

    impl Refresh {
        fn request(self: &Rc<Self>) {
            if self.running.replace(true) {
                self.again.set(true);
                return;
            }
            let this = self.clone();
            leptos::task::spawn_local(async move {
                loop {
                    this.again.set(false);
                    if let Err(error) = refresh_page().await {
                        leptos::logging::warn!("live refresh failed: {error:?}");
                    }
                    if !this.again.get() {
                        break;
                    }
                }
                this.running.set(false);
            });
        }
    }

    async fn refresh_page() -> Result<(), JsValue> {
        let window = web_sys::window().ok_or("no window")?;
        let Some(fresh) = fetch_page(&window.location().href()?).await? else {
            return Ok(());
        };
        swap_regions(&fresh)?;
        let page = window.document().ok_or("no document")?;
        page.dispatch_event(&web_sys::Event::new(REFRESHED_EVENT)?)?;
        Ok(())
    }

    /// The page at `href` as the panel renders it now, parsed; `None` when
    /// it is not there to show (signed out meanwhile — sent to the sign-in
    /// page: what is shown stays, the next navigation asks to sign in).
    pub async fn fetch_page(href: &str) -> Result<Option<Document>, JsValue> {
        let window = web_sys::window().ok_or("no window")?;
        let headers = web_sys::Headers::new()?;
        headers.set(REFRESH_HEADER, "1")?;
        headers.set("accept", "text/html")?;
        let init = web_sys::RequestInit::new();
        init.set_headers(&headers);
        let response: web_sys::Response =
            JsFuture::from(window.fetch_with_str_and_init(href, &init))
                .await?
                .dyn_into()?;
        if !response.ok() || response.redirected() {
            return Ok(None);
        }
        let html = JsFuture::from(response.text()?)
            .await?
            .as_string()
            .unwrap_or_default();
        let fresh = web_sys::DomParser::new()?
            .parse_from_string(&html, web_sys::SupportedType::TextHtml)?;
        Ok(Some(fresh))
    }

    /// Waits `ms` milliseconds.
    pub async fn pause(ms: i32) {
        let wait = web_sys::js_sys::Promise::new(&mut |resolve, _| {
            if let Some(window) = web_sys::window() {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
            }
        });
        let _ = JsFuture::from(wait).await;
    }

    /// Swaps each region of the page whose HTML differs in `fresh`.
    pub fn swap_regions(fresh: &Document) -> Result<(), JsValue> {
        let page = web_sys::window()
            .and_then(|w| w.document())
            .ok_or("no document")?;
        let regions = page.query_selector_all("[data-live-region]")?;
        for i in 0..regions.length() {
            let Some(old) = regions.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let Some(key) = old.get_attribute("data-live-region") else {
                continue;
            };
            let Some(new) = fresh.query_selector(&format!("[data-live-region=\"{key}\"]"))? else {
                continue;
            };
            let html = new.inner_html();
            if html == old.inner_html() {
                continue;
            }
            let open = ids_of(&old, "details[open][id]")?;
            let edits = edits_in(&old)?;
            let focused = page
                .active_element()
                .filter(|e| old.contains(Some(e)))
                .map(|e| e.id())
                .filter(|id| !id.is_empty());
            old.set_inner_html(&html);
            for id in open {
                if let Some(details) = page.get_element_by_id(&id) {
                    details.set_attribute("open", "")?;
                }
            }
            for (id, edit) in edits {
                if let Some(field) = page.get_element_by_id(&id) {
                    edit.put_back(field);
                }
            }
            if let Some(element) = focused
                .and_then(|id| page.get_element_by_id(&id))
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
            {
                let _ = element.focus();
            }
        }
        Ok(())
    }

    /// What the operator changed in one field since the page drew it.
    enum Edit {
        Text(String),
        Checked(bool),
    }

    impl Edit {
        fn put_back(self, field: Element) {
            match self {
                Edit::Checked(on) => {
                    if let Ok(input) = field.dyn_into::<HtmlInputElement>() {
                        input.set_checked(on);
                    }
                }
                Edit::Text(value) => {
                    let field = match field.dyn_into::<HtmlInputElement>() {
                        Ok(input) => return input.set_value(&value),
                        Err(other) => other,
                    };
                    let field = match field.dyn_into::<HtmlTextAreaElement>() {
                        Ok(area) => return area.set_value(&value),
                        Err(other) => other,
                    };
                    if let Ok(select) = field.dyn_into::<HtmlSelectElement>() {
                        select.set_value(&value);
                    }
                }
            }
        }
    }

    /// The fields under `root` (by id) whose value or check differs from
    /// what the page drew: a refresh redraws them as drawn, so these are
    /// put back afterwards. Untouched fields take the fresh page's value.
    fn edits_in(root: &Element) -> Result<Vec<(String, Edit)>, JsValue> {
        let fields = root.query_selector_all("input[id], textarea[id], select[id]")?;
        let mut edits = Vec::new();
        for field in (0..fields.length()).filter_map(|i| fields.item(i)) {
            let Ok(field) = field.dyn_into::<Element>() else {
                continue;
            };
            let id = field.id();
            let field = match field.dyn_into::<HtmlInputElement>() {
                Ok(input) => {
                    if matches!(input.type_().as_str(), "checkbox" | "radio") {
                        if input.checked() != input.default_checked() {
                            edits.push((id, Edit::Checked(input.checked())));
                        }
                    } else if input.value() != input.default_value() {
                        edits.push((id, Edit::Text(input.value())));
                    }
                    continue;
                }
                Err(other) => other,
            };
            let field = match field.dyn_into::<HtmlTextAreaElement>() {
                Ok(area) => {
                    if Ok(area.value()) != area.default_value() {
                        edits.push((id, Edit::Text(area.value())));
                    }
                    continue;
                }
                Err(other) => other,
            };
            if let Ok(select) = field.dyn_into::<HtmlSelectElement>() {
                if select.value() != drawn_choice(&select)? {
                    edits.push((id, Edit::Text(select.value())));
                }
            }
        }
        Ok(edits)
    }

    /// The option a `<select>` was drawn with: the one marked `selected`,
    /// else the first.
    fn drawn_choice(select: &HtmlSelectElement) -> Result<String, JsValue> {
        let option = match select.query_selector("option[selected]")? {
            Some(marked) => Some(marked),
            None => select.query_selector("option")?,
        };
        Ok(option
            .and_then(|o| o.dyn_into::<HtmlOptionElement>().ok())
            .map(|o| o.value())
            .unwrap_or_default())
    }

    fn ids_of(root: &Element, selector: &str) -> Result<Vec<String>, JsValue> {
        let found = root.query_selector_all(selector)?;
        Ok((0..found.length())
            .filter_map(|i| found.item(i))
            .filter_map(|n| n.dyn_into::<Element>().ok())
            .map(|e| e.id())
            .collect())
    }
}

#[cfg(feature = "hydrate")]
pub use browser::{fetch_page, pause, swap_regions};

#[cfg(not(feature = "hydrate"))]
mod browser {
    pub fn listen(_: leptos::prelude::RwSignal<bool>) {}
}
