use crate::helpers::{error_code, spawn_app};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_says_the_process_is_up() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/healthz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_says_the_database_answers() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/readyz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["status"], "ready");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_api_paths_get_a_json_404() {
    let app = spawn_app().await;
    for path in ["/api/v1/nothing", "/api/v2/fleet"] {
        let response = app
            .client
            .get(app.url(path))
            .bearer_auth(crate::helpers::ADMIN_TOKEN)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response).await, "not_found");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_served_in_the_prometheus_format() {
    use crate::agent::{all_report, fleet};
    let app = spawn_app().await;
    let tokens = fleet(&app).await;
    all_report(&app, &tokens, 100).await;
    app.tick().await;
    let response = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let text = response.text().await.expect("text");
    for needle in [
        "meshwatch_reports_ingested_total 5",
        "meshwatch_servers{status=\"healthy\"} 5",
        "meshwatch_evaluation_duration_seconds_count",
        "meshwatch_notifications{state=\"queued\"} 0",
        "meshwatch_probe_results_applied_total",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
}
