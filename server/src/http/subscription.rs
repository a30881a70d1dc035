//! `GET /sub/{token}`: the entry points a user's VPN app should use now,
//! after the rotation rules, in the formats real apps read.

mod clash;
mod links;
mod singbox;

use crate::crypto::secrets::TokenHash;
use crate::engine::Core;
use crate::http::api::ApiError;
pub use crate::store::Endpoint;
use axum::extract::{Path, Query, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE, USER_AGENT};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde::Deserialize;

/// What the subscription body is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// base64 of newline-separated share links (v2rayN/v2rayNG/Hiddify/Streisand).
    Base64,
    /// The same links, one per line.
    Plain,
    /// sing-box outbounds JSON.
    SingBox,
    /// Clash.Meta (mihomo) YAML.
    Clash,
}

impl Format {
    /// `?format=` wins; otherwise the app is recognised by its User-Agent,
    /// as Marzban and Remnawave do; otherwise base64.
    pub fn choose(format: Option<&str>, user_agent: Option<&str>) -> Result<Self, String> {
        match format {
            Some("base64") => return Ok(Format::Base64),
            Some("plain") => return Ok(Format::Plain),
            Some("singbox" | "sing-box") => return Ok(Format::SingBox),
            Some("clash" | "clash-meta" | "mihomo") => return Ok(Format::Clash),
            Some(other) => {
                return Err(format!(
                    "unknown format {other:?}: use base64, plain, singbox or clash"
                ))
            }
            None => {}
        }
        let ua = user_agent.unwrap_or("").to_ascii_lowercase();
        Ok(
            if ["clash", "mihomo", "stash", "flclash"]
                .iter()
                .any(|k| ua.contains(k))
            {
                Format::Clash
            } else if ["sing-box", "singbox", "sfa/", "sfi/", "sfm/", "sft/"]
                .iter()
                .any(|k| ua.contains(k))
            {
                Format::SingBox
            } else {
                Format::Base64
            },
        )
    }
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SubQuery {
    /// `base64` (the default), `plain`, `singbox` or `clash`; absent, the
    /// app's User-Agent chooses.
    format: Option<String>,
}

#[utoipa::path(get, path = "/sub/{sub_token}", tag = "subscription", security(()),
    params(("sub_token" = String, Path, description = "The user's subscription token"), SubQuery),
    responses(
        (status = 200, description = "The entry points this user should use now, after the rotation rules",
            content(
                (String = "text/plain", example = "dmxlc3M6Ly8uLi4="),
                (serde_json::Value = "application/json"),
                (String = "text/yaml"),
            ),
            headers(
                ("profile-update-interval" = u32, description = "Hours between refreshes"),
                ("subscription-userinfo" = String, description = "upload=0; download=0; total=0; expire=0"),
            )),
        (status = 400, description = "An unknown `format` (`unknown_format`)", body = crate::http::api::ErrorBody),
        (status = 404, description = "No subscription with this token", body = crate::http::api::ErrorBody),
    ))]
pub async fn serve(
    State(core): State<Core>,
    Path(token): Path<String>,
    Query(query): Query<SubQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let user_agent = headers.get(USER_AGENT).and_then(|v| v.to_str().ok());
    let format = Format::choose(query.format.as_deref(), user_agent)
        .map_err(|msg| ApiError::new(StatusCode::BAD_REQUEST, "unknown_format", msg))?;
    let subscriber = core
        .read_model
        .subscriber(&TokenHash::of(&token))
        .await?
        .ok_or_else(|| ApiError::not_found("no subscription with this token"))?;
    let (user, credential) = &*subscriber;
    // A lost key: a broken subscription would replace the app's working
    // configuration, an error keeps it.
    let credential = credential.as_deref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "credential_unavailable",
            "this subscription cannot be served right now",
        )
    })?;
    let serving = core.read_model.serving(user);
    let details = core.read_model.endpoints().await?;
    let endpoints: Vec<Endpoint> = serving
        .entry_points(&details)
        .map(|(_, endpoint, _)| endpoint.clone())
        .collect();

    let (content_type, body) = match format {
        Format::Plain => (
            "text/plain; charset=utf-8",
            links::all(&endpoints, credential).join("\n"),
        ),
        Format::Base64 => (
            "text/plain; charset=utf-8",
            base64::engine::general_purpose::STANDARD
                .encode(links::all(&endpoints, credential).join("\n")),
        ),
        Format::SingBox => (
            "application/json",
            singbox::document(&endpoints, credential),
        ),
        Format::Clash => (
            "text/yaml; charset=utf-8",
            clash::document(&endpoints, credential)?,
        ),
    };
    let mut response = body.into_response();
    response
        .extensions_mut()
        .insert(crate::http::compression::Uncompressed);
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        "profile-update-interval",
        // Maintenance drains servers one refresh ahead of a window.
        HeaderValue::from(meshwatch::maintenance::SUBSCRIPTION_REFRESH_HOURS),
    );
    // meshwatch does not meter traffic: zeros mean "unlimited, no expiry".
    h.insert(
        "subscription-userinfo",
        HeaderValue::from_static("upload=0; download=0; total=0; expire=0"),
    );
    h.insert("profile-title", HeaderValue::from_static("meshwatch"));
    h.insert(
        CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"meshwatch\""),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn the_format_comes_from_the_query_then_the_app() {
        assert_eq!(
            Format::choose(Some("plain"), Some("clash-verge/1.0")),
            Ok(Format::Plain)
        );
        assert_eq!(
            Format::choose(None, Some("ClashMetaForAndroid/2.10")),
            Ok(Format::Clash)
        );
        assert_eq!(Format::choose(None, Some("mihomo/1.18")), Ok(Format::Clash));
        assert_eq!(
            Format::choose(None, Some("SFA/1.9.0 (sing-box 1.9.0)")),
            Ok(Format::SingBox)
        );
        assert_eq!(
            Format::choose(None, Some("v2rayNG/1.8.5")),
            Ok(Format::Base64)
        );
        assert_eq!(Format::choose(None, None), Ok(Format::Base64));
        assert!(Format::choose(Some("xml"), None).is_err());
    }
}
