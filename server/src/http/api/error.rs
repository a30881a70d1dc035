//! The docs/API.md error body `{"error":{"code","message"}}` for every rejection,
//! including axum's own (bad JSON, wrong content type, oversized body).

pub mod codes;

use crate::store::StoreError;
use axum::extract::rejection::JsonRejection;
use axum::extract::FromRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid operator API token is required (Authorization: Bearer <token>)",
        )
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, message)
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", what)
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }
}

/// The error body of every API rejection, as docs/API.md gives it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// What went wrong: a stable machine-readable `code` and a sentence.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// Stable: scripts may branch on it ([`codes::ERROR_CODES`]).
    #[schema(schema_with = codes::schema)]
    pub code: String,
    pub message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.to_owned(),
                message: self.message,
            },
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Conflict { code, message } => {
                Self::new(StatusCode::CONFLICT, code, message)
            }
            StoreError::Rejected { code, message } => Self::unprocessable(code, message),
            other => {
                tracing::error!(error = %other, "store failure behind an API request");
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "the panel could not complete the request; details are in its log",
                )
            }
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = rejection.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            StatusCode::UNPROCESSABLE_ENTITY => "invalid_document",
            _ => "malformed_json",
        };
        let message = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "the request body is larger than 1 MiB".to_owned(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                "send the body as Content-Type: application/json".to_owned()
            }
            _ => rejection.body_text(),
        };
        Self::new(status, code, message)
    }
}

/// `axum::Json` whose rejections speak the docs/API.md error body.
#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

impl<T: serde::Serialize> IntoResponse for ApiJson<T> {
    fn into_response(self) -> Response {
        Json(self.0).into_response()
    }
}
