//! Where the front end (hydration script, WASM, stylesheet and the files
//! of `public/`) comes from: built into the binary, so deploying is
//! copying one file; or, for development, the directory named by
//! `MESHWATCH_SITE_ROOT`, served from disk as cargo-leptos writes it.

mod files;

pub use files::{Asset, Assets, Caching, Encoding, FileAnswer, Outcome, Version};

use crate::http::state::AppState;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Router;
use leptos::prelude::{IntoView, LeptosOptions};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Said at start-up by a server built without the front end.
pub const NO_FRONT_END: &str = "this build carries no front end (build with `make build`, \
     i.e. `scripts/build-release.sh`) — pages work without JavaScript";

/// `target/site` as `scripts/build-release.sh` left it when this binary was built:
/// release builds carry its bytes (`build.rs` rebuilds them when it
/// changes); debug builds read the same directory at run time.
#[derive(rust_embed::RustEmbed)]
#[folder = "../target/site"]
// A server built without the front end (`cargo test`, `cargo bench`)
// still builds, and says so at start-up.
#[allow_missing = true]
struct Built;

impl Assets for Built {
    fn file(&self, path: &str) -> Option<Asset> {
        <Built as rust_embed::RustEmbed>::get(path).map(|file| Asset {
            sha256: file.metadata.sha256_hash(),
            bytes: file.data,
        })
    }
}

/// Where the front end comes from.
#[derive(Debug, Clone)]
pub enum SiteSource {
    /// Built into the binary; `version` is `None` when this build
    /// carries no front end.
    Embedded { version: Option<Version> },
    /// `MESHWATCH_SITE_ROOT`: a directory served as it is on disk
    /// (development), under the plain names.
    Directory(PathBuf),
}

impl SiteSource {
    /// From `MESHWATCH_SITE_ROOT` (`None`: the built-in front end).
    pub fn new(site_root: Option<&str>) -> Self {
        match site_root {
            Some(root) => Self::Directory(PathBuf::from(root)),
            None => Self::Embedded {
                version: Version::of(&Built),
            },
        }
    }

    /// Tells the operator, once at start-up, which front end is served.
    pub fn announce(&self) {
        match self {
            Self::Embedded {
                version: Some(version),
            } => tracing::info!(
                version = version.as_str(),
                "serving the front end built into this binary"
            ),
            Self::Embedded { version: None } => tracing::warn!("{NO_FRONT_END}"),
            Self::Directory(root) => tracing::info!(
                root = %root.display(),
                "serving the front end from MESHWATCH_SITE_ROOT"
            ),
        }
    }

    /// Leptos's options: the output name is what pages load — for the
    /// built-in front end `meshwatch.<version>`, so browsers may keep
    /// those files for good. (Leptos reads `site_root` only to serve a
    /// directory; the built-in front end keeps its default.)
    pub fn leptos_options(&self, address: SocketAddr) -> LeptosOptions {
        let options = LeptosOptions::builder()
            .site_pkg_dir(files::PKG_DIR)
            .site_addr(address);
        match self {
            Self::Directory(root) => options
                .output_name(files::OUTPUT_NAME)
                .site_root(root.display().to_string())
                .build(),
            Self::Embedded { version } => options
                .output_name(
                    version
                        .as_ref()
                        .map_or_else(|| files::OUTPUT_NAME.to_owned(), Version::output_name),
                )
                .build(),
        }
    }

    /// Gives `router` its fallback: a file of the site if one answers,
    /// else the not-found page, rendered like every page with `context`.
    pub fn fallback<C, F, IV>(
        &self,
        router: Router<AppState>,
        options: LeptosOptions,
        context: C,
        shell: F,
    ) -> Router<AppState>
    where
        C: Fn() + Clone + Send + Sync + 'static,
        F: Fn(LeptosOptions) -> IV + Clone + Send + Sync + 'static,
        IV: IntoView + 'static,
    {
        match self {
            // Leptos's own: `ServeDir` over `options.site_root`, with the
            // precompressed copies when they exist.
            Self::Directory(_) => {
                router.fallback(leptos_axum::file_and_error_handler_with_context::<
                    AppState,
                    _,
                >(context, shell))
            }
            Self::Embedded { version } => {
                let version = version.clone();
                let not_found = leptos_axum::render_app_async_with_context(context, move || {
                    shell(options.clone())
                });
                router.fallback(move |request: Request| async move {
                    let file = files::answer(
                        &Built,
                        version.as_ref(),
                        request.method(),
                        request.uri().path(),
                        request.headers(),
                    );
                    match file {
                        Some(file) => file.into_response(),
                        None => {
                            let mut page = not_found(request).await;
                            // As Leptos's own fallback: a page that chose
                            // its status (a redirect) keeps it.
                            if page.status() == StatusCode::OK {
                                *page.status_mut() = StatusCode::NOT_FOUND;
                            }
                            page
                        }
                    }
                })
            }
        }
    }
}

/// Whether `path` is one of the front end's files, which anyone may fetch
/// and any cache may keep (the page guard and the security headers).
pub fn is_front_end_file(path: &str) -> bool {
    path.starts_with("/pkg/") || path == "/favicon.svg"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const ADDRESS: &str = "127.0.0.1:3000";

    #[test]
    fn a_site_root_is_served_from_disk_under_the_plain_names() {
        let source = SiteSource::new(Some("/srv/site"));
        assert!(matches!(&source, SiteSource::Directory(root) if root.as_os_str() == "/srv/site"));
        let options = source.leptos_options(ADDRESS.parse().expect("address"));
        assert_eq!(&*options.output_name, "meshwatch");
        assert_eq!(&*options.site_root, "/srv/site");
        assert_eq!(&*options.site_pkg_dir, "pkg");
    }

    #[test]
    fn the_built_in_front_end_is_loaded_under_its_version() {
        let site: BTreeMap<&'static str, &'static [u8]> = BTreeMap::from([
            ("pkg/meshwatch.js", &b"js"[..]),
            ("pkg/meshwatch.wasm", &b"\0asm"[..]),
        ]);
        let version = Version::of(&site).expect("a front end");
        let source = SiteSource::Embedded {
            version: Some(version.clone()),
        };
        let options = source.leptos_options(ADDRESS.parse().expect("address"));
        assert_eq!(
            &*options.output_name,
            format!("meshwatch.{}", version.as_str())
        );
        let without = SiteSource::Embedded { version: None }
            .leptos_options(ADDRESS.parse().expect("address"));
        assert_eq!(&*without.output_name, "meshwatch");
    }

    #[test]
    fn this_build_has_a_version_exactly_when_it_carries_script_and_wasm() {
        let carried = |path: &str| Built.file(path).is_some();
        let SiteSource::Embedded { version } = SiteSource::new(None) else {
            panic!("no site root means the built-in front end");
        };
        assert_eq!(
            version.is_some(),
            carried("pkg/meshwatch.js") && carried("pkg/meshwatch.wasm")
        );
    }

    #[test]
    fn only_the_front_ends_files_are_static() {
        for path in [
            "/pkg/meshwatch.wasm",
            "/pkg/meshwatch.0123abcd4567.js",
            "/favicon.svg",
        ] {
            assert!(is_front_end_file(path), "{path}");
        }
        for path in ["/", "/login", "/pkg", "/favicon.svg/x", "/users/a/qr.svg"] {
            assert!(!is_front_end_file(path), "{path}");
        }
    }
}
