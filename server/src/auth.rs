//! Who may ask: operators' sign-in and its limits, sessions, the proxies
//! whose headers name the client, and agents' report limits. (Password
//! hashes, tokens and sealing are [`crate::crypto`]'s, below the store.)

pub mod client_address;
pub mod login;
pub mod login_limit;
pub mod password_check;
pub mod report_limit;
pub mod sessions;

use std::sync::Arc;

/// Who may ask: what sign-in, sessions and the agents' limits need (a
/// sub-state of the router's, `State<Access>`).
#[derive(Clone)]
pub struct Access {
    pub limiter: Arc<login::SignInLimits>,
    /// The budget of concurrent password checks.
    pub password_checks: Arc<password_check::PasswordChecks>,
    /// Whose forwarding headers name the client.
    pub trusted_proxies: Arc<client_address::TrustedProxies>,
    pub report_limiter: Arc<report_limit::ReportLimiter>,
    pub sessions: Arc<sessions::SessionCache>,
    /// Where browsers reach the panel (`MESHWATCH_PUBLIC_URL`, else each
    /// request's `Host`): cross-site checks, links, the session cookie.
    pub site: app::auth::PanelSite,
}
