//! Answers a request for one of the front end's files from any table of
//! files: content-versioned names that browsers keep for a year,
//! everything else revalidated by ETag, and the gzip and brotli copies
//! `scripts/build-release.sh` writes beside each file for browsers that
//! take them. Pure over [`Assets`], so tests use a table in memory.

use axum::body::Body;
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// Where wasm-bindgen's output sits in the site (cargo-leptos `site-pkg-dir`).
pub const PKG_DIR: &str = "pkg";
/// The stem of its files (cargo-leptos `output-name`).
pub const OUTPUT_NAME: &str = "meshwatch";

/// One file of the site.
pub struct Asset {
    pub bytes: Cow<'static, [u8]>,
    /// SHA-256 of `bytes`.
    pub sha256: [u8; 32],
}

/// A read-only table of the site's files, by path from the site's root
/// (`pkg/meshwatch.wasm`, `favicon.svg`).
pub trait Assets {
    fn file(&self, path: &str) -> Option<Asset>;
}

/// The files the hydration script loads, which the [`Version`] covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrontFile {
    Js,
    Wasm,
    Css,
}

impl FrontFile {
    const ALL: [FrontFile; 3] = [Self::Js, Self::Wasm, Self::Css];

    fn extension(self) -> &'static str {
        match self {
            Self::Js => "js",
            Self::Wasm => "wasm",
            Self::Css => "css",
        }
    }

    fn with_extension(extension: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.extension() == extension)
    }

    /// Where cargo-leptos writes it.
    fn path(self) -> String {
        format!("{PKG_DIR}/{OUTPUT_NAME}.{}", self.extension())
    }
}

/// A short hash of the JS, WASM and CSS together. Put in their URLs it
/// changes whenever any of them does, so those URLs can be cached for
/// good; one version for all three keeps a page from mixing a new script
/// with an old WASM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version(String);

impl Version {
    /// Hex digits kept: 48 bits tell two builds apart.
    const LEN: usize = 12;

    /// `None` when `assets` lack the script or the WASM: a build without
    /// the front end. A missing stylesheet still hydrates.
    pub fn of(assets: &(impl Assets + ?Sized)) -> Option<Self> {
        let mut hasher = Sha256::new();
        for file in FrontFile::ALL {
            match assets.file(&file.path()) {
                Some(asset) => hasher.update(asset.sha256),
                None if file == FrontFile::Css => hasher.update([0u8; 32]),
                None => return None,
            }
        }
        let mut hex = hex::encode(hasher.finalize());
        hex.truncate(Self::LEN);
        Some(Self(hex))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The output name for Leptos, `meshwatch.<version>`: pages then ask
    /// for `/pkg/meshwatch.<version>.{js,wasm,css}`.
    pub fn output_name(&self) -> String {
        format!("{OUTPUT_NAME}.{}", self.0)
    }

    /// The front-end file a path names under this version
    /// (`pkg/meshwatch.<this version>.wasm`). Another version's path names
    /// nothing: see [`answer`].
    fn names(&self, path: &str) -> Option<FrontFile> {
        let rest = path
            .strip_prefix(PKG_DIR)?
            .strip_prefix('/')?
            .strip_prefix(OUTPUT_NAME)?
            .strip_prefix('.')?;
        let (version, extension) = rest.split_once('.')?;
        if version != self.0 {
            return None;
        }
        FrontFile::with_extension(extension)
    }
}

/// How long caches may keep an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caching {
    /// A versioned name: what it names never changes.
    Immutable,
    /// A stable name whose content changes with each build: caches ask
    /// again each time (a 304 when nothing changed).
    Revalidate,
}

impl Caching {
    fn header(self) -> &'static str {
        match self {
            Self::Immutable => "public, max-age=31536000, immutable",
            Self::Revalidate => "no-cache",
        }
    }
}

/// A precompressed copy the build wrote beside a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Brotli,
    Gzip,
}

impl Encoding {
    /// Best first: brotli makes the WASM smallest.
    const PREFERENCE: [Encoding; 2] = [Self::Brotli, Self::Gzip];

