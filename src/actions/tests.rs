use super::*;
use chrono::TimeZone;
use ServerStatus::*;

fn spec(command: Option<Vec<&str>>, http: Option<HttpCall>) -> ActionSpec {
    ActionSpec {
        name: "rotate IP".into(),
        on: ActionEvent::Blocked,
        after_minutes: 10,
        command: command.map(|c| c.into_iter().map(String::from).collect()),
        http,
        kinds: None,
    }
}

fn call(url: &str) -> HttpCall {
    HttpCall {
        url: url.into(),
        method: HttpMethod::Post,
        headers: BTreeMap::new(),
        body: None,
    }
}

#[test]
fn an_action_is_a_command_or_an_http_call_and_each_limit_is_checked() {
    let NewAction {
        name,
        on,
        after_minutes: after,
        kind,
        kinds,
    } = spec(Some(vec!["/usr/bin/rotate", "--now"]), None)
        .validate()
        .expect("valid");
    assert!(kinds.is_empty(), "every kind by default");
    assert_eq!(
        (name.as_str(), on, after),
        ("rotate IP", ActionEvent::Blocked, 10)
    );
    assert_eq!(
        kind,
        ActionKind::Command(vec!["/usr/bin/rotate".into(), "--now".into()])
    );
    assert!(spec(None, Some(call("https://hooks.example/rotate")))
        .validate()
        .is_ok());

    let refused = |s: ActionSpec| s.validate().expect_err("refused").code();
    assert_eq!(refused(spec(None, None)), "command_or_http");
    assert_eq!(
        refused(spec(
            Some(vec!["/bin/true"]),
            Some(call("https://a.example"))
        )),
        "command_or_http"
    );
    assert_eq!(refused(spec(Some(vec![]), None)), "invalid_command");
    assert_eq!(refused(spec(Some(vec![" "]), None)), "invalid_command");
    let many: Vec<&str> = std::iter::repeat_n("x", MAX_ARGS + 1).collect();
    assert_eq!(refused(spec(Some(many), None)), "invalid_command");
    for url in [
        "ftp://a.example",
        "https://",
        "https:///path",
        "https://a b.example",
    ] {
        assert_eq!(
            refused(spec(None, Some(call(url)))),
            "invalid_http",
            "{url}"
        );
    }
    let mut bad_header = call("https://a.example");
    bad_header.headers.insert("Bad Header".into(), "x".into());
    assert_eq!(refused(spec(None, Some(bad_header))), "invalid_http");
    let mut big = call("https://a.example");
    big.body = Some(serde_json::Value::String("x".repeat(MAX_BODY_BYTES)));
    assert_eq!(refused(spec(None, Some(big))), "invalid_http");
    assert_eq!(
        refused(ActionSpec {
            name: " ".into(),
            ..spec(Some(vec!["/bin/true"]), None)
        }),
        "invalid_name"
    );
    assert_eq!(
        refused(ActionSpec {
            after_minutes: MAX_AFTER_MINUTES + 1,
            ..spec(Some(vec!["/bin/true"]), None)
        }),
        "invalid_after_minutes"
    );
}

fn change(previous: &[ServerStatus], conditions: &[ServerStatus]) -> VerdictChange {
    VerdictChange {
        server: ServerId::parse("de-1").expect("slug"),
        status: conditions[0],
        conditions: conditions.to_vec(),
        previous: previous.to_vec(),
        calm_previous: if previous.contains(&ServerStatus::Maintenance) {
            Vec::new()
        } else {
            previous.to_vec()
        },
        at: Utc
            .with_ymd_and_hms(2026, 12, 4, 12, 0, 0)
            .single()
            .expect("a time"),
    }
}

