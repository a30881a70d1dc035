//! The agent's life: fetch the panel's configuration, then self-check and
//! report every `report_interval`, probe every peer every `probe_interval`
//! (with jitter), refresh the configuration so new servers get probed, and
//! deliver reports through the outbox until the panel acknowledges them.

use super::backoff::Backoff;
use super::config::AgentSettings;
use super::host_metrics::HostSampler;
use super::outbox::Outbox;
use super::panel_client::{Delivery, PanelClient};
use super::probe::{Prober, RoundPlan};
use super::report_parts;
use super::{self_check, AGENT_VERSION};
use chrono::{DateTime, Utc};
use meshwatch::agent_api::{AgentConfig, AgentReport, ProbeReport};
use meshwatch::evidence::{Check, ProbeError};
use rand::Rng;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// How long the fleet check before a probe round may hold the round up.
const CONFIG_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// How long shutdown waits for the last report to be delivered.
const FLUSH_DEADLINE: Duration = Duration::from_secs(5);

/// Running totals, for logs, tests and the embedding program.
#[derive(Debug, Default)]
pub struct AgentCounters {
    pub reports_queued: AtomicU64,
    pub reports_delivered: AtomicU64,
    /// Refused by the panel with a 4xx other than 429, and dropped.
    pub reports_rejected: AtomicU64,
    /// Dropped because the queue was full (the oldest go first).
    pub reports_dropped: AtomicU64,
    pub probes_done: AtomicU64,
    pub probe_rounds: AtomicU64,
}

impl AgentCounters {
    fn bump(counter: &AtomicU64, by: u64) {
        counter.fetch_add(by, Ordering::Relaxed);
    }

    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

#[derive(Clone, Copy)]
struct Clock {
    offset: chrono::Duration,
}

impl Clock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.offset
    }
}

type SharedOutbox = Arc<Mutex<Outbox>>;

/// What the agent knows of the panel's fleet version: a report's answer
/// with another one means the peers changed (say a server got a new IP),
/// and the configuration is fetched again at once rather than at the next
/// refresh.
#[derive(Default)]
struct FleetWatch {
    version: AtomicU64,
    changed: Notify,
}

impl FleetWatch {
    fn saw(&self, version: u64) {
        // 0: a panel that does not tell.
        if version != 0 && version != self.version.load(Ordering::Relaxed) {
            self.changed.notify_one();
        }
    }
}