    /// Its name in `Accept-Encoding` and `Content-Encoding`.
    fn token(self) -> &'static str {
        match self {
            Self::Brotli => "br",
            Self::Gzip => "gzip",
        }
    }

    /// What the build appends to the file's name.
    fn suffix(self) -> &'static str {
        match self {
            Self::Brotli => ".br",
            Self::Gzip => ".gz",
        }
    }
}

/// What the site answers to a request for one of its files.
#[derive(Debug)]
pub struct FileAnswer {
    pub caching: Caching,
    pub content_type: &'static str,
    /// The precompressed copy sent, if any.
    pub encoding: Option<Encoding>,
    /// Quoted, from the content hash of the copy sent.
    pub etag: String,
    pub outcome: Outcome,
}

#[derive(Debug)]
pub enum Outcome {
    Content(Cow<'static, [u8]>),
    /// The browser's copy is current (`If-None-Match`).
    NotModified,
}

/// The answer to a `method` request for `path` (as in the URL) from
/// `assets`; `None` when no file answers it (the not-found page does).
/// Under `version`, `/pkg/meshwatch.<version>.wasm` is `pkg/meshwatch.wasm`
/// for good. A path with another version — a page loaded before an
/// upgrade — names nothing: its islands were rendered for the old WASM,
/// and the new one could fail to hydrate them, while without it the page
/// still works as plain HTML.
pub fn answer(
    assets: &(impl Assets + ?Sized),
    version: Option<&Version>,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Option<FileAnswer> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let path = site_path(path)?;
    let (path, caching) = match version.and_then(|v| v.names(path)) {
        Some(file) => (Cow::Owned(file.path()), Caching::Immutable),
        None => (Cow::Borrowed(path), Caching::Revalidate),
    };
    let plain = assets.file(&path)?;
    let (encoding, sent) = Encoding::PREFERENCE
        .into_iter()
        .filter(|encoding| accepts(headers, encoding.token()))
        .find_map(|encoding| {
            assets
                .file(&format!("{path}{}", encoding.suffix()))
                .map(|copy| (Some(encoding), copy))
        })
        .unwrap_or((None, plain));
    // Per copy sent: a strong ETag names one representation.
    let etag = format!("\"{}\"", hex::encode(&sent.sha256[..16]));
    let outcome = if if_none_match(headers, &etag) {
        Outcome::NotModified
    } else {
        Outcome::Content(sent.bytes)
    };
    Some(FileAnswer {
        caching,
        content_type: content_type(&path),
        encoding,
        etag,
        outcome,
    })
}

/// The path from the site's root that a request path names, if it can
/// name a file: no empty, `.` or `..` segments (debug builds look it up on
/// disk), and not a precompressed copy (a representation of its original,
/// not a file of its own).
fn site_path(path: &str) -> Option<&str> {
    let path = path.strip_prefix('/')?;
    let clean = !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    let copy = Encoding::PREFERENCE
        .iter()
        .any(|encoding| path.ends_with(encoding.suffix()));
    (clean && !copy).then_some(path)
}

/// Whether `Accept-Encoding` lets us send `coding`: named, or covered by
/// `*`, with a weight above zero.
fn accepts(headers: &HeaderMap, coding: &str) -> bool {
    let mut wildcard = false;
    let items = headers
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','));
    for item in items {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let weight = parts
            .find_map(|param| param.trim().strip_prefix("q="))
            .map_or(1.0, |q| q.trim().parse::<f32>().unwrap_or(0.0));
        if name.eq_ignore_ascii_case(coding) {
            return weight > 0.0;
        }
        if name == "*" {
            wildcard = weight > 0.0;
        }
    }
    wildcard
}

/// Whether `If-None-Match` names `etag` (weakly, as that header compares).
fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// The type of the site's files, by extension. Fixed here rather than
/// guessed: browsers compile WASM as it streams only as
/// `application/wasm`, and `nosniff` makes them trust the rest as sent.
fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, extension)| extension);
    match extension {
        Some("wasm") => "application/wasm",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("html") => "text/html; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("txt") => "text/plain; charset=utf-8",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

impl IntoResponse for FileAnswer {
    fn into_response(self) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(
            CACHE_CONTROL,
            HeaderValue::from_static(self.caching.header()),
        );
        // Which copy is sent depends on it, wherever copies exist.
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
        if let Ok(etag) = HeaderValue::from_str(&self.etag) {
            headers.insert(ETAG, etag);
        }
        match self.outcome {
            Outcome::NotModified => (StatusCode::NOT_MODIFIED, headers).into_response(),
            Outcome::Content(bytes) => {
                headers.insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
                if let Some(encoding) = self.encoding {
                    headers.insert(CONTENT_ENCODING, HeaderValue::from_static(encoding.token()));
                }
                (headers, Body::from(bytes)).into_response()
            }
        }
    }
}

