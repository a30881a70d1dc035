use super::*;
use chrono::TimeZone;
use ServerStatus::*;

fn now_state(status: ServerStatus, in_rotation: bool, planned: bool) -> ServerState {
    ServerState {
        status,
        in_rotation,
        planned,
    }
}

#[test]
fn a_route_is_operational_degraded_in_partial_outage_or_in_maintenance() {
    let ok = now_state(Healthy, true, false);
    let silent = now_state(NoData, true, false);
    let amber = now_state(EntryPointsUnavailable, true, false);
    let blocked = now_state(Blocked, false, false);
    let planned = now_state(Maintenance, false, true);
    let draining = now_state(Healthy, false, true);
    // Users get one server each (servers_per_user 1).
    let cases: [(&[ServerState], Option<RouteState>); 9] = [
        (&[ok, ok], Some(RouteState::Operational)),
        (&[ok, silent], Some(RouteState::Operational)),
        (&[ok, amber], Some(RouteState::Operational)),
        (&[ok, blocked], Some(RouteState::Operational)),
        (&[blocked, blocked], Some(RouteState::PartialOutage)),
        (&[ok, planned], Some(RouteState::Operational)),
        (&[draining, planned], Some(RouteState::Maintenance)),
        (&[planned, blocked], Some(RouteState::PartialOutage)),
        (&[], None),
    ];
    for (servers, expected) in cases {
        assert_eq!(
            route_state(servers.iter().copied(), Some(1)),
            expected,
            "{servers:?}"
        );
    }
}

#[test]
fn a_single_blocked_server_of_a_route_with_spares_never_shows() {
    let ok = now_state(Healthy, true, false);
    let blocked = now_state(Blocked, false, false);
    assert_eq!(
        route_state([ok, ok, ok, blocked], Some(2)),
        Some(RouteState::Operational)
    );
    assert_eq!(
        route_state([ok, blocked], None),
        Some(RouteState::Operational),
        "a route without a share serves every server in rotation"
    );
}

#[test]
fn users_short_of_their_share_is_degraded_or_maintenance_when_only_planned() {
    let ok = now_state(Healthy, true, false);
    let blocked = now_state(Blocked, false, false);
    let planned = now_state(Maintenance, false, true);
    assert_eq!(
        route_state([ok, blocked, blocked], Some(2)),
        Some(RouteState::Degraded)
    );
    assert_eq!(
        route_state([ok, planned, planned], Some(2)),
        Some(RouteState::Maintenance)
    );
    assert_eq!(
        route_state([ok, planned, blocked], Some(2)),
        Some(RouteState::Degraded),
        "a planned absence does not hide a fault"
    );
    assert_eq!(
        route_state([ok, ok], Some(5)),
        Some(RouteState::Operational),
        "a share larger than the route is every server"
    );
}

fn t(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, day, hour, 0, 0)
        .single()
        .expect("a time")
}

#[test]
fn each_day_shows_its_worst_moment_and_unknown_days_stay_empty() {
    let now = t(20, 12);
    let a = [
        (t(10, 0), Healthy),
        (t(15, 10), Blocked),
        (t(15, 11), Healthy),
    ];
    let b = [
        (t(10, 0), Healthy),
        (t(17, 22), Maintenance),
        (t(18, 2), Healthy),
    ];
    let days = daily_states(&[&a, &b], Some(2), now);
    assert_eq!(days.len(), DAYS as usize);
    assert_eq!(days.last().map(|d| d.date), Some(now.date_naive()));
    let on = |day: u32| {
        days.iter()
            .find(|d| d.date == t(day, 0).date_naive())
            .expect("a day")
            .state
    };
    assert_eq!(on(9), None, "before anything was recorded");
    assert_eq!(on(10), Some(RouteState::Operational));
    assert_eq!(
        on(15),
        Some(RouteState::Degraded),
        "one hour out of rotation"
    );
    assert_eq!(on(17), Some(RouteState::Maintenance));
    assert_eq!(
        on(18),
        Some(RouteState::Maintenance),
        "the window spans midnight"
    );
    assert_eq!(on(19), Some(RouteState::Operational));
    assert_eq!(on(20), Some(RouteState::Operational), "today, up to now");
}

#[test]
fn history_before_the_thirty_days_gives_the_state_they_start_in() {
    let now = t(31, 12);
    let old = [(t(1, 0) - Duration::days(40), Blocked)];
    let ok = [(t(1, 0) - Duration::days(40), Healthy)];
    let days = daily_states(&[&old, &ok], Some(2), now);
    assert!(
        days.iter().all(|d| d.state == Some(RouteState::Degraded)),
        "{days:?}"
    );
    // Every server out: a partial outage, every day.
    let days = daily_states(&[&old], Some(1), now);
    assert!(days
        .iter()
        .all(|d| d.state == Some(RouteState::PartialOutage)));
}

#[test]
fn a_span_ending_at_midnight_leaves_the_next_day_alone() {
    let now = t(20, 12);
    let a = [(t(18, 20), Blocked), (t(19, 0), Healthy)];
    let days = daily_states(&[&a], Some(1), now);
    let on = |day: u32| {
        days.iter()
            .find(|d| d.date == t(day, 0).date_naive())
            .expect("day")
            .state
    };
    assert_eq!(on(18), Some(RouteState::PartialOutage));
    assert_eq!(on(19), Some(RouteState::Operational));
}

#[test]
fn the_wire_names_are_the_api_states() {
    let names: Vec<String> = RouteState::ALL
        .iter()
        .map(|s| serde_json::to_string(s).expect("serializes"))
        .collect();
    assert_eq!(
        names,
        [
            "\"operational\"",
            "\"maintenance\"",
            "\"degraded\"",
            "\"partial_outage\""
        ]
    );
}
