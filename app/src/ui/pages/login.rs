//! Sign-in: a plain form posted to `/login`, so it works before and
//! without hydration.

use crate::lang::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use meshwatch::account::MAX_USERNAME_LEN;
use meshwatch_views::i18n::Ui;

/// The message for the `error` query the login handler redirects with.
fn login_error_message(code: &str) -> Ui {
    match code {
        "locked" => Ui::LoginLocked,
        "busy" => Ui::LoginBusy,
        "cross_site" => Ui::LoginCrossSite,
        "missing" => Ui::LoginMissing,
        _ => Ui::LoginWrong,
    }
}

const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200";

#[component]
pub fn LoginPage() -> impl IntoView {
    let lang = use_lang();
    let query = use_query_map();
    let error = move || {
        query
            .read()
            .get("error")
            .map(|code| lang.ui(login_error_message(&code)))
    };
    view! {
        <Title text=lang.ui(Ui::SignIn)/>
        <main class="flex min-h-screen items-center justify-center px-4">
            <div class="w-full max-w-sm rounded-2xl border border-slate-200 bg-white p-8 shadow-sm">
                <p class="flex items-center gap-2 text-lg font-semibold tracking-tight">
                    <span aria-hidden="true" class="inline-block size-3 rounded-full bg-emerald-500 ring-4 ring-emerald-100"></span>
                    "meshwatch"
                </p>
                <h1 class="mt-6 text-xl font-semibold">{lang.ui(Ui::SignInToPanel)}</h1>
                {move || error().map(|msg| view! {
                    <p role="alert" class="mt-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">{msg}</p>
                })}
                <form method="post" action="/login" class="mt-6 space-y-4">
                    <div>
                        <label for="username" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::Username)}</label>
                        <input id="username" name="username" type="text" autocomplete="username" required maxlength=MAX_USERNAME_LEN class=INPUT/>
                    </div>
                    <div>
                        <label for="password" class="block text-sm font-medium text-slate-700">{lang.ui(Ui::Password)}</label>
                        <input id="password" name="password" type="password" autocomplete="current-password" required class=INPUT/>
                    </div>
                    <button type="submit" class="w-full rounded-md bg-slate-900 px-4 py-2 font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-300">
                        {lang.ui(Ui::SignIn)}
                    </button>
                </form>
            </div>
        </main>
    }
}

#[cfg(test)]
mod tests {
    use super::login_error_message;
    use meshwatch_views::i18n::Lang;

    #[test]
    fn every_login_error_says_what_happened() {
        let en = |code: &str| Lang::En.ui(login_error_message(code));
        assert!(en("locked").contains("Too many"));
        assert!(en("busy").contains("Wait a moment"));
        assert!(en("invalid").contains("Wrong"));
        assert!(en("cross_site").contains("another site"));
    }
}