/// A table in memory, for tests.
#[cfg(test)]
impl Assets for std::collections::BTreeMap<&'static str, &'static [u8]> {
    fn file(&self, path: &str) -> Option<Asset> {
        self.get(path).map(|bytes| Asset {
            bytes: Cow::Borrowed(*bytes),
            sha256: Sha256::digest(bytes).into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    type Table = BTreeMap<&'static str, &'static [u8]>;

    /// A site as `scripts/build-release.sh` leaves it,
    /// but with a WASM that only has a gzip copy.
    fn site() -> Table {
        let files: [(&'static str, &'static [u8]); 7] = [
            ("pkg/meshwatch.js", b"plain js"),
            ("pkg/meshwatch.js.br", b"brotli js"),
            ("pkg/meshwatch.js.gz", b"gzip js"),
            ("pkg/meshwatch.wasm", b"\0asm plain"),
            ("pkg/meshwatch.wasm.gz", b"\0asm gzip"),
            ("pkg/meshwatch.css", b"body{}"),
            ("favicon.svg", b"<svg/>"),
        ];
        BTreeMap::from(files)
    }

    fn version(site: &Table) -> Version {
        Version::of(site).expect("a front end")
    }

    /// A GET of `path` with `headers`, under the site's own version.
    fn get(site: &Table, path: &str, headers: &[(&'static str, &str)]) -> Option<FileAnswer> {
        let mut map = HeaderMap::new();
        for &(name, value) in headers {
            map.append(name, HeaderValue::from_str(value).expect("a header value"));
        }
        answer(site, Some(&version(site)), &Method::GET, path, &map)
    }

    fn body(answer: &FileAnswer) -> &[u8] {
        match &answer.outcome {
            Outcome::Content(bytes) => bytes,
            Outcome::NotModified => panic!("a 304, not content"),
        }
    }

    fn versioned(site: &Table, extension: &str) -> String {
        format!("/pkg/meshwatch.{}.{extension}", version(site).as_str())
    }

    #[test]
    fn the_version_is_twelve_hex_digits_that_change_with_any_front_end_file() {
        let site = site();
        let v = version(&site);
        assert_eq!(v.as_str().len(), 12);
        assert!(v.as_str().chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(v.output_name(), format!("meshwatch.{}", v.as_str()));
        let changes: [(&str, &'static [u8]); 3] = [
            ("pkg/meshwatch.js", b"other js"),
            ("pkg/meshwatch.wasm", b"\0asm other"),
            ("pkg/meshwatch.css", b"main{}"),
        ];
        for (path, changed) in changes {
            let mut other = site.clone();
            other.insert(path, changed);
            assert_ne!(version(&other), v, "{path}");
        }
        let mut new_icon = site.clone();
        new_icon.insert("favicon.svg", b"<svg></svg>");
        assert_eq!(version(&new_icon), v, "public files are not versioned");
    }

    #[test]
    fn a_site_without_script_or_wasm_has_no_version_but_one_without_css_has() {
        for missing in ["pkg/meshwatch.js", "pkg/meshwatch.wasm"] {
            let mut site = site();
            site.remove(missing);
            assert_eq!(Version::of(&site), None, "{missing}");
        }
        let mut site = site();
        site.remove("pkg/meshwatch.css");
        assert!(Version::of(&site).is_some());
        assert_eq!(Version::of(&Table::new()), None);
    }

    #[test]
    fn versioned_names_are_immutable_and_served_from_the_plain_file() {
        let site = site();
        let cases: [(&str, &[u8], &str); 3] = [
            ("wasm", b"\0asm plain", "application/wasm"),
            ("js", b"plain js", "text/javascript; charset=utf-8"),
            ("css", b"body{}", "text/css; charset=utf-8"),
        ];
        for (extension, bytes, content_type) in cases {
            let answer = get(&site, &versioned(&site, extension), &[]).expect(extension);
            assert_eq!(answer.caching, Caching::Immutable, "{extension}");
            assert_eq!(answer.content_type, content_type);
            assert_eq!(answer.encoding, None);
            assert_eq!(body(&answer), bytes);
        }
    }

    #[test]
    fn stable_names_and_public_files_are_revalidated() {
        let site = site();
        for (path, content_type) in [
            ("/pkg/meshwatch.wasm", "application/wasm"),
            ("/pkg/meshwatch.js", "text/javascript; charset=utf-8"),
            ("/favicon.svg", "image/svg+xml"),
        ] {
            let answer = get(&site, path, &[]).expect(path);
            assert_eq!(answer.caching, Caching::Revalidate, "{path}");
            assert_eq!(answer.content_type, content_type, "{path}");
        }
    }

    #[test]
    fn another_version_or_an_unknown_file_is_not_found() {
        let site = site();
        for path in [
            "/pkg/meshwatch.000000000000.wasm",
            "/pkg/meshwatch.000000000000.js",
            "/pkg/other.js",
            "/robots.txt",
        ] {
            assert!(get(&site, path, &[]).is_none(), "{path}");
        }
        let without_version = answer(
            &site,
            None,
            &Method::GET,
            &versioned(&site, "js"),
            &HeaderMap::new(),
        );
        assert!(without_version.is_none(), "no name is versioned then");
    }

    #[test]
    fn only_reads_of_clean_paths_to_original_files_are_answered() {
        let site = site();
        let headers = HeaderMap::new();
        for method in [Method::POST, Method::PUT, Method::DELETE] {
            assert!(answer(&site, None, &method, "/favicon.svg", &headers).is_none());
        }
        assert!(answer(&site, None, &Method::HEAD, "/favicon.svg", &headers).is_some());
        for path in [
            "/",
            "",
            "favicon.svg",
            "/pkg//meshwatch.js",
            "/pkg/./meshwatch.js",
            "/pkg/../pkg/meshwatch.js",
            "/../Cargo.toml",
            "/pkg\\meshwatch.js",
            "/pkg/meshwatch.js.br",
            "/pkg/meshwatch.js.gz",
        ] {
            assert!(get(&site, path, &[]).is_none(), "{path}");
        }
    }

    #[test]
    fn brotli_is_preferred_then_gzip_then_the_plain_file() {
        let site = site();
        let js = versioned(&site, "js");
        let cases: [(&str, Option<Encoding>, &[u8]); 10] = [
            (
                "gzip, deflate, br, zstd",
                Some(Encoding::Brotli),
                b"brotli js",
            ),
            ("br", Some(Encoding::Brotli), b"brotli js"),
            ("*", Some(Encoding::Brotli), b"brotli js"),
            ("BR", Some(Encoding::Brotli), b"brotli js"),
            ("gzip", Some(Encoding::Gzip), b"gzip js"),
            ("br;q=0, gzip;q=0.5", Some(Encoding::Gzip), b"gzip js"),
            ("*, br;q=0", Some(Encoding::Gzip), b"gzip js"),
            ("identity", None, b"plain js"),
            ("gzip;q=0, br;q=0", None, b"plain js"),
            ("*;q=0", None, b"plain js"),
        ];
        for (accept, encoding, bytes) in cases {
            let answer = get(&site, &js, &[("accept-encoding", accept)]).expect(accept);
            assert_eq!(answer.encoding, encoding, "{accept}");
            assert_eq!(body(&answer), bytes, "{accept}");
            assert_eq!(answer.content_type, "text/javascript; charset=utf-8");
        }
        let plain = get(&site, &js, &[]).expect("no Accept-Encoding");
        assert_eq!(plain.encoding, None, "no Accept-Encoding: the plain file");

        let wasm = get(
            &site,
            "/pkg/meshwatch.wasm",
            &[("accept-encoding", "br, gzip")],
        )
        .expect("wasm");
        assert_eq!(
            wasm.encoding,
            Some(Encoding::Gzip),
            "only a gzip copy exists"
        );
        assert_eq!(body(&wasm), b"\0asm gzip");
        assert_eq!(wasm.content_type, "application/wasm");
        let svg = get(&site, "/favicon.svg", &[("accept-encoding", "br, gzip")]).expect("svg");
        assert_eq!(svg.encoding, None, "no copies at all");
    }

    #[test]
    fn a_current_etag_gets_not_modified() {
        let site = site();
        let first = get(&site, "/favicon.svg", &[]).expect("svg");
        let etag = first.etag.clone();
        assert!(etag.len() > 2 && etag.starts_with('"') && etag.ends_with('"'));
        for if_none_match in [
            etag.clone(),
            format!("W/{etag}"),
            format!("\"00\", {etag}"),
            "*".to_owned(),
        ] {
            let again = get(
                &site,
                "/favicon.svg",
                &[("if-none-match", if_none_match.as_str())],
            )
            .expect("svg");
            assert!(
                matches!(again.outcome, Outcome::NotModified),
                "{if_none_match}"
            );
            assert_eq!(again.etag, etag);
        }
        let stale = get(&site, "/favicon.svg", &[("if-none-match", "\"0123\"")]).expect("svg");
        assert_eq!(body(&stale), b"<svg/>");

        let plain = get(&site, "/pkg/meshwatch.js", &[]).expect("js");
        let brotli = get(&site, "/pkg/meshwatch.js", &[("accept-encoding", "br")]).expect("js");
        assert_ne!(plain.etag, brotli.etag, "each copy has its own ETag");
        let revalidated = get(
            &site,
            "/pkg/meshwatch.js",
            &[
                ("accept-encoding", "br"),
                ("if-none-match", plain.etag.as_str()),
            ],
        )
        .expect("js");
        assert_eq!(
            body(&revalidated),
            b"brotli js",
            "the plain file's ETag does not match the brotli copy"
        );
    }

    #[test]
    fn the_answer_carries_its_headers() {
        fn header<'a>(response: &'a Response, name: &str) -> Option<&'a [u8]> {
            response.headers().get(name).map(HeaderValue::as_bytes)
        }
        let site = site();
        let response = get(&site, &versioned(&site, "js"), &[("accept-encoding", "br")])
            .expect("js")
            .into_response();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            header(&response, "cache-control"),
            Some(&b"public, max-age=31536000, immutable"[..])
        );
        assert_eq!(header(&response, "content-encoding"), Some(&b"br"[..]));
        assert_eq!(
            header(&response, "content-type"),
            Some(&b"text/javascript; charset=utf-8"[..])
        );
        assert_eq!(header(&response, "vary"), Some(&b"accept-encoding"[..]));
        assert!(header(&response, "etag").is_some());

        let svg = get(&site, "/favicon.svg", &[]).expect("svg");
        let etag = svg.etag.clone();
        let response = svg.into_response();
        assert_eq!(header(&response, "cache-control"), Some(&b"no-cache"[..]));
        assert_eq!(
            header(&response, "content-type"),
            Some(&b"image/svg+xml"[..])
        );
        assert_eq!(header(&response, "content-encoding"), None);

        let not_modified = get(&site, "/favicon.svg", &[("if-none-match", etag.as_str())])
            .expect("svg")
            .into_response();
        assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(header(&not_modified, "etag"), Some(etag.as_bytes()));
        assert_eq!(
            header(&not_modified, "cache-control"),
            Some(&b"no-cache"[..])
        );
    }

    #[test]
    fn content_types_fit_each_file() {
        for (path, expected) in [
            ("pkg/meshwatch.wasm", "application/wasm"),
            (
                "pkg/snippets/x/inline0.js",
                "text/javascript; charset=utf-8",
            ),
            ("pkg/meshwatch.css", "text/css; charset=utf-8"),
            ("favicon.svg", "image/svg+xml"),
            ("icon.png", "image/png"),
            ("site.webmanifest", "application/manifest+json"),
            ("LICENSE", "application/octet-stream"),
        ] {
            assert_eq!(content_type(path), expected, "{path}");
        }
    }
}
