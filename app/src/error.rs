//! `AppError`: the one error type server functions send to the browser.
//! It carries no internal detail: the server logs that, the wire gets a kind.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("Your session has ended. Please sign in again.")]
    Unauthorized,
    #[error("This request came from another site and was refused.")]
    CrossSite,
    #[error("Too many wrong passwords. Try again in {minutes} min.")]
    TooManyAttempts { minutes: u64 },
    #[error("Not found.")]
    NotFound,
    #[error("{0}")]
    Invalid(String),
    /// The request conflicts with what is stored; nothing was written.
    #[error("{0}")]
    Conflict(String),
    #[error("The panel could not be reached. Check your connection and try again.")]
    Unreachable,
    #[error("Something went wrong on the panel server. The details are in its log.")]
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
            AppError::Invalid(_) => 422,
            AppError::Conflict(_) => 409,
            AppError::Unreachable => 503,
            AppError::Internal => 500,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Request(_) => AppError::Unreachable,
            ServerFnErrorErr::Args(msg) | ServerFnErrorErr::MissingArg(msg) => {
                AppError::Invalid(msg)
            }
            _ => AppError::Internal,
        }
    }
}
