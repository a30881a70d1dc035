//! Every `code` an error body can carry: the stable key scripts branch on
//! (the `message` beside it is English prose and may change). The OpenAPI
//! document's `ErrorDetail.code` is this list as an `enum`, so the debug
//! builds' contract check fails any test whose answer carries a code not
//! listed here; docs/API.md's table lists the same, checked by a test.

/// A documented error code and when the panel answers with it.
pub struct ErrorCode {
    pub code: &'static str,
    pub meaning: &'static str,
}

const fn code(code: &'static str, meaning: &'static str) -> ErrorCode {
    ErrorCode { code, meaning }
}

/// The codes, grouped as docs/API.md's table lists them.
pub const ERROR_CODES: &[ErrorCode] = &[
    // Any request.
    code(
        "unauthorized",
        "401: no valid token (operator, agent or metrics) was given",
    ),
    code(
        "insufficient_scope",
        "403: the token's scope does not allow this request",
    ),
    code("not_found", "404: no such endpoint or object"),
    code("malformed_json", "400: the body is not JSON"),
    code(
        "invalid_document",
        "422: the JSON does not have the documented shape",
    ),
    code(
        "unsupported_media_type",
        "415: the body is not sent as application/json",
    ),
    code(
        "payload_too_large",
        "413: the body is larger than its limit (1 MiB)",
    ),
    code("invalid_query", "400: a query parameter is not valid"),
    code(
        "timeout",
        "503: the request outlived the panel's request deadline",
    ),
    code(
        "internal",
        "500: the panel failed; the details are in its log",
    ),
    code(
        "database_unavailable",
        "503 (`/readyz`): the database does not answer",
    ),
    // The fleet.
    code(
        "invalid_field",
        "422: a field of the fleet document or of a report is out of its range",
    ),
    code(
        "duplicate_id",
        "422: an id appears twice in the fleet document",
    ),
    code(
        "invalid_port",
        "422: an entry point's port is not 1 to 65535",
    ),
    code(
        "unknown_route",
        "422: a server or maintenance window names a route that does not exist",
    ),
    code(
        "unknown_server",
        "404 or 422: the server named does not exist",
    ),
    code(
        "unknown_id",
        "422: the fleet document removes a server or user that does not exist",
    ),
    code(
        "token_conflict",
        "409: the agent token is already another server's",
    ),
    code(
        "entry_point_conflict",
        "409: the entry point id already belongs to another server",
    ),
    code("invalid_server_id", "422: the text is not a server id"),
    code("invalid_id", "422: the text is not a valid id"),
    // Agents.
    code("invalid_report_id", "422: `report_id` is not a UUID"),
    code(
        "too_many_probes",
        "413: a report carries more probe results than this fleet allows; split it",
    ),
    code(
        "unsupported_encoding",
        "415: the report's Content-Encoding is not gzip or identity",
    ),
    code(
        "rate_limited",
        "429: too many reports from one token; see Retry-After",
    ),
    // Settings and verifiers.
    code("invalid_setting", "422: a setting is out of its range"),
    code(
        "invalid_network",
        "422: a verifier's network label is not valid",
    ),
    code(
        "invalid_controls",
        "422: a verifier's control SNI or addresses are not valid",
    ),
    // Subscriptions.
    code(
        "unknown_format",
        "400: `format` is not one the subscription speaks",
    ),
    code(
        "credential_unavailable",
        "503: the subscription's secrets cannot be opened (key missing)",
    ),
    // Maintenance.
    code("no_target", "422: a window names no server and no route"),
    code(
        "too_many_targets",
        "422: a window names more targets than its limit",
    ),
    code("ends_before_start", "422: a window ends before it starts"),
    code(
        "window_too_long",
        "422: a window (or a weekly one) is longer than its limit",
    ),
    code("ends_in_past", "422: a window ends in the past"),
    code(
        "note_too_long",
        "422: a window's note is longer than its limit",
    ),
    code(
        "invalid_note",
        "422: a window's note holds a control character",
    ),
    code(
        "too_many_windows",
        "409: the panel keeps the most windows it allows",
    ),
    // Actions.
    code(
        "invalid_name",
        "422: an action's name is empty, too long or holds a control character",
    ),
    code(
        "command_or_http",
        "422: an action gives both or neither of `command` and `http`",
    ),
    code("invalid_command", "422: an action's command is not valid"),
    code("invalid_http", "422: an action's HTTP call is not valid"),
    code(
        "invalid_after_minutes",
        "422: an action waits longer than its limit",
    ),
    code(
        "command_actions_off",
        "422: this panel's host allows no command actions",
    ),
    code(
        "command_not_allowed",
        "422: the command is not in this host's allowed list",
    ),
    code(
        "private_target",
        "422: the HTTP call aims at a private or reserved address",
    ),
    code(
        "invalid_kinds",
        "422: `kinds` on an event other than `blocked`, or an empty list",
    ),
    code(
        "invalid_budget",
        "422: the action budget is out of its range",
    ),
    code("name_taken", "409: another action has that name"),
    code(
        "too_many_actions",
        "409: the panel keeps the most actions it allows",
    ),
    // Connected panels.
    code(
        "invalid_kind",
        "422: the connected panel's kind is not one meshwatch speaks",
    ),
    code(
        "invalid_url",
        "422: the connected panel's address is not a valid http(s) URL",
    ),
    code(
        "invalid_token",
        "422: the connected panel's credential is empty or malformed",
    ),
    code(
        "tag_unsupported",
        "422: the connected panel's kind has no host tags",
    ),
    code("invalid_tag", "422: the host tag is not valid"),
    code(
        "invalid_mode",
        "422: `mode` is neither `apply` nor `dry_run`",
    ),
    code(
        "too_many_connectors",
        "409: the panel keeps the most connections it allows",
    ),
    code(
        "connector_in_use",
        "409: the connection still has hosts meshwatch turned off",
    ),
    code("connector_removing", "409: the connection is being removed"),
    code(
        "connector_removed",
        "409: the connection was removed meanwhile",
    ),
    code(
        "panel_error",
        "502: the connected panel answered with an error",
    ),
    // The live demo only.
    code(
        "invalid_fault",
        "422: the demo's fault request is not valid",
    ),
];

