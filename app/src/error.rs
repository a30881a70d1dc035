//! `AppError`: the one error type server functions send to the browser.
//! It carries no internal detail: the server logs that, the wire gets a kind.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use meshwatch_views::i18n::form_error::FormError;
use meshwatch_views::i18n::refusal::Refusal;
use meshwatch_views::i18n::{Lang, Ui};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AppError {
    Unauthorized,
    CrossSite,
    TooManyAttempts {
        minutes: u64,
    },
    NotFound,
    Invalid(Refusal),
    /// A form's refusal the panel writes itself (422), said in the
    /// page's language.
    Form(FormError),
    /// The request conflicts with what is stored; nothing was written.
    Conflict(Refusal),
    Unreachable,
    Internal,
}

impl AppError {
    /// The HTTP status the error is sent with, so scripts and no-JS
    /// browsers see 401/403/404/409/422/429 rather than a blanket 500.
    pub fn status_code(&self) -> u16 {
        match self {
            AppError::Unauthorized => 401,
            AppError::CrossSite => 403,
            AppError::TooManyAttempts { .. } => 429,
            AppError::NotFound => 404,
            AppError::Invalid(_) | AppError::Form(_) => 422,
            AppError::Conflict(_) => 409,
            AppError::Unreachable => 503,
            AppError::Internal => 500,
        }
    }

    /// What the operator reads, in the page's language: a check's
    /// refusal (`Invalid`, `Conflict`) by its API code, with the check's
    /// own words where the code alone does not say what to fix.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            AppError::Unauthorized => lang.ui(Ui::ErrorSessionEnded).to_owned(),
            AppError::CrossSite => lang.ui(Ui::ErrorCrossSite).to_owned(),
            AppError::TooManyAttempts { minutes } => lang.too_many_attempts(*minutes),
            AppError::NotFound => lang.ui(Ui::ErrorNotFound).to_owned(),
            AppError::Form(error) => lang.form_error(error),
            AppError::Invalid(refusal) | AppError::Conflict(refusal) => lang.refusal(refusal),
            AppError::Unreachable => lang.ui(Ui::ErrorUnreachable).to_owned(),
            AppError::Internal => lang.ui(Ui::ErrorInternal).to_owned(),
        }
    }
}

/// In English: logs and tests read it; pages say [`AppError::message`].
impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for AppError {}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Request(_) => AppError::Unreachable,
            ServerFnErrorErr::Args(msg) | ServerFnErrorErr::MissingArg(msg) => {
                AppError::Invalid(Refusal::new("invalid_document", msg))
            }
            _ => AppError::Internal,
        }
    }
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn the_operator_reads_each_error_in_the_pages_language() {
        let fixed = [
            AppError::Unauthorized,
            AppError::CrossSite,
            AppError::TooManyAttempts { minutes: 5 },
            AppError::NotFound,
            AppError::Unreachable,
            AppError::Internal,
        ];
        for error in &fixed {
            assert_eq!(error.to_string(), error.message(Lang::En));
            for lang in Lang::ALL.into_iter().filter(|l| *l != Lang::En) {
                assert_ne!(
                    error.message(lang),
                    error.message(Lang::En),
                    "{lang:?} {error:?}"
                );
            }
        }
        assert_eq!(
            AppError::TooManyAttempts { minutes: 5 }.message(Lang::Sv),
            "För många felaktiga lösenord. Försök igen om 5 min."
        );
        // A check's refusal: its code in the page's language, then the
        // check's own words.
        let refusal = AppError::Invalid(Refusal::new(
            "invalid_setting",
            "quorum: must be at least 1",
        ));
        assert_eq!(refusal.to_string(), "quorum: must be at least 1");
        assert_eq!(
            refusal.message(Lang::Sv),
            "En inställning ligger utanför sitt intervall. (quorum: must be at least 1)"
        );
        let form = AppError::Form(FormError::WrongCurrentPassword);
        assert_eq!(form.status_code(), 422);
        assert_eq!(
            form.message(Lang::Es),
            "La contraseña actual no es correcta."
        );
        assert_eq!(form.to_string(), "The current password is wrong.");
    }
}
