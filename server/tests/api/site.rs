//! The front end's files as a browser fetches them: from
//! `MESHWATCH_SITE_ROOT` (what `spawn_app` sets) under their plain names,
//! or, without it, from the binary under versioned names cached for good.

use crate::helpers::{spawn_app, spawn_app_with, TestApp};
use meshwatch_server::http::site::SiteSource;
use reqwest::Response;

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut request = app.client.get(app.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("sent")
}

fn header(response: &Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Writes `files` (path from the site's root, content) into the panel's
/// site root.
fn write_site(app: &TestApp, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = app.data_dir().join("site").join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("site dir");
        std::fs::write(path, bytes).expect("site file");
    }
}

async fn login_page(app: &TestApp) -> String {
    let response = get(app, "/login", &[("accept", "text/html")]).await;
    assert_eq!(response.status(), 200);
    response.text().await.expect("html")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_load_the_plain_names_from_a_site_root() {
    let app = spawn_app().await;
    let html = login_page(&app).await;
    assert!(html.contains("href=\"/pkg/meshwatch.css\""), "{html}");
    assert!(html.contains("/pkg/meshwatch.js"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_roots_files_are_served_from_disk_with_their_brotli_copies() {
    let app = spawn_app().await;
    write_site(
        &app,
        &[
            ("pkg/meshwatch.wasm", &b"\0asm\x01\0\0\0"[..]),
            ("pkg/meshwatch.wasm.br", &b"brotli bytes"[..]),
            (
                "favicon.svg",
                &b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"[..],
            ),
        ],
    );

    let plain = get(&app, "/pkg/meshwatch.wasm", &[]).await;
    assert_eq!(plain.status(), 200);
    assert_eq!(
        header(&plain, "content-type").as_deref(),
        Some("application/wasm")
    );
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(&plain.bytes().await.expect("body")[..], b"\0asm\x01\0\0\0");

    let brotli = get(
        &app,
        "/pkg/meshwatch.wasm",
        &[("accept-encoding", "gzip, br")],
    )
    .await;
    assert_eq!(brotli.status(), 200);
    assert_eq!(header(&brotli, "content-encoding").as_deref(), Some("br"));
    assert_eq!(&brotli.bytes().await.expect("body")[..], b"brotli bytes");

    let icon = get(&app, "/favicon.svg", &[]).await;
    assert_eq!(icon.status(), 200);
    assert_eq!(
        header(&icon, "content-type").as_deref(),
        Some("image/svg+xml")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_browser_may_cache_the_front_ends_files() {
    let app = spawn_app().await;
    write_site(
        &app,
        &[
            ("pkg/meshwatch.css", &b"body{}"[..]),
            ("favicon.svg", &b"<svg/>"[..]),
        ],
    );
    let cookie = app.signed_in("ops", "a long password").await;
    for path in ["/pkg/meshwatch.css", "/favicon.svg"] {
        let response = get(&app, path, &[("cookie", cookie.as_str())]).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_ne!(
            header(&response, "cache-control").as_deref(),
            Some("no-store"),
            "{path}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_file_is_not_found() {
    let app = spawn_app().await;
    for path in ["/pkg/meshwatch.js", "/pkg/nothing.wasm"] {
        assert_eq!(get(&app, path, &[]).await.status(), 404, "{path}");
    }
}

/// Debug builds read the built-in front end from `target/site` at run
/// time: whether one is there depends on what ran before (`make build`).
/// Either way the panel serves what its pages name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_site_root_the_built_in_front_end_is_served() {
    let app = spawn_app_with(&[("MESHWATCH_SITE_ROOT", String::new())]).await;
    let SiteSource::Embedded { version } = SiteSource::new(None) else {
        panic!("no site root means the built-in front end");
    };
    let html = login_page(&app).await;
    let cookie = app.signed_in("ops", "a long password").await;

    match version {
        Some(version) => {
            let name = version.output_name();
            assert!(
                html.contains(&format!("href=\"/pkg/{name}.css\"")),
                "{html}"
            );
            assert!(html.contains(&format!("/pkg/{name}.js")), "{html}");

            for (extension, content_type) in [
                ("wasm", "application/wasm"),
                ("js", "text/javascript; charset=utf-8"),
                ("css", "text/css; charset=utf-8"),
            ] {
                let path = format!("/pkg/{name}.{extension}");
                // Signed in or not: the session never makes them `no-store`.
                let response = get(&app, &path, &[("cookie", cookie.as_str())]).await;
                assert_eq!(response.status(), 200, "{path}");
                assert_eq!(
                    header(&response, "cache-control").as_deref(),
                    Some(IMMUTABLE)
                );
                assert_eq!(
                    header(&response, "content-type").as_deref(),
                    Some(content_type)
                );
            }

            let plain = get(&app, "/pkg/meshwatch.wasm", &[]).await;
            assert_eq!(plain.status(), 200);
            assert_eq!(header(&plain, "cache-control").as_deref(), Some("no-cache"));
            let etag = header(&plain, "etag").expect("an ETag");
            let again = get(
                &app,
                "/pkg/meshwatch.wasm",
                &[("if-none-match", etag.as_str())],
            )
            .await;
            assert_eq!(again.status(), 304);

            let icon = get(&app, "/favicon.svg", &[]).await;
            assert_eq!(icon.status(), 200);
            assert_eq!(header(&icon, "cache-control").as_deref(), Some("no-cache"));
            assert_eq!(
                header(&icon, "content-type").as_deref(),
                Some("image/svg+xml")
            );

            let old = get(&app, "/pkg/meshwatch.000000000000.wasm", &[]).await;
            assert_eq!(old.status(), 404, "another version's files are gone");
        }
        None => {
            assert!(html.contains("href=\"/pkg/meshwatch.css\""), "{html}");
            let wasm = get(&app, "/pkg/meshwatch.wasm", &[]).await;
            assert_eq!(wasm.status(), 404, "no front end, no WASM");
        }
    }

    // Paths no file answers are the panel's not-found page.
    let missing = get(
        &app,
        "/no-such-page",
        &[("cookie", cookie.as_str()), ("accept", "text/html")],
    )
    .await;
    assert_eq!(missing.status(), 404);
    let page = missing.text().await.expect("html");
    assert!(page.contains("<html"), "{page}");
}
