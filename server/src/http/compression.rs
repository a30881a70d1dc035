//! Response compression for pages: HTML, JSON and SVG answers are
//! gzipped when the client accepts it. Never the live event stream (an
//! encoder would hold its events back until a buffer filled), never a
//! subscription (plain text that VPN apps fetch by the thousand: the CPU
//! is better spent answering them), and never a file the build already
//! compressed (the site sends its own `.gz` and `.br` copies).

use axum::http::{header, Extensions, HeaderMap, StatusCode, Version};
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::{CompressionLayer, CompressionLevel};

/// The content types worth compressing.
const COMPRESSED_TYPES: [&str; 3] = ["text/html", "application/json", "image/svg+xml"];

/// Marks a response never to compress whatever its type: a
/// subscription's sing-box document is JSON, and still a subscription.
#[derive(Debug, Clone, Copy)]
pub struct Uncompressed;

fn is_compressed_type(
    _: StatusCode,
    _: Version,
    headers: &HeaderMap,
    extensions: &Extensions,
) -> bool {
    extensions.get::<Uncompressed>().is_none()
        && headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|essence| COMPRESSED_TYPES.contains(&essence.trim()))
}

/// gzip at its fastest level: a card page shrinks about five times in
/// well under a millisecond. Responses under 32 bytes, and those already
/// encoded, pass as they are ([`DefaultPredicate`]).
pub fn layer() -> CompressionLayer<impl Predicate> {
    CompressionLayer::new()
        .quality(CompressionLevel::Fastest)
        .compress_when(DefaultPredicate::new().and(is_compressed_type))
}
