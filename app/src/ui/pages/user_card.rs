//! The user card: each of the user's servers with its status dot and, when
//! something is wrong, the caption in the product's wording; where it stands
//! in the subscription (serving, out of rotation with its replacement or
//! the route's best available, standing in for another); the subscription
//! link (copy button, QR code) and what the subscription serves right now.

use crate::lang::use_lang;
use crate::live::LiveRegion;
use crate::preload;
use crate::ui::components::{Chip, CopyButton, ErrorNote, StaleBadge, StatusDot};
use crate::ui::frame::Frame;
use crate::ui::memo::{joined, RenderMemo};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use meshwatch::ids::ServerId;
use meshwatch::status::ServerStatus;
use meshwatch_views::i18n::{Lang, Ui};
use meshwatch_views::views::{PreviewEntry, UserCard, UserRoute, UserServer};
use std::sync::LazyLock;

const SECTION: &str = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
const HEADING: &str = "text-sm font-semibold uppercase tracking-wide text-slate-500";

#[component]
pub fn UserCardPage() -> impl IntoView {
    let lang = use_lang();
    let card = match preload::take::<UserCard>() {
        Ok(card) => Either::Left(view! { <Card card/> }),
        Err(error) => Either::Right(view! {
            <Title text=lang.ui(Ui::User)/>
            <div class="mt-6"><ErrorNote error/></div>
        }),
    };
    view! {
        <Frame>
            <nav aria-label=lang.ui(Ui::Breadcrumb) class="text-sm text-slate-500">
                <a href="/users" class="hover:underline">{lang.ui(Ui::Users)}</a>
            </nav>
            {card}
        </Frame>
    }
}

#[component]
fn Card(card: UserCard) -> impl IntoView {
    let lang = use_lang();
    let title = card.user.name.clone();
    view! {
        <Title text=title/>
        <header class="mt-2">
            <h1 class="text-2xl font-semibold tracking-tight">{card.user.name.clone()}</h1>
            <p class="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-500">
                <span class="font-mono">{card.user.id.to_string()}</span>
                {card.user.routes.iter().map(|r| view! { <Chip text=r.to_string()/> }).collect_view()}
            </p>
        </header>
        <div class="mt-6 grid gap-6 lg:grid-cols-3">
            <section class=format!("{SECTION} lg:col-span-2") aria-labelledby="user-servers">
                <h2 id="user-servers" class=HEADING>{lang.ui(Ui::Servers)}</h2>
                <LiveRegion key="user-servers">
                    {card.routes.into_iter().map(|route| view! { <RouteServers route/> }).collect_view()}
                </LiveRegion>
            </section>
            <Subscription url=card.subscription_url qr=card.qr_image/>
        </div>
        <LiveRegion key="preview">
            <Preview entries=card.preview/>
        </LiveRegion>
    }
}

#[component]
fn RouteServers(route: UserRoute) -> impl IntoView {
    let lang = use_lang();
    let warning = route.best_available.then(|| view! {
        <p role="note" class="mt-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            {lang.ui(Ui::RouteAllOutOfRotation)}
        </p>
    });
    view! {
        <div class="mt-4">
            <h3 class="text-sm font-medium text-slate-700">{lang.route_heading(&route.route)}</h3>
            {warning}
            <ul class="mt-2 divide-y divide-slate-100" inner_html=lines(&route.servers, lang)></ul>
        </div>
    }
}

/// Server lines kept (a server and a language each, with a few placements).
const MAX_LINES: usize = 32_768;

static LINES: LazyLock<RenderMemo<(Lang, ServerId), UserServer>> =
    LazyLock::new(|| RenderMemo::new(MAX_LINES));

/// A route's lines: a line is drawn once per server, language, state and
/// placement, whichever user's card shows it.
fn lines(servers: &[UserServer], lang: Lang) -> String {
    joined(servers.iter().map(|s| {
        LINES.html(
            (lang, s.server.id.clone()),
            s,
            |s| view! { <ServerLine s/> },
        )
    }))
}