/// Whether `code` is documented.
pub fn is_documented(code: &str) -> bool {
    ERROR_CODES.iter().any(|c| c.code == code)
}

/// `ErrorDetail.code` in the OpenAPI document: a string, one of the codes.
pub fn schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "Stable: scripts may branch on it. Every code, with when it is sent, is listed in docs/API.md (\"Error codes\").",
        ))
        .enum_values(Some(ERROR_CODES.iter().map(|c| c.code)))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_listed_once_in_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for c in ERROR_CODES {
            assert!(seen.insert(c.code), "{} twice", c.code);
            assert!(
                c.code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{}",
                c.code
            );
        }
    }

    #[test]
    fn docs_api_lists_every_code_and_no_other() {
        let api = include_str!("../../../../../docs/API.md");
        let table = api
            .split("### Error codes")
            .nth(1)
            .expect("docs/API.md has an \"Error codes\" section");
        let listed: Vec<&str> = table
            .lines()
            .take_while(|l| !l.starts_with('#'))
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let documented: Vec<&str> = ERROR_CODES.iter().map(|c| c.code).collect();
        assert_eq!(listed, documented, "docs/API.md's table, in this order");
    }

    #[test]
    fn domain_refusals_use_documented_codes() {
        use meshwatch::maintenance::MaintenanceError as M;
        for e in [
            M::NoTarget,
            M::TooManyTargets,
            M::EndsBeforeStart,
            M::TooLong,
            M::WeeklyTooLong,
            M::EndsInPast,
            M::NoteTooLong,
            M::InvalidNote,
        ] {
            assert!(is_documented(e.code()), "{}", e.code());
        }
        use meshwatch::actions::ActionError as A;
        for e in [
            A::InvalidName,
            A::OneKind,
            A::InvalidCommand(String::new()),
            A::InvalidHttp(String::new()),
            A::AfterTooLong,
            A::CommandActionsOff,
            A::InvalidKinds,
        ] {
            assert!(is_documented(e.code()), "{}", e.code());
        }
    }
}
