//! Live verdicts: once hydrated, the page listens to `/events` (server-sent
//! events from the engine) and bumps a version signal on every verdict
//! change; the pages' resources depend on it, so dots, captions and badges
//! are refetched and redrawn in place without a reload. The browser
//! reconnects a dropped stream by itself; every (re)open bumps the version
//! too, so whatever changed while disconnected is fetched.

use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct Live {
    version: RwSignal<u64>,
    connected: RwSignal<bool>,
    started: StoredValue<bool>,
}

/// Called once by the app root.
pub fn provide_live() {
    provide_context(Live {
        version: RwSignal::new(0),
        connected: RwSignal::new(false),
        started: StoredValue::new(false),
    });
}

/// Called by the signed-in frame: opens the stream once per page load
/// (the sign-in page has no session to stream with).
pub fn listen() {
    let Some(live) = use_context::<Live>() else {
        return;
    };
    // Effects run only in the browser.
    Effect::new(move |_| {
        if !live.started.get_value() {
            live.started.set_value(true);
            connect(live);
        }
    });
}

/// The change counter, tracked: a resource that reads it refetches on
/// every verdict change.
pub fn live_version() -> u64 {
    use_context::<Live>().map_or(0, |live| live.version.get())
}

/// Whether the event stream is open (for the header's indicator).
pub fn live_connected() -> bool {
    use_context::<Live>().is_some_and(|live| live.connected.get())
}

#[cfg(feature = "hydrate")]
fn connect(live: Live) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Ok(source) = web_sys::EventSource::new("/events") else {
        return;
    };
    let bump = Closure::<dyn Fn(web_sys::Event)>::new(move |_| live.version.update(|v| *v += 1));
    let opened = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        live.connected.set(true);
        live.version.update(|v| *v += 1);
    });
    let dropped = Closure::<dyn Fn(web_sys::Event)>::new(move |_| live.connected.set(false));
    for (name, callback) in [
        ("verdict", &bump),
        ("resync", &bump),
        ("open", &opened),
        ("error", &dropped),
    ] {
        let _ = source.add_event_listener_with_callback(name, callback.as_ref().unchecked_ref());
    }
    // The stream lives as long as the page.
    bump.forget();
    opened.forget();
    dropped.forget();
    std::mem::forget(source);
}

#[cfg(not(feature = "hydrate"))]
fn connect(_: Live) {}
