//! Connected panels (docs/PRODUCT.md §7, docs/API.md "Connected panels"): the panel
//! an operator already runs (Remnawave, PasarGuard, Marzneshin, Marzban,
//! 3x-ui) keeps its users and subscriptions, and meshwatch applies its
//! rotation there by turning the hosts of servers out of rotation off and
//! back on. This module decides what to change; the server's connectors
//! speak each panel's API.
//!
//! What can never happen, whatever the panel holds:
//! - a host meshwatch did not match is touched;
//! - a host the operator turned off is turned on (only hosts meshwatch
//!   itself turned off are);
//! - every matched host of a route is off (never-empty, §3).

mod import;
mod plan;
mod spec;

pub use import::{
    propose, ExternalNode, FleetNow, KnownHost, Proposal, SkipReason, SkippedHost, UNKNOWN_COUNTRY,
};
pub use plan::{plan, HostChange, KnownEntryPoint, MatchedHost, PendingChange, Plan, PlanInput};
pub use spec::{
    CheckedConnector, ConnectorMode, ConnectorSpec, ConnectorSpecError, ConnectorState,
    ConnectorView, ExternalHost, HiddenIn, PanelKind, TurnedOff, MAX_CONNECTORS, MAX_TAG_LEN,
    MAX_TOKEN_LEN, MAX_URL_LEN,
};
