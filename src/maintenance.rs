//! Maintenance windows (docs/PRODUCT.md §6): the operator plans a server's (or
//! a route's) absence. From [`DRAIN_LEAD`] before a window starts until it
//! ends its servers are out of rotation, so the apps have moved away when
//! the work begins; while it holds they show "In maintenance" above every
//! verdict, which is still derived. Nothing is told or run for them, and
//! they return by themselves when it ends.

use crate::ids::{RouteId, ServerId};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Hours between an app's refreshes of its subscription, sent to the apps
/// as `profile-update-interval`.
pub const SUBSCRIPTION_REFRESH_HOURS: u32 = 1;

/// How long before a window its servers leave rotation: one refresh of
/// the apps, so that each has fetched a subscription without them when
/// the window starts.
pub fn drain_lead() -> Duration {
    Duration::hours(i64::from(SUBSCRIPTION_REFRESH_HOURS))
}

/// Windows kept at once (ended one-off windows are dropped after
/// [`KEEP_ENDED_DAYS`]).
pub const MAX_WINDOWS: usize = 200;
/// Servers plus routes one window names.
pub const MAX_TARGETS: usize = 1000;
/// The longest note, in characters.
pub const MAX_NOTE_CHARS: usize = 500;
/// The longest one-off window: a longer one is more likely a typo in the
/// year than a plan (a server gone that long should leave the fleet).
pub const MAX_ONE_OFF_DAYS: i64 = 31;
/// Days an ended one-off window stays listed.
pub const KEEP_ENDED_DAYS: i64 = 7;

fn week() -> Duration {
    Duration::days(7)
}

/// A stored window's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct MaintenanceId(pub i64);

impl fmt::Display for MaintenanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What the operator plans: which servers and routes, when, and whether
/// it repeats every week.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MaintenancePlan {
    #[serde(default)]
    pub servers: Vec<ServerId>,
    #[serde(default)]
    pub routes: Vec<RouteId>,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    #[serde(default)]
    pub weekly: bool,
    #[serde(default)]
    pub note: String,
}

/// Why a plan is refused; nothing is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceError {
    /// Neither a server nor a route is named.
    NoTarget,
    TooManyTargets,
    /// The end is not after the start.
    EndsBeforeStart,
    /// A one-off window longer than [`MAX_ONE_OFF_DAYS`].
    TooLong,
    /// A weekly window of a week or more would never end.
    WeeklyTooLong,
    /// A one-off window that has already ended.
    EndsInPast,
    NoteTooLong,
    /// The note holds a control character (it is shown in the panel).
    InvalidNote,
}

impl MaintenanceError {
    /// The API's `error` code.
    pub fn code(self) -> &'static str {
        match self {
            Self::NoTarget => "no_target",
            Self::TooManyTargets => "too_many_targets",
            Self::EndsBeforeStart => "ends_before_start",
            Self::TooLong => "window_too_long",
            Self::WeeklyTooLong => "window_too_long",
            Self::EndsInPast => "ends_in_past",
            Self::NoteTooLong => "note_too_long",
            Self::InvalidNote => "invalid_note",
        }
    }
}

impl fmt::Display for MaintenanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoTarget => f.write_str("name at least one server or route"),
            Self::TooManyTargets => {
                write!(f, "a window names at most {MAX_TARGETS} servers and routes")
            }
            Self::EndsBeforeStart => f.write_str("the end must be after the start"),
            Self::TooLong => write!(f, "a window lasts at most {MAX_ONE_OFF_DAYS} days"),
            Self::WeeklyTooLong => f.write_str("a weekly window must be shorter than a week"),
            Self::EndsInPast => f.write_str("the window has already ended"),
            Self::NoteTooLong => write!(f, "the note is longer than {MAX_NOTE_CHARS} characters"),
            Self::InvalidNote => f.write_str("the note holds a control character"),
        }
    }
}

impl std::error::Error for MaintenanceError {}

impl MaintenancePlan {
    /// The plan as it will be stored (the note trimmed, each target once),
    /// or why it is refused at `now`.
    pub fn validate(mut self, now: DateTime<Utc>) -> Result<Self, MaintenanceError> {
        dedup(&mut self.servers);
        dedup(&mut self.routes);
        if self.servers.is_empty() && self.routes.is_empty() {
            return Err(MaintenanceError::NoTarget);
        }
        if self.servers.len() + self.routes.len() > MAX_TARGETS {
            return Err(MaintenanceError::TooManyTargets);
        }
        if self.end <= self.start {
            return Err(MaintenanceError::EndsBeforeStart);
        }
        let length = self.end - self.start;
        if self.weekly && length >= week() {
            return Err(MaintenanceError::WeeklyTooLong);
        }
        if !self.weekly && length > Duration::days(MAX_ONE_OFF_DAYS) {
            return Err(MaintenanceError::TooLong);
        }
        if !self.weekly && self.end <= now {
            return Err(MaintenanceError::EndsInPast);
        }
        self.note = self.note.trim().to_owned();
        if self.note.chars().count() > MAX_NOTE_CHARS {
            return Err(MaintenanceError::NoteTooLong);
        }
        if self.note.chars().any(char::is_control) {
            return Err(MaintenanceError::InvalidNote);
        }
        Ok(self)
    }
}

