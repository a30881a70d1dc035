//! Subscription links as QR codes: an SVG image of its own
//! (`GET /users/{id}/qr.svg`, signed-in only) that the user card shows.
//! Kept out of the page's HTML, a code is drawn only when a browser shows
//! it, rather than on every render and every live refresh of the card.

use crate::auth::Access;
use crate::engine::Core;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use meshwatch::UserId;
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Where the user card finds the QR code of `subscription_url`: the query
/// names the link, so a changed link is a new image to the browser's cache.
pub fn image_path(user: &UserId, subscription_url: &str) -> String {
    let digest = Sha256::digest(subscription_url.as_bytes());
    format!("/users/{user}/qr.svg?v={}", hex::encode(&digest[..8]))
}

/// `GET /users/{id}/qr.svg`: the QR code of the user's subscription link
/// as the browser reaches the panel; 404 for an unknown user or one
/// without a subscription token.
pub async fn serve(
    State(access): State<Access>,
    State(core): State<Core>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let not_found = || {
        (
            StatusCode::NOT_FOUND,
            "no such user or no subscription link",
        )
            .into_response()
    };
    let Ok(id) = UserId::parse(&id) else {
        return not_found();
    };
    let kept = match core.read_model.user(&id).await {
        Ok(Some(kept)) => kept,
        Ok(None) => return not_found(),
        Err(error) => {
            tracing::error!(%error, user = %id, "reading a user for its QR code failed");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let Some(token) = &kept.1 else {
        return not_found();
    };
    let url = format!("{}/sub/{token}", access.site.url(&headers));
    let Some(image) = svg(&url) else {
        return not_found();
    };
    (
        [
            (CONTENT_TYPE, "image/svg+xml"),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // It carries a user's token: no cache keeps it (the security
            // headers say the same for every signed-in answer).
            (CACHE_CONTROL, "no-store"),
        ],
        image,
    )
        .into_response()
}

/// Quiet zone around the code, in modules (the standard asks for 4).
const MARGIN: usize = 4;

/// The QR code of `text` as SVG markup: one path, each run of dark modules
/// in a row one rectangle (a fraction of a path per module), sized by the
/// page. Medium error correction survives a phone camera's glare.
pub fn svg(text: &str) -> Option<String> {
    let code = fast_qr::qr::QRBuilder::new(text)
        .ecl(fast_qr::ECL::M)
        .build()
        .ok()?;
    let n = code.size;
    let side = n + 2 * MARGIN;
    let mut d = String::with_capacity(n * n);
    for y in 0..n {
        let row = &code[y];
        let mut x = 0;
        while x < n {
            if !row[x].value() {
                x += 1;
                continue;
            }
            let start = x;
            while x < n && row[x].value() {
                x += 1;
            }
            let run = x - start;
            let _ = write!(d, "M{} {}h{run}v1h-{run}z", start + MARGIN, y + MARGIN);
        }
    }
    Some(format!(
        r##"<svg viewBox="0 0 {side} {side}" xmlns="http://www.w3.org/2000/svg"><rect width="{side}" height="{side}" fill="#fff"/><path d="{d}" fill="#000"/></svg>"##
    ))
}

#[cfg(test)]
mod tests {
    /// Redraws the path's rectangles onto a grid of `side` × `side`.
    fn paint(svg: &str) -> (usize, Vec<Vec<bool>>) {
        let side: usize = svg
            .split("viewBox=\"0 0 ")
            .nth(1)
            .and_then(|v| v.split(' ').next())
            .and_then(|v| v.parse().ok())
            .expect("a viewBox");
        let d = svg
            .split(" d=\"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .expect("a path");
        let mut grid = vec![vec![false; side]; side];
        for rect in d.split('M').filter(|r| !r.is_empty()) {
            let (xy, rest) = rect.split_once('h').expect("h");
            let (x, y) = xy.split_once(' ').expect("x y");
            let run: usize = rest
                .split('v')
                .next()
                .and_then(|r| r.parse().ok())
                .expect("run");
            let (x, y): (usize, usize) = (x.parse().expect("x"), y.parse().expect("y"));
            for cell in &mut grid[y][x..x + run] {
                assert!(!*cell, "rectangles never overlap");
                *cell = true;
            }
        }
        (side, grid)
    }

    #[test]
    fn the_path_draws_exactly_the_dark_modules_inside_a_quiet_zone() {
        let url = "https://panel.example/sub/0123456789abcdef0123456789abcdef";
        let svg = super::svg(url).expect("encodes");
        let code = fast_qr::qr::QRBuilder::new(url)
            .ecl(fast_qr::ECL::M)
            .build()
            .expect("encodes");
        let (side, grid) = paint(&svg);
        assert_eq!(side, code.size + 2 * super::MARGIN);
        for (y, row) in grid.iter().enumerate() {
            for (x, &dark) in row.iter().enumerate() {
                let inside = super::MARGIN..super::MARGIN + code.size;
                let expected = inside.contains(&x)
                    && inside.contains(&y)
                    && code[y - super::MARGIN][x - super::MARGIN].value();
                assert_eq!(dark, expected, "module ({x}, {y})");
            }
        }
    }

    #[test]
    fn text_too_long_for_any_qr_code_has_none() {
        assert!(super::svg(&"x".repeat(5000)).is_none());
    }
}