#[test]
fn each_event_starts_with_its_change_and_never_in_a_window() {
    use ActionEvent as E;
    let cases = [
        (E::Blocked, &[Healthy][..], &[Blocked][..], true),
        (E::Blocked, &[Blocked], &[Blocked, NoData], false),
        (E::Blocked, &[], &[Blocked], true),
        (E::Cleared, &[Blocked], &[Healthy], true),
        (E::Cleared, &[Healthy], &[NoData], false),
        (E::Unavailable, &[Healthy], &[Unavailable, Blocked], true),
        (E::Unreachable, &[NoData], &[Unreachable], true),
        (E::Unreachable, &[Unreachable], &[Healthy], false),
        // No action runs for a server in a maintenance window...
        (E::Blocked, &[Healthy], &[Maintenance, Blocked], false),
        (E::Cleared, &[Maintenance, Blocked], &[Maintenance], false),
        (E::Cleared, &[Maintenance, Blocked], &[Healthy], false),
        // ...and a condition still holding when it ends is an event then.
        (E::Blocked, &[Maintenance, Blocked], &[Blocked], true),
    ];
    for (event, previous, conditions, starts) in cases {
        assert_eq!(
            event.starts_with(&change(previous, conditions)),
            starts,
            "{event:?}: {previous:?} → {conditions:?}"
        );
    }
    assert!(E::Blocked.still_holds(&[Blocked]));
    assert!(!E::Blocked.still_holds(&[Healthy]));
    assert!(E::Cleared.still_holds(&[Healthy]));
    assert!(!E::Cleared.still_holds(&[Blocked]));
}

#[test]
fn the_body_template_names_the_event_in_its_strings_only() {
    let facts = EventFacts {
        event: ActionEvent::Blocked,
        server_id: ServerId::parse("de-1").expect("slug"),
        server_name: "Frankfurt 1".into(),
        addresses: vec!["203.0.113.10:443".into(), "203.0.113.10:8443".into()],
        since: Utc
            .with_ymd_and_hms(2026, 12, 4, 12, 0, 0)
            .single()
            .expect("a time"),
        action: "rotate".into(),
        server: serde_json::json!({}),
        kinds: vec![BlockKind::Ip],
    };
    let template = serde_json::json!({
        "text": "{{server_name}} ({{server_id}}) is {{event}} since {{since}}",
        "{{event}}": ["{{addresses}}", 3, true, null],
    });
    assert_eq!(
        fill_template(&template, &facts),
        serde_json::json!({
            "text": "Frankfurt 1 (de-1) is blocked since 2026-12-04T12:00:00+00:00",
            "{{event}}": ["203.0.113.10:443,203.0.113.10:8443", 3, true, null],
        })
    );
}

#[test]
fn retries_back_off_and_wire_names_round_trip() {
    assert_eq!(retry_after(1), chrono::Duration::seconds(30));
    assert_eq!(retry_after(2), chrono::Duration::seconds(60));
    assert_eq!(retry_after(4), chrono::Duration::seconds(240));
    for e in ActionEvent::ALL {
        assert_eq!(ActionEvent::from_wire(e.as_str()), Some(e));
        assert_eq!(
            serde_json::to_string(&e).expect("json"),
            format!("\"{}\"", e.as_str())
        );
    }
}

#[test]
fn the_budget_allows_runs_up_to_its_bounds() {
    let budget = ActionBudget::default();
    assert_eq!((budget.runs_per_hour, budget.cooldown_s), (6, 6 * 3600));
    assert_eq!(budget.allows(5, false), Ok(()));
    assert_eq!(budget.allows(6, false), Err(OverBudget::RunsPerHour(6)));
    assert_eq!(budget.allows(0, true), Err(OverBudget::Cooldown(6 * 3600)));
    assert!(ActionBudget {
        runs_per_hour: 0,
        cooldown_s: 0
    }
    .validate()
    .is_err());
    assert!(ActionBudget {
        runs_per_hour: 1,
        cooldown_s: MAX_COOLDOWN_S + 1
    }
    .validate()
    .is_err());
    assert!(ActionBudget {
        runs_per_hour: MAX_RUNS_PER_HOUR,
        cooldown_s: 0
    }
    .validate()
    .is_ok());
}

#[test]
fn a_url_reads_without_its_userinfo_or_query_values() {
    assert_eq!(
        redact_url("https://user:pw@cloud.example:8443/hook?token=abc&x=1#f"),
        "https://(hidden)@cloud.example:8443/hook?token=(hidden)&x=(hidden)#f"
    );
    assert_eq!(
        redact_url("https://cloud.example/hook"),
        "https://cloud.example/hook"
    );
}