fn dedup<T: PartialEq + Clone>(items: &mut Vec<T>) {
    let mut seen: Vec<T> = Vec::with_capacity(items.len());
    items.retain(|item| {
        let new = !seen.contains(item);
        if new {
            seen.push(item.clone());
        }
        new
    });
}

/// A stored window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MaintenanceWindow {
    pub id: MaintenanceId,
    #[serde(flatten)]
    pub plan: MaintenancePlan,
}

/// One occurrence of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Occurrence {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

/// What a window does to a server now: it holds (`active`), or it starts
/// within [`drain_lead`] and the server is already out of rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InMaintenance {
    pub id: MaintenanceId,
    pub start: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub active: bool,
}

impl MaintenanceWindow {
    /// The occurrence in effect at `at`, else the next one; `None` once a
    /// one-off window has ended. A weekly window repeats from its first
    /// start onwards, never before it.
    pub fn occurrence(&self, at: DateTime<Utc>) -> Option<Occurrence> {
        let MaintenancePlan { start, end, .. } = self.plan;
        if at < end {
            return Some(Occurrence { start, end });
        }
        if !self.plan.weekly {
            return None;
        }
        let weeks = (at - end).num_milliseconds() / week().num_milliseconds() + 1;
        let shift = week() * i32::try_from(weeks).ok()?;
        Some(Occurrence {
            start: start.checked_add_signed(shift)?,
            end: end.checked_add_signed(shift)?,
        })
    }

    /// What it does to its servers at `at`; `None` while it is neither
    /// draining nor holding.
    pub fn state_at(&self, at: DateTime<Utc>) -> Option<InMaintenance> {
        let next = self.occurrence(at)?;
        (at >= next.start - drain_lead()).then_some(InMaintenance {
            id: self.id,
            start: next.start,
            until: next.end,
            active: at >= next.start,
        })
    }

    /// An ended one-off window, past the days it stays listed.
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        !self.plan.weekly && self.plan.end + Duration::days(KEEP_ENDED_DAYS) <= now
    }
}

/// Of the windows that apply to one server, the one that decides its
/// state at `at`: a holding window before a draining one, and of those
/// the one that ends last (overlapping windows hold until the last ends).
pub fn state_of<'a>(
    windows: impl IntoIterator<Item = &'a MaintenanceWindow>,
    at: DateTime<Utc>,
) -> Option<InMaintenance> {
    windows
        .into_iter()
        .filter_map(|w| w.state_at(at))
        .max_by_key(|m| (m.active, m.until, std::cmp::Reverse(m.id)))
}

/// A time from a form, in UTC: RFC 3339, or a `datetime-local` input's
/// `2026-12-04T14:00` (with or without seconds, `T` or a space).
pub fn parse_time(raw: &str) -> Option<DateTime<Utc>> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.with_timezone(&Utc));
    }
    [
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%d %H:%M:%S",
    ]
    .iter()
    .find_map(|f| chrono::NaiveDateTime::parse_from_str(raw, f).ok())
    .map(|naive| naive.and_utc())
}

/// A time as a `datetime-local` input shows it (UTC, to the minute).
/// From the fields: chrono's `format` parses its pattern on every call,
/// and every server card writes two of these.
pub fn form_time(at: DateTime<Utc>) -> String {
    use chrono::{Datelike, Timelike};
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute()
    )
}

/// The windows that have not ended at `now`, by their current or next
/// occurrence's start.
pub fn upcoming<'a>(
    windows: impl IntoIterator<Item = &'a MaintenanceWindow>,
    now: DateTime<Utc>,
) -> Vec<MaintenanceWindow> {
    let mut out: Vec<(Occurrence, &MaintenanceWindow)> = windows
        .into_iter()
        .filter_map(|w| Some((w.occurrence(now)?, w)))
        .collect();
    out.sort_by_key(|(o, w)| (o.start, w.id));
    out.into_iter().map(|(_, w)| w.clone()).collect()
}

#[cfg(test)]
mod tests;