fn lock(outbox: &SharedOutbox) -> std::sync::MutexGuard<'_, Outbox> {
    outbox
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs until `shutdown` resolves, then queues a last report (self-check
/// and the probe results gathered so far) and tries for a few seconds to
/// deliver what is queued; the spool keeps anything left.
pub async fn run(
    settings: AgentSettings,
    counters: Arc<AgentCounters>,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    warn_if_the_panel_is_reached_in_clear(&settings);
    let client = PanelClient::new(&settings)?;
    let outbox = Outbox::open(settings.max_queued_reports, settings.spool_dir.clone())
        .map_err(|e| anyhow::anyhow!("cannot open the report spool: {e}"))?;
    let spooled = outbox.len();
    let outbox: SharedOutbox = Arc::new(Mutex::new(outbox));
    let clock = Clock {
        offset: settings.clock_offset,
    };
    let wake = Arc::new(Notify::new());
    let fleet = Arc::new(FleetWatch::default());
    if spooled > 0 {
        tracing::info!(spooled, "resending reports left by the previous run");
        wake.notify_one();
    }
    let sender = tokio::spawn(send_loop(
        client.clone(),
        outbox.clone(),
        wake.clone(),
        counters.clone(),
        Courier {
            clock,
            fleet: fleet.clone(),
        },
    ));
    tokio::pin!(shutdown);

    let config = tokio::select! {
        config = fetch_config_until_ok(&client) => config,
        () = &mut shutdown => {
            sender.abort();
            return Ok(());
        }
    };
    tracing::info!(
        peers = config.peers.len(),
        report_interval_s = config.report_interval_s,
        probe_interval_s = config.probe_interval_s,
        "configuration received from the panel"
    );

    let prober = Prober::new(Duration::ZERO, settings.probe_source)
        .allowing_private_targets(settings.allow_private_targets);
    let mut state = Loop {
        settings,
        client,
        outbox,
        counters,
        clock,
        wake,
        sampler: Arc::new(Mutex::new(HostSampler::default())),
        pending: Vec::new(),
        prober,
        config: config.clone(),
        fleet,
        verifier_rounds: VerifierRounds::default(),
    };
    state.apply_config(config);
    state.run(&mut shutdown).await;

    sender.abort();
    let _ = sender.await;
    state.queue_report().await;
    flush(
        &state.client,
        &state.outbox,
        &state.counters,
        &Courier {
            clock: state.clock,
            fleet: state.fleet.clone(),
        },
        FLUSH_DEADLINE,
    )
    .await;
    let left = lock(&state.outbox).len();
    if left > 0 {
        tracing::warn!(
            left,
            "stopping with undelivered reports (kept in the spool)"
        );
    }
    Ok(())
}

struct Loop {
    settings: AgentSettings,
    client: PanelClient,
    outbox: SharedOutbox,
    counters: Arc<AgentCounters>,
    clock: Clock,
    wake: Arc<Notify>,
    sampler: Arc<Mutex<HostSampler>>,
    /// Probe results not yet in a report.
    pending: Vec<ProbeReport>,
    prober: Prober,
    config: AgentConfig,
    fleet: Arc<FleetWatch>,
    verifier_rounds: VerifierRounds,
}

/// What a verifier's next rounds check beyond handshakes (§8): the
/// transfer check every `transfer_every` rounds, and again each round on
/// the entry points whose last transfer froze, so a freeze is confirmed
/// within the streak's rounds.
#[derive(Default)]
struct VerifierRounds {
    started: u64,
    frozen: std::collections::HashSet<String>,
}

impl VerifierRounds {
    fn next_plan(&mut self, checks: Option<&meshwatch::agent_api::VerifierChecks>) -> RoundPlan {
        let plan = RoundPlan::for_round(checks, self.started, &self.frozen);
        self.started += 1;
        plan
    }

    fn learn(&mut self, results: &[ProbeReport]) {
        for r in results.iter().filter(|r| r.check == Check::Transfer) {
            if r.error == Some(ProbeError::Frozen) {
                self.frozen.insert(r.entry_point_id.clone());
            } else {
                self.frozen.remove(&r.entry_point_id);
            }
        }
    }
}

impl Loop {
    fn apply_config(&mut self, config: AgentConfig) {
        self.prober = self.prober.with_timeout(Duration::from_secs(u64::from(
            config.probe_timeout_s.max(1),
        )));
        self.fleet
            .version
            .store(config.fleet_version, Ordering::Relaxed);
        self.config = config;
    }

    fn report_every(&self) -> Duration {
        Duration::from_secs(u64::from(self.config.report_interval_s.max(1)))
    }

    /// The next round starts one probe interval from now, ±10 %.
    fn next_round_at(&self) -> Instant {
        let interval = Duration::from_secs(u64::from(self.config.probe_interval_s.max(1)));
        Instant::now() + interval.mul_f64(rand::thread_rng().gen_range(0.9..=1.1))
    }

    async fn run(&mut self, shutdown: &mut std::pin::Pin<&mut impl Future<Output = ()>>) {
        let mut reports = tokio::time::interval(self.report_every());
        reports.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut refresh = tokio::time::interval_at(
            Instant::now() + self.settings.config_refresh,
            self.settings.config_refresh,
        );
        refresh.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // The first round starts at once, so a new agent shows evidence fast.
        let mut next_round = Instant::now();
        let mut round: Option<JoinHandle<Vec<ProbeReport>>> = None;
        let fleet = self.fleet.clone();

        loop {
            tokio::select! {
                () = &mut *shutdown => {
                    if let Some(round) = round.take() {
                        round.abort();
                    }
                    return;
                }
                _ = reports.tick() => {
                    self.queue_report().await;
                }
                () = tokio::time::sleep_until(next_round), if round.is_none() => {
                    self.catch_up_with_the_fleet(&mut reports).await;
                    round = Some(self.start_round());
                }
                results = finished(&mut round) => {
                    round = None;
                    if let Ok(results) = results {
                        self.verifier_rounds.learn(&results);
                        AgentCounters::bump(&self.counters.probes_done, results.len() as u64);
                        AgentCounters::bump(&self.counters.probe_rounds, 1);
                        self.pending.extend(results);
                    }
                    next_round = self.next_round_at();
                }
                _ = refresh.tick() => self.refresh_config(&mut reports).await,
                () = fleet.changed.notified() => {
                    tracing::info!("the panel's fleet changed: fetching the configuration now");
                    self.refresh_config(&mut reports).await;
                    // New peers (a new address) are probed now, not a round later.
                    if round.is_none() {
                        next_round = Instant::now();
                    }
                }
            }
        }
    }

    /// Before each round, asks the panel whether the fleet changed (a
    /// conditional GET, a bodiless 304 when not), so peers learn a new
    /// entry point within one probe interval. A slow or absent panel
    /// delays the round by at most [`CONFIG_CHECK_TIMEOUT`].
    async fn catch_up_with_the_fleet(&mut self, reports: &mut tokio::time::Interval) {
        let version = self.config.fleet_version;
        let checked =
            tokio::time::timeout(CONFIG_CHECK_TIMEOUT, self.client.config_if_changed(version))
                .await;
        match checked {
            Ok(Ok(Some(config))) => {
                tracing::info!(
                    peers = config.peers.len(),
                    "the panel's fleet changed: configuration updated"
                );
                self.apply_new_config(config, reports);
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => tracing::debug!("fleet check failed (keeping the configuration): {e:#}"),
            Err(_) => tracing::debug!("fleet check timed out (keeping the configuration)"),
        }
    }

    /// Fetches the configuration again (keeping the last one on failure);
    /// a new report interval restarts the report timer.
    async fn refresh_config(&mut self, reports: &mut tokio::time::Interval) {
        match self.client.config().await {
            Ok(config) => self.apply_new_config(config, reports),
            Err(e) => tracing::warn!("configuration refresh failed (keeping the last one): {e:#}"),
        }
    }

    fn apply_new_config(&mut self, config: AgentConfig, reports: &mut tokio::time::Interval) {
        let interval_changed = config.report_interval_s != self.config.report_interval_s;
        self.apply_config(config);
        if interval_changed {
            *reports =
                tokio::time::interval_at(Instant::now() + self.report_every(), self.report_every());
            reports.set_missed_tick_behavior(MissedTickBehavior::Delay);
        }
    }

    fn start_round(&mut self) -> JoinHandle<Vec<ProbeReport>> {
        let prober = self.prober.clone();
        let peers = self.config.peers.clone();
        let concurrency = self.settings.probe_concurrency;
        let clock = self.clock;
        let plan = self
            .verifier_rounds
            .next_plan(self.config.verifier.as_ref());
        tokio::spawn(async move {
            prober
                .round_with(&peers, concurrency, clock.offset, &plan)
                .await
        })
    }

    /// Self-check, metrics and pending probe results → queued reports (as
    /// many as [`report_parts::split`] needs, at least one).
    async fn queue_report(&mut self) {
        let check = self_check::run(self.settings.listener, &self.settings.service).await;
        let sampler = self.sampler.clone();
        let metrics = tokio::task::spawn_blocking(move || {
            sampler
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .sample()
        })
        .await
        .unwrap_or_default();
        let metrics = metrics.without_invalid();
        let mut parts = report_parts::split(
            std::mem::take(&mut self.pending),
            report_parts::MAX_PROBES_PER_REPORT,
        );
        if parts.is_empty() {
            // The self-check and metrics go out even without evidence.
            parts.push(Vec::new());
        }
        let count = parts.len();
        for probes in parts {
            // Each part is whole on its own (self-check and metrics too),
            // with its own id: any of them may be retried or arrive alone.
            let report = AgentReport {
                report_id: uuid::Uuid::new_v4().to_string(),
                agent_version: AGENT_VERSION.into(),
                sent_at: self.clock.now(),
                self_check: check.clone(),
                metrics: metrics.clone(),
                probes,
            };
            tracing::debug!(
                report_id = %report.report_id,
                probes = report.probes.len(),
                parts = count,
                listener_ok = report.self_check.listener_ok,
                service_ok = report.self_check.service_ok,
                "report queued"
            );
            let pushed = lock(&self.outbox).push(report);
            match pushed {
                Ok(dropped) => {
                    AgentCounters::bump(&self.counters.reports_queued, 1);
                    if dropped.is_some() {
                        AgentCounters::bump(&self.counters.reports_dropped, 1);
                    }
                }
                Err(e) => tracing::error!("cannot spool a report (it is lost): {e}"),
            }
        }
        self.wake.notify_one();
    }
}

async fn finished(
    round: &mut Option<JoinHandle<Vec<ProbeReport>>>,
) -> Result<Vec<ProbeReport>, tokio::task::JoinError> {
    match round {
        Some(handle) => handle.await,
        None => std::future::pending().await,
    }
}

async fn fetch_config_until_ok(client: &PanelClient) -> AgentConfig {
    let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
    loop {
        match client.config().await {
            Ok(config) => return config,
            Err(e) => {
                let wait = backoff.next_delay(&mut rand::thread_rng());
                tracing::warn!(
                    retry_in_s = wait.as_secs_f32(),
                    "cannot get the configuration: {e:#}"
                );
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Delivers queued reports oldest first, backing off while the panel is
/// unreachable; each retry reuses the report's `report_id`.
async fn send_loop(
    client: PanelClient,
    outbox: SharedOutbox,
    wake: Arc<Notify>,
    counters: Arc<AgentCounters>,
    courier: Courier,
) {
    let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(300));
    loop {
        let front = lock(&outbox).front().cloned();
        let Some(report) = front else {
            wake.notified().await;
            continue;
        };
        match deliver(&client, &outbox, &counters, &courier, report).await {
            Attempt::Done => backoff.reset(),
            Attempt::RetryAfter(hint) => {
                let wait = backoff.next_delay(&mut rand::thread_rng());
                let wait = hint.map_or(wait, |hint| hint.max(wait));
                tokio::time::sleep(wait).await;
            }
        }
    }
}

enum Attempt {
    Done,
    RetryAfter(Option<Duration>),
}

/// What delivering needs besides the queue: the clock that stamps each
/// attempt, and where to say the panel's fleet changed.
struct Courier {
    clock: Clock,
    fleet: Arc<FleetWatch>,
}

async fn deliver(
    client: &PanelClient,
    outbox: &SharedOutbox,
    counters: &AgentCounters,
    courier: &Courier,
    mut report: AgentReport,
) -> Attempt {
    // `sent_at` is the clock at this attempt (the panel judges a wrong
    // clock by it); the id stays, so a retry is still applied once.
    report.sent_at = courier.clock.now();
    let report = &report;
    match client.send(report).await {
        Delivery::Accepted(ack) => {
            courier.fleet.saw(ack.fleet_version);
            tracing::debug!(
                report_id = %report.report_id,
                accepted = ack.accepted_probes,
                skipped = ack.skipped_probes,
                "report delivered"
            );
            remove_front(outbox, &report.report_id);
            AgentCounters::bump(&counters.reports_delivered, 1);
            Attempt::Done
        }
        Delivery::Rejected { status, reason } => {
            AgentCounters::bump(&counters.reports_rejected, 1);
            tracing::error!(
                report_id = %report.report_id,
                status,
                rejected_total = AgentCounters::get(&counters.reports_rejected),
                "the panel refused a report; it is dropped: {reason}"
            );
            remove_front(outbox, &report.report_id);
            Attempt::Done
        }
        Delivery::Retry {
            reason,
            retry_after,
        } => {
            tracing::warn!(
                report_id = %report.report_id,
                queued = lock(outbox).len(),
                "report not delivered, will retry: {reason}"
            );
            Attempt::RetryAfter(retry_after)
        }
    }
}

fn remove_front(outbox: &SharedOutbox, report_id: &str) {
    let mut outbox = lock(outbox);
    if outbox.front().is_some_and(|r| r.report_id == report_id) {
        if let Err(e) = outbox.pop_front() {
            tracing::error!("cannot remove a delivered report from the spool: {e}");
        }
    }
}

/// One pass over the queue, stopping at the first failure or the deadline.
async fn flush(
    client: &PanelClient,
    outbox: &SharedOutbox,
    counters: &AgentCounters,
    courier: &Courier,
    deadline: Duration,
) {
    let _ = tokio::time::timeout(deadline, async {
        loop {
            let front = lock(outbox).front().cloned();
            let Some(report) = front else { return };
            if let Attempt::RetryAfter(_) = deliver(client, outbox, counters, courier, report).await
            {
                return;
            }
        }
    })
    .await;
}

/// `--once`: everything one report would carry, without sending it.
pub async fn once(settings: &AgentSettings) -> anyhow::Result<AgentReport> {
    warn_if_the_panel_is_reached_in_clear(settings);
    let client = PanelClient::new(settings)?;
    let config = client.config().await?;
    let clock = Clock {
        offset: settings.clock_offset,
    };
    let prober = Prober::new(
        Duration::from_secs(u64::from(config.probe_timeout_s.max(1))),
        settings.probe_source,
    )
    .allowing_private_targets(settings.allow_private_targets);
    let mut sampler = HostSampler::default();
    sampler.sample();
    let plan = RoundPlan::for_round(config.verifier.as_ref(), 0, &Default::default());
    let (check, probes) = tokio::join!(
        self_check::run(settings.listener, &settings.service),
        prober.round_with(
            &config.peers,
            settings.probe_concurrency,
            clock.offset,
            &plan
        )
    );
    let metrics = tokio::task::spawn_blocking(move || sampler.sample()).await?;
    Ok(AgentReport {
        report_id: uuid::Uuid::new_v4().to_string(),
        agent_version: AGENT_VERSION.into(),
        sent_at: clock.now(),
        self_check: check,
        metrics: metrics.without_invalid(),
        probes,
    })
}

/// Said once at start: over plain http:// to another host, anyone on the
/// path reads the agent token (and can then speak as this server) and
/// every report.
fn warn_if_the_panel_is_reached_in_clear(settings: &AgentSettings) {
    if settings.panel_reached_in_clear() {
        tracing::warn!(
            panel = %settings.panel_url,
            "panel_url is plain http:// to a host that is not loopback: the agent token \
             and every report travel unencrypted; use https://"
        );
    }
}