/// One server: dot, name, and the caption when something is wrong.
#[component]
fn ServerLine(s: UserServer) -> impl IntoView {
    let lang = use_lang();
    let count =
        (s.status == ServerStatus::Unreachable).then(|| lang.unreachable_count(s.failing, s.of));
    let blocked_where = s
        .blocked_where
        .as_ref()
        .map(|p| lang.blocked_where(&p.blocked_on, &p.still_reached_from));
    let stale = (s.stale && s.status != ServerStatus::NoData).then(|| view! { <StaleBadge/> });
    let place = lang.placement(&s.placement);
    view! {
        <li class="flex flex-wrap items-start gap-x-4 gap-y-1 py-2 text-sm" data-testid="user-server">
            <a href=format!("/servers/{}", s.server.id) class="min-w-40 font-medium text-slate-900 hover:underline">
                {format!("{} ({})", s.server.name, s.server.country)}
            </a>
            <span class="flex flex-col">
                <span class="inline-flex items-center gap-2"><StatusDot status=s.status/>{stale}</span>
                {count.map(|c| view! { <span class="text-slate-600">{c}</span> })}
                {blocked_where.map(|w| view! { <span class="text-slate-600" data-testid="blocked-where">{w}</span> })}
                {s.block_kinds.iter().map(|k| view! {
                    <span class="text-slate-600" data-testid="block-kind" data-kind=k.as_str()>{lang.block_kind(*k)}</span>
                }).collect::<Vec<_>>()}
            </span>
            <span class="ml-auto flex flex-col text-right text-slate-500">
                <span>{place.headline}</span>
                {place.detail.map(|d| view! { <span class="text-xs text-slate-600">{d}</span> })}
            </span>
        </li>
    }
}

#[component]
fn Subscription(url: Option<String>, qr: Option<String>) -> impl IntoView {
    let lang = use_lang();
    let Some(url) = url else {
        return Either::Left(view! {
            <section class=SECTION aria-labelledby="subscription">
                <h2 id="subscription" class=HEADING>{lang.ui(Ui::Subscription)}</h2>
                <p class="mt-3 text-sm text-slate-600">
                    {lang.ui(Ui::NoSubscriptionToken)}
                </p>
            </section>
        });
    };
    Either::Right(view! {
        <section class=SECTION aria-labelledby="subscription">
            <h2 id="subscription" class=HEADING>{lang.ui(Ui::Subscription)}</h2>
            <label for="subscription-link" class="mt-3 block text-sm text-slate-600">{lang.ui(Ui::SubscriptionLink)}</label>
            <div class="mt-1 flex gap-2">
                <input id="subscription-link" readonly value=url.clone()
                    class="min-w-0 flex-1 rounded-md border border-slate-300 bg-slate-50 px-2 py-1 font-mono text-xs"/>
                <CopyButton text=url.clone() copy=lang.ui(Ui::Copy) copied=lang.ui(Ui::Copied)/>
            </div>
            {qr.map(|src| view! {
                <figure class="mt-4">
                    <img src=src alt=lang.ui(Ui::SubscriptionQr) width="176" height="176" class="mx-auto size-44"/>
                </figure>
            })}
        </section>
    })
}

#[component]
fn Preview(entries: Vec<PreviewEntry>) -> impl IntoView {
    let lang = use_lang();
    view! {
        <section class=format!("{SECTION} mt-6") aria-labelledby="preview">
            <h2 id="preview" class=HEADING>{lang.ui(Ui::WhatSubscriptionServes)}</h2>
            {if entries.is_empty() {
                Either::Left(view! { <p class="mt-3 text-sm text-slate-500">{lang.ui(Ui::NothingServed)}</p> })
            } else {
                Either::Right(view! {
                    <ol class="mt-3 space-y-1 text-sm" data-testid="subscription-preview">
                        {entries.into_iter().map(|e| view! {
                            <li class="flex flex-wrap gap-x-3">
                                <span class="font-medium">{e.server_name}</span>
                                <span class="text-slate-500">{format!("{} {}:{}", e.entry_point.protocol, e.entry_point.host, e.entry_point.port)}</span>
                                {e.marked.then(|| view! { <span class="text-amber-700">{lang.ui(Ui::ServedLast)}</span> })}
                            </li>
                        }).collect_view()}
                    </ol>
                })
            }}
        </section>
    }
}
