//! The public status page (docs/PRODUCT.md §6): per route, by its public name,
//! one of four states now and for each of the last 30 days, and the
//! maintenance windows planned. It never names a server, an address, an
//! entry point or a verifier: those would help a censor. What it shows is
//! built here from statuses alone, so nothing else can leak into it.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use meshwatch::maintenance::Occurrence;
use meshwatch::status::ServerStatus;
use serde::{Deserialize, Serialize};

/// Days of bars per route.
pub const DAYS: u32 = 30;

/// A route as its users feel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RouteState {
    /// Every user is served by servers in rotation, in full.
    Operational,
    /// Planned maintenance alone leaves users short (or holds the route).
    Maintenance,
    /// Some users get fewer servers than their share: no spare is left.
    Degraded,
    /// No server is in rotation: the best available one is served.
    PartialOutage,
}

impl RouteState {
    pub const ALL: [RouteState; 4] = [
        RouteState::Operational,
        RouteState::Maintenance,
        RouteState::Degraded,
        RouteState::PartialOutage,
    ];

    /// How bad it is: a day's bar shows its worst moment.
    fn severity(self) -> u8 {
        match self {
            RouteState::Operational => 0,
            RouteState::Maintenance => 1,
            RouteState::Degraded => 2,
            RouteState::PartialOutage => 3,
        }
    }

    /// The worse of two states.
    pub fn worst(self, other: RouteState) -> RouteState {
        if other.severity() > self.severity() {
            other
        } else {
            self
        }
    }
}

/// What the page needs of one server of a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerState {
    pub status: ServerStatus,
    pub in_rotation: bool,
    /// Out (or about to be) for a maintenance window.
    pub planned: bool,
}

impl ServerState {
    /// A server's state as its status history tells it (a window's drain
    /// is not recorded: only the window itself).
    pub fn recorded(status: ServerStatus) -> Self {
        Self {
            status,
            in_rotation: !status.takes_out_of_rotation() && status != ServerStatus::Maintenance,
            planned: status == ServerStatus::Maintenance,
        }
    }
}

/// The state of a route whose servers are in these states, as its
/// customers experience it; `None` for a route with no server known.
///
/// Each user gets `share` servers of the route (`servers_per_user`; a
/// route without one serves every server in rotation, so one is enough).
/// While at least that many are in rotation every user is served in full,
/// whatever was taken out: Operational. A block no user noticed never
/// shows, so the page cannot confirm to a censor that an address it
/// blocked is ours. Fewer than that: Degraded (some users get fewer
/// servers), or Maintenance when only planned windows took them. None in
/// rotation: Partial outage (the route serves its best available), or
/// Maintenance when only windows hold it.
pub fn route_state(
    servers: impl IntoIterator<Item = ServerState>,
    share: Option<u32>,
) -> Option<RouteState> {
    let (mut known, mut serving, mut out_unplanned) = (0u32, 0u32, 0u32);
    for s in servers {
        known += 1;
        if s.in_rotation {
            serving += 1;
        } else if !s.planned {
            out_unplanned += 1;
        }
    }
    if known == 0 {
        return None;
    }
    let wanted = share.unwrap_or(1).clamp(1, known);
    Some(match (serving, out_unplanned) {
        (0, 0) => RouteState::Maintenance,
        (0, _) => RouteState::PartialOutage,
        (s, _) if s >= wanted => RouteState::Operational,
        (_, 0) => RouteState::Maintenance,
        _ => RouteState::Degraded,
    })
}

/// One day's bar: its worst state, `None` when nothing of it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DayState {
    pub date: NaiveDate,
    pub state: Option<RouteState>,
}

/// The last [`DAYS`] days (UTC, oldest first, today last) of a route
/// whose servers have these status histories (each ascending; the first
/// change may precede the first day, giving the state it starts in).
pub fn daily_states(
    histories: &[&[(DateTime<Utc>, ServerStatus)]],
    share: Option<u32>,
    now: DateTime<Utc>,
) -> Vec<DayState> {
    let today = now.date_naive();
    let first = today - Duration::days(i64::from(DAYS) - 1);
    let from = first.and_hms_opt(0, 0, 0).map_or(now, |t| t.and_utc());
    let mut days: Vec<DayState> = (0..i64::from(DAYS))
        .map(|k| DayState {
            date: first + Duration::days(k),
            state: None,
        })
        .collect();
    // Every moment a server's status changes, in order.
    let mut moments: Vec<(DateTime<Utc>, usize, ServerStatus)> = histories
        .iter()
        .enumerate()
        .flat_map(|(s, h)| h.iter().map(move |&(at, status)| (at.max(from), s, status)))
        .filter(|(at, ..)| *at <= now)
        .collect();
    moments.sort_by_key(|&(at, s, _)| (at, s));
    let mut current: Vec<Option<ServerStatus>> = vec![None; histories.len()];
    for (k, &(at, s, status)) in moments.iter().enumerate() {
        current[s] = Some(status);
        let until = moments.get(k + 1).map_or(now, |m| m.0);
        // Changes at one moment are applied together; an empty span (one
        // that begins at now) still counts for today.
        if until == at && k + 1 < moments.len() {
            continue;
        }
        let Some(state) = route_state(
            current.iter().flatten().map(|&s| ServerState::recorded(s)),
            share,
        ) else {
            continue;
        };
        // The days the span [at, until) touches (a span ending at
        // midnight does not touch the next day).
        let last = if until > at {
            (until - Duration::nanoseconds(1)).date_naive()
        } else {
            at.date_naive()
        };
        let mut day = at.date_naive();
        while day <= last {
            if let Some(d) = days.iter_mut().find(|d| d.date == day) {
                d.state = Some(d.state.map_or(state, |old| old.worst(state)));
            }
            day += Duration::days(1);
        }
    }
    days
}

/// One route as the public sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PublicRoute {
    /// The route's public name.
    pub name: String,
    pub state: RouteState,
    pub days: Vec<DayState>,
    /// The maintenance windows holding now or planned for it (times only:
    /// a note may name a server).
    pub maintenance: Vec<Occurrence>,
}

/// The whole page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PublicStatus {
    pub routes: Vec<PublicRoute>,
    pub updated_at: DateTime<Utc>,
}

impl PublicStatus {
    /// The worst state of any route (`Operational` with none).
    pub fn overall(&self) -> RouteState {
        self.routes
            .iter()
            .map(|r| r.state)
            .fold(RouteState::Operational, RouteState::worst)
    }
}

#[cfg(test)]
mod tests;
