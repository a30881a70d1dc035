use super::*;
use chrono::TimeZone;

fn t(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, day, hour, 0, 0)
        .single()
        .expect("a time")
}

fn plan(start: DateTime<Utc>, end: DateTime<Utc>, weekly: bool) -> MaintenancePlan {
    MaintenancePlan {
        servers: vec![ServerId::parse("de-1").expect("slug")],
        routes: Vec::new(),
        start,
        end,
        weekly,
        note: String::new(),
    }
}

fn window(start: DateTime<Utc>, end: DateTime<Utc>, weekly: bool) -> MaintenanceWindow {
    MaintenanceWindow {
        id: MaintenanceId(1),
        plan: plan(start, end, weekly),
    }
}

#[test]
fn a_plan_is_refused_for_each_reason_with_its_code() {
    let now = t(10, 12);
    let cases = [
        (
            MaintenancePlan {
                servers: Vec::new(),
                ..plan(t(11, 0), t(11, 2), false)
            },
            "no_target",
        ),
        (plan(t(11, 2), t(11, 2), false), "ends_before_start"),
        (plan(t(11, 3), t(11, 2), false), "ends_before_start"),
        (plan(t(1, 0), t(10, 12), false), "ends_in_past"),
        (
            plan(t(11, 0), t(11, 0) + Duration::days(32), false),
            "window_too_long",
        ),
        (plan(t(11, 0), t(18, 0), true), "window_too_long"),
        (
            MaintenancePlan {
                note: "x".repeat(MAX_NOTE_CHARS + 1),
                ..plan(t(11, 0), t(11, 2), false)
            },
            "note_too_long",
        ),
        (
            MaintenancePlan {
                note: "kernel\u{7}upgrade".into(),
                ..plan(t(11, 0), t(11, 2), false)
            },
            "invalid_note",
        ),
    ];
    for (plan, code) in cases {
        let refused = plan.clone().validate(now).expect_err("refused");
        assert_eq!(refused.code(), code, "{plan:?}");
        assert!(!refused.to_string().is_empty());
    }
}

#[test]
fn a_valid_plan_is_kept_trimmed_with_each_target_once() {
    let now = t(10, 12);
    let de = ServerId::parse("de-1").expect("slug");
    let valid = MaintenancePlan {
        servers: vec![de.clone(), de.clone()],
        note: "  kernel upgrade  ".into(),
        ..plan(t(11, 0), t(11, 2), false)
    }
    .validate(now)
    .expect("valid");
    assert_eq!(valid.servers, vec![de]);
    assert_eq!(valid.note, "kernel upgrade");
    // A weekly window that began in the past still plans the next ones.
    assert!(plan(t(1, 2), t(1, 4), true).validate(now).is_ok());
    // A window already holding is valid: it ends in the future.
    assert!(plan(t(10, 11), t(10, 13), false).validate(now).is_ok());
}

#[test]
fn servers_drain_one_refresh_before_the_window_and_return_when_it_ends() {
    let w = window(t(11, 10), t(11, 12), false);
    assert_eq!(w.state_at(t(11, 8)), None, "two hours before: in rotation");
    let draining = w.state_at(t(11, 9)).expect("draining an hour before");
    assert!(!draining.active);
    assert_eq!((draining.start, draining.until), (t(11, 10), t(11, 12)));
    assert!(w.state_at(t(11, 10)).expect("holds").active);
    assert!(w.state_at(t(11, 11)).expect("holds").active);
    assert_eq!(w.state_at(t(11, 12)), None, "returns by itself");
    assert!(!w.expired(t(17, 12)));
    assert!(w.expired(t(18, 12)));
}

#[test]
fn a_weekly_window_repeats_from_its_first_start_and_never_before() {
    let w = window(t(1, 2), t(1, 4), true);
    assert_eq!(w.state_at(t(1, 0)), None, "before the first start's lead");
    assert!(w.state_at(t(1, 3)).expect("first").active);
    assert_eq!(w.state_at(t(1, 5)), None);
    let second = w.state_at(t(8, 3)).expect("a week later");
    assert!(second.active);
    assert_eq!((second.start, second.until), (t(8, 2), t(8, 4)));
    assert!(!w.state_at(t(15, 1)).expect("draining").active);
    assert_eq!(
        w.occurrence(t(9, 0)),
        Some(Occurrence {
            start: t(15, 2),
            end: t(15, 4)
        })
    );
    assert!(!w.expired(t(31, 0)), "a weekly window never expires");
}

#[test]
fn overlapping_windows_hold_until_the_last_ends() {
    let a = window(t(11, 10), t(11, 12), false);
    let b = MaintenanceWindow {
        id: MaintenanceId(2),
        plan: plan(t(11, 11), t(11, 14), false),
    };
    let now = state_of([&a, &b], t(11, 11)).expect("holds");
    assert_eq!((now.id, now.until), (MaintenanceId(2), t(11, 14)));
    // One holding beats one draining, even one that ends later.
    let c = MaintenanceWindow {
        id: MaintenanceId(3),
        plan: plan(t(11, 12), t(11, 20), false),
    };
    let now = state_of([&a, &c], t(11, 11)).expect("holds");
    assert_eq!(now.id, MaintenanceId(1));
    assert_eq!(state_of([&a], t(11, 13)), None);
}

#[test]
fn form_times_are_read_as_utc_in_each_shape_a_browser_sends() {
    let at = t(4, 14);
    for raw in [
        "2026-12-04T14:00",
        "2026-12-04T14:00:00",
        " 2026-12-04 14:00 ",
        "2026-12-04T14:00:00Z",
        "2026-12-04T17:00:00+03:00",
    ] {
        assert_eq!(parse_time(raw), Some(at), "{raw}");
    }
    for raw in ["", "tomorrow", "2026-13-04T14:00", "2026-12-04"] {
        assert_eq!(parse_time(raw), None, "{raw}");
    }
    assert_eq!(form_time(at), "2026-12-04T14:00");
    assert_eq!(parse_time(&form_time(at)), Some(at));
    // Zero-padded, seconds dropped.
    let early = "2027-01-02T03:04:59Z".parse().expect("a time");
    assert_eq!(form_time(early), "2027-01-02T03:04");
}
