//! The panel's Prometheus metrics, kept with the `prometheus` crate
//! (`crate::http::metrics` serves them).

use meshwatch::status::ServerStatus;
use meshwatch::verdict::Verdict;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntGaugeVec, Opts, Registry, TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    servers: IntGaugeVec,
    pub reports_ingested: IntCounter,
    pub probe_results_applied: IntCounter,
    pub probe_results_skipped: IntCounter,
    pub evaluation_seconds: Histogram,
    /// Passwords verified (sign-in and the password form), so an attack
    /// on the limits shows.
    pub password_checks: IntCounter,
    outbox: IntGaugeVec,
    /// 1 for the replica that evaluates, 0 for the others (by replica name).
    pub evaluator: IntGaugeVec,
    /// Rounds the actions runner finished: it is alive, and a test can
    /// wait for a round that saw a change instead of sleeping.
    pub action_rounds: IntCounter,
}

impl Metrics {
    /// The outbox's messages in one delivery state, as counted now.
    pub fn set_outbox(&self, delivery: meshwatch_views::views::DeliveryState, count: i64) {
        self.outbox
            .with_label_values(&[delivery.as_str()])
            .set(count);
    }

    /// Every metric in the Prometheus text format, and its content type.
    pub fn text(&self) -> Result<(Vec<u8>, String), prometheus::Error> {
        let encoder = TextEncoder::new();
        let mut body = Vec::new();
        encoder.encode(&self.registry.gather(), &mut body)?;
        Ok((body, encoder.format_type().to_owned()))
    }

    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("meshwatch".into()), None)?;
        let servers = IntGaugeVec::new(Opts::new("servers", "Servers by status"), &["status"])?;
        let reports_ingested =
            IntCounter::new("reports_ingested_total", "Agent reports stored and applied")?;
        let probe_results_applied = IntCounter::new(
            "probe_results_applied_total",
            "Probe results applied to a pair (older or repeated ones are not)",
        )?;
        let probe_results_skipped = IntCounter::new(
            "probe_results_skipped_total",
            "Probe results naming unknown entry points",
        )?;
        let evaluation_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "evaluation_duration_seconds",
                "Evaluations of the mesh at each tick (what time changed)",
            )
            .buckets(vec![
                0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0,
            ]),
        )?;
        let password_checks = IntCounter::new(
            "password_checks_total",
            "Passwords verified with argon2 (sign-ins and password changes)",
        )?;
        let outbox = IntGaugeVec::new(
            Opts::new("notifications", "Notification outbox by state"),
            &["state"],
        )?;
        let evaluator = IntGaugeVec::new(
            Opts::new(
                "evaluator",
                "1 when this replica evaluates (holds the evaluator's lock), else 0",
            ),
            &["replica"],
        )?;
        let action_rounds = IntCounter::new(
            "action_rounds_total",
            "Rounds of the actions runner (due runs claimed and decided)",
        )?;
        registry.register(Box::new(action_rounds.clone()))?;
        registry.register(Box::new(evaluator.clone()))?;
        registry.register(Box::new(servers.clone()))?;
        registry.register(Box::new(reports_ingested.clone()))?;
        registry.register(Box::new(probe_results_applied.clone()))?;
        registry.register(Box::new(probe_results_skipped.clone()))?;
        registry.register(Box::new(evaluation_seconds.clone()))?;
        registry.register(Box::new(outbox.clone()))?;
        registry.register(Box::new(password_checks.clone()))?;
        Ok(Self {
            registry,
            servers,
            reports_ingested,
            probe_results_applied,
            probe_results_skipped,
            evaluation_seconds,
            password_checks,
            outbox,
            evaluator,
            action_rounds,
        })
    }

    /// Sets the servers-by-status gauges from the current verdicts.
    pub fn observe_verdicts(&self, verdicts: &[Verdict]) {
        for status in ServerStatus::ALL {
            let count = verdicts.iter().filter(|v| v.status == status).count();
            self.servers
                .with_label_values(&[status.as_str()])
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
}