#[test]
fn an_incident_is_one_continuous_holding() {
    let held: [&[ServerStatus]; 2] = [&[Blocked], &[Unreachable, Blocked]];
    assert!(ActionEvent::Blocked.held_throughout(held));
    let cleared_and_back: [&[ServerStatus]; 3] = [&[Blocked], &[Healthy], &[Blocked]];
    assert!(!ActionEvent::Blocked.held_throughout(cleared_and_back));
    let stayed_clear: [&[ServerStatus]; 1] = [&[Healthy]];
    assert!(ActionEvent::Cleared.held_throughout(stayed_clear));
}

#[test]
fn a_mass_block_s_actions_wait_for_the_operator_s_word() {
    let id = |s: &str| ServerId::parse(s).expect("slug");
    let (ru, ir) = (id("ru-1"), id("ir-1"));
    let just_ru = std::slice::from_ref(&ru);
    let none = |_: &ServerId| None;
    assert_eq!(mass_gate(just_ru, &[], none), MassGate::Open, "no guard");
    assert_eq!(mass_gate(just_ru, just_ru, none), MassGate::Held);
    assert_eq!(
        mass_gate(&[ru.clone(), ir], just_ru, none),
        MassGate::Open,
        "a verifier outside the guard sees it too"
    );
    let confirmed = |_: &ServerId| Some(MassDecision::Confirmed);
    assert_eq!(mass_gate(just_ru, just_ru, confirmed), MassGate::Open);
    let dismissed = |_: &ServerId| Some(MassDecision::Dismissed);
    assert_eq!(mass_gate(just_ru, just_ru, dismissed), MassGate::Dismissed);
}

// PRODUCT.md §8: actions see the kind of a block.

fn action_on(kinds: &[BlockKind]) -> Action {
    let new = ActionSpec {
        kinds: (!kinds.is_empty()).then(|| kinds.to_vec()),
        ..spec(Some(vec!["/usr/bin/rotate"]), None)
    }
    .validate()
    .expect("valid");
    Action {
        id: ActionId(1),
        name: new.name,
        on: new.on,
        after_minutes: new.after_minutes,
        kind: new.kind,
        kinds: new.kinds,
    }
}

#[test]
fn a_blocked_action_limited_to_kinds_runs_only_on_those_kinds() {
    let rotate = action_on(&[BlockKind::Ip, BlockKind::Throttled]);
    assert!(rotate.runs_on(&[BlockKind::Ip]));
    assert!(rotate.runs_on(&[BlockKind::Sni, BlockKind::Throttled]));
    assert!(!rotate.runs_on(&[BlockKind::Sni]));
    assert!(!rotate.runs_on(&[]));
    assert!(
        action_on(&[]).runs_on(&[BlockKind::Sni]),
        "no limit: every kind"
    );
}

#[test]
fn kinds_are_for_blocked_actions_and_never_empty() {
    let refused = |s: ActionSpec| s.validate().expect_err("refused").code();
    assert_eq!(
        refused(ActionSpec {
            kinds: Some(vec![]),
            ..spec(Some(vec!["/bin/true"]), None)
        }),
        "invalid_kinds"
    );
    assert_eq!(
        refused(ActionSpec {
            on: ActionEvent::Cleared,
            kinds: Some(vec![BlockKind::Ip]),
            ..spec(Some(vec!["/bin/true"]), None)
        }),
        "invalid_kinds"
    );
    let twice = ActionSpec {
        kinds: Some(vec![BlockKind::Throttled, BlockKind::Ip, BlockKind::Ip]),
        ..spec(Some(vec!["/bin/true"]), None)
    };
    assert_eq!(
        twice.validate().expect("valid").kinds,
        vec![BlockKind::Ip, BlockKind::Throttled]
    );
}

proptest::proptest! {
    /// The shipped IP-rotation examples are registered with
    /// `kinds: [ip, throttled]`: whatever mix of blocks a server has, an
    /// SNI or protocol block alone never runs one.
    #[test]
    fn an_sni_or_protocol_block_never_runs_an_ip_action(
        kinds in proptest::collection::vec(
            proptest::sample::select(BlockKind::ALL.to_vec()), 0..4),
    ) {
        let rotate = action_on(&IP_ROTATION_KINDS);
        let new_address_helps = kinds.iter().any(|k| k.new_address_helps());
        proptest::prop_assert_eq!(rotate.runs_on(&kinds), new_address_helps);
    }
}
