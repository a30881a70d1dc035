//! Agent reports: each one stored once (its id, for idempotency; its probe
//! results until a checkpoint folds them into the pair states), the latest
//! self-report of each server, and the checkpoint itself. At start-up the
//! pair states plus the reports after the checkpoint rebuild the evidence
//! the engine keeps in memory, so the hot pair state is written as
//! changes, never one row per probe.

use super::{corrupt, count, history, metrics, Db, Store, StoreError, Tx};
use crate::store::types::{
    ControlRow, EvidenceSnapshot, FollowedReport, PairRow, PendingReport, ReceivedReport,
    StoredReport,
};
use meshwatch::agent_api::{AgentReport, ReportAck};
use meshwatch::evidence::{PairState, ProbeError, SelfCheck, Stage, TransferState};
use meshwatch::{EntryPointId, ServerId};

/// What a stored report accepted and skipped: the answer to a retry.
#[derive(sqlx::FromRow)]
struct ProbeCounts {
    accepted_probes: i64,
    skipped_probes: i64,
}

impl TryFrom<ProbeCounts> for ReportAck {
    type Error = StoreError;

    /// The fleet version is the caller's to fill in: it is today's, not
    /// the one of the first answer.
    fn try_from(row: ProbeCounts) -> Result<Self, StoreError> {
        Ok(ReportAck {
            accepted_probes: count("accepted_probes", row.accepted_probes)?,
            skipped_probes: count("skipped_probes", row.skipped_probes)?,
            fleet_version: 0,
        })
    }
}

#[derive(sqlx::FromRow)]
struct ReceivedRow {
    report_id: String,
    received_at_ms: i64,
    #[sqlx(flatten)]
    counts: ProbeCounts,
}

impl TryFrom<ReceivedRow> for ReceivedReport {
    type Error = StoreError;

    fn try_from(row: ReceivedRow) -> Result<Self, StoreError> {
        let counts = ReportAck::try_from(row.counts)?;
        Ok(ReceivedReport {
            report_id: row.report_id,
            received_at: meshwatch::evidence::from_ms(row.received_at_ms),
            accepted_probes: counts.accepted_probes,
            skipped_probes: counts.skipped_probes,
        })
    }
}

/// A `server_reports` row: the latest self-report of one server.
#[derive(sqlx::FromRow)]
struct SelfReportRow {
    server_id: ServerId,
    received_at_ms: i64,
    listener_ok: bool,
    service_ok: bool,
    detail: Option<String>,
}

impl SelfReportRow {
    fn into_entry(self) -> (ServerId, i64, SelfCheck) {
        let check = SelfCheck {
            listener_ok: self.listener_ok,
            service_ok: self.service_ok,
            detail: self.detail,
        };
        (self.server_id, self.received_at_ms, check)
    }
}

/// A stored report with its server's latest self-report (see
/// [`Store::reports_after`]).
#[derive(sqlx::FromRow)]
struct FollowedRow {
    seq: i64,
    server_id: ServerId,
    received_ms: i64,
    probes: Option<String>,
    listener_ok: Option<bool>,
    service_ok: Option<bool>,
    detail: Option<String>,
}

impl FollowedRow {
    fn into_report(self) -> Result<FollowedReport, StoreError> {
        let probes = match self.probes {
            Some(json) => Some(serde_json::from_str(&json).map_err(|e| corrupt("probes", e))?),
            None => None,
        };
        let self_check = match (self.listener_ok, self.service_ok) {
            (Some(listener_ok), Some(service_ok)) => SelfCheck {
                listener_ok,
                service_ok,
                detail: self.detail,
            },
            // Written in the report's own transaction: never missing.
            _ => return Err(corrupt("self-report", "missing")),
        };
        Ok(FollowedReport {
            seq: self.seq,
            server_id: self.server_id,
            received_ms: self.received_ms,
            probes,
            self_check,
        })
    }
}

#[derive(sqlx::FromRow)]
struct PairStateRow {
    witness_id: ServerId,
    entry_point_id: EntryPointId,
    streak: i64,
    first_failure_ms: Option<i64>,
    last_at_ms: i64,
    received_ms: i64,
    last_error: Option<String>,
    last_stage: Option<String>,
    sni_control: Option<bool>,
    transfer_streak: Option<i64>,
    transfer_first_failure_ms: Option<i64>,
    transfer_last_at_ms: Option<i64>,
    transfer_received_ms: Option<i64>,
    transfer_bytes: Option<i64>,
}

const PAIR_COLUMNS: &str = "witness_id, entry_point_id, streak, first_failure_ms, last_at_ms, \
    received_ms, last_error, last_stage, sni_control, transfer_streak, transfer_first_failure_ms, \
    transfer_last_at_ms, transfer_received_ms, transfer_bytes";

impl TryFrom<PairStateRow> for PairRow {
    type Error = StoreError;

    fn try_from(row: PairStateRow) -> Result<Self, StoreError> {
        let transfer = match (row.transfer_last_at_ms, row.transfer_received_ms) {
            (Some(last_at_ms), Some(received_ms)) => Some(TransferState {
                pair: PairState {
                    streak: count("transfer_streak", row.transfer_streak.unwrap_or(0))?,
                    first_failure_ms: row
                        .transfer_first_failure_ms
                        .unwrap_or(PairState::NO_FAILURE),
                    last_at_ms,
                    received_ms,
                    ..PairState::default()
                },
                bytes: u64::try_from(row.transfer_bytes.unwrap_or(0))
                    .map_err(|e| corrupt("transfer_bytes", e))?,
            }),
            _ => None,
        };
        Ok(PairRow {
            witness_id: row.witness_id,
            entry_point_id: row.entry_point_id,
            state: PairState {
                last_stage: row.last_stage.as_deref().and_then(Stage::from_name),
                sni_control: row.sni_control,
                ..stored_streak(
                    row.streak,
                    row.first_failure_ms,
                    row.last_at_ms,
                    row.received_ms,
                    row.last_error.as_deref(),
                )?
            },
            transfer,
        })
    }
}

#[derive(sqlx::FromRow)]
struct ControlStateRow {
    verifier_id: ServerId,
    streak: i64,
    first_failure_ms: Option<i64>,
    last_at_ms: i64,
    received_ms: i64,
    last_error: Option<String>,
}

impl TryFrom<ControlStateRow> for ControlRow {
    type Error = StoreError;

    fn try_from(row: ControlStateRow) -> Result<Self, StoreError> {
        Ok(ControlRow {
            verifier_id: row.verifier_id,
            state: stored_streak(
                row.streak,
                row.first_failure_ms,
                row.last_at_ms,
                row.received_ms,
                row.last_error.as_deref(),
            )?,
        })
    }
}

/// A streak as its columns store it (pairs and control checks alike).
fn stored_streak(
    streak: i64,
    first_failure_ms: Option<i64>,
    last_at_ms: i64,
    received_ms: i64,
    last_error: Option<&str>,
) -> Result<PairState, StoreError> {
    Ok(PairState {
        streak: count("streak", streak)?,
        first_failure_ms: first_failure_ms.unwrap_or(PairState::NO_FAILURE),
        last_at_ms,
        received_ms,
        last_error: last_error.and_then(error_from_name),
        ..PairState::default()
    })
}

fn error_name(e: ProbeError) -> &'static str {
    match e {
        ProbeError::Timeout => "timeout",
        ProbeError::Refused => "refused",
        ProbeError::Reset => "reset",
        ProbeError::TlsError => "tls_error",
        ProbeError::DnsError => "dns_error",
        ProbeError::Frozen => "frozen",
        ProbeError::Other => "other",
    }
}

fn error_from_name(raw: &str) -> Option<ProbeError> {
    serde_json::from_value(serde_json::Value::String(raw.to_owned())).ok()
}

impl Store {
    /// The latest reports received from `server`, newest first (ids are
    /// kept for the retention window).
    pub async fn recent_reports(
        &self,
        server: &ServerId,
        limit: u32,
    ) -> Result<Vec<ReceivedReport>, StoreError> {
        sqlx::query_as::<_, ReceivedRow>(
            "SELECT report_id, received_at_ms, accepted_probes, skipped_probes FROM agent_reports
             WHERE server_id = $1 ORDER BY seq DESC LIMIT $2",
        )
        .bind(server)
        .bind(i64::from(limit))
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(ReceivedReport::try_from)
        .collect()
    }

    /// Stores accepted reports durably, all in one transaction (a group
    /// commit: one fsync for the lot): each one's id, its probe results
    /// until checkpointed, the server's latest self-report and a metrics
    /// sample. A retry of a stored `report_id` (also one earlier in the
    /// same batch) writes nothing. The answers follow the batch's order.
    pub async fn store_reports(
        &self,
        batch: &[(&ServerId, &AgentReport, i64, ReportAck)],
    ) -> Result<Vec<StoredReport>, StoreError> {
        let mut tx = self.write().await?;
        self.order_reports(&mut tx).await?;
        let mut stored = Vec::with_capacity(batch.len());
        for (server, report, received_ms, ack) in batch {
            stored.push(store_report(&mut tx, server, report, *received_ms, *ack).await?);
        }
        tx.commit().await?;
        Ok(stored)
    }

    /// The checkpointed pairs, latest self-reports and reports not yet
    /// folded into the checkpoint (in arrival order).
    pub async fn evidence_snapshot(&self) -> Result<EvidenceSnapshot, StoreError> {
        // One snapshot: a checkpoint committed between the reads would
        // leave the reports it folded in neither.
        let mut tx = self.read_snapshot().await?;
        let reports = sqlx::query_as::<_, SelfReportRow>(
            "SELECT server_id, received_at_ms, listener_ok, service_ok, detail FROM server_reports",
        )
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(SelfReportRow::into_entry)
        .collect();
        let pairs =
            sqlx::query_as::<_, PairStateRow>(&format!("SELECT {PAIR_COLUMNS} FROM pair_states"))
                .fetch_all(&mut *tx)
                .await?
                .into_iter()
                .map(PairRow::try_from)
                .collect::<Result<_, _>>()?;
        let controls = sqlx::query_as::<_, ControlStateRow>(
            "SELECT verifier_id, streak, first_failure_ms, last_at_ms, received_ms, last_error
             FROM control_states",
        )
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(ControlRow::try_from)
        .collect::<Result<_, _>>()?;
        let checkpoint_seq: i64 =
            sqlx::query_scalar("SELECT applied_seq FROM checkpoint WHERE id = 1")
                .fetch_one(&mut *tx)
                .await?;
        let pending = sqlx::query_as::<_, PendingReport>(
            "SELECT seq, server_id, received_at_ms AS received_ms, probes FROM agent_reports
             WHERE probes IS NOT NULL AND seq > $1 ORDER BY seq",
        )
        .bind(checkpoint_seq)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(EvidenceSnapshot {
            reports,
            pairs,
            controls,
            pending,
            checkpoint_seq,
        })
    }

    /// Writes pair states (a checkpoint's share: one transaction, the
    /// evaluator's).
    pub async fn write_pairs(&self, pairs: &[PairRow]) -> Result<(), StoreError> {
        let mut tx = self.write_as_evaluator().await?;
        for statement in pairs.chunks(PAIRS_PER_STATEMENT) {
            upsert_pairs(&mut tx, statement).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Moves the checkpoint to `applied_seq` once the pairs it covers are
    /// written, with the verifiers' control checks (a few rows), and drops
    /// the bodies of the reports it folded in.
    pub async fn move_checkpoint(
        &self,
        applied_seq: i64,
        controls: &[ControlRow],
    ) -> Result<(), StoreError> {
        let mut tx = self.write_as_evaluator().await?;
        for control in controls {
            let state = &control.state;
            sqlx::query(
                "INSERT INTO control_states
                    (verifier_id, streak, first_failure_ms, last_at_ms, received_ms, last_error)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT(verifier_id) DO UPDATE SET streak = excluded.streak,
                    first_failure_ms = excluded.first_failure_ms, last_at_ms = excluded.last_at_ms,
                    received_ms = excluded.received_ms, last_error = excluded.last_error",
            )
            .bind(&control.verifier_id)
            .bind(i64::from(state.streak))
            .bind(state.first_failure())
            .bind(state.last_at_ms)
            .bind(state.received_ms)
            .bind(state.last_error.map(error_name))
            .execute(&mut *tx)
            .await?;
        }
        // The checkpoint never moves back.
        sqlx::query("UPDATE checkpoint SET applied_seq = $1 WHERE id = 1 AND applied_seq < $1")
            .bind(applied_seq)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE agent_reports SET probes = NULL WHERE seq <= $1 AND probes IS NOT NULL",
        )
        .bind(applied_seq)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The reports stored after `after` (and before `below`, when given),
    /// in their stored order, at most `limit`: what a replica that does
    /// not evaluate applies to follow the evaluator. A report whose body a
    /// checkpoint folded in comes without its probes.
    pub async fn reports_after(
        &self,
        after: i64,
        below: Option<i64>,
        limit: i64,
    ) -> Result<Vec<FollowedReport>, StoreError> {
        sqlx::query_as::<_, FollowedRow>(
            "SELECT r.seq, r.server_id, r.received_at_ms AS received_ms, r.probes,
                    s.listener_ok, s.service_ok, s.detail
             FROM agent_reports r LEFT JOIN server_reports s ON s.server_id = r.server_id
             WHERE r.seq > $1 AND r.seq < $2 ORDER BY r.seq LIMIT $3",
        )
        .bind(after)
        .bind(below.unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(FollowedRow::into_report)
        .collect()
    }

    /// Drops metrics samples, folded report ids and the status history of
    /// servers that left, older than `before_ms` (the retention window).
    /// Returns how many rows went.
    pub async fn prune(&self, before_ms: i64) -> Result<u64, StoreError> {
        let mut tx = self.write().await?;
        let metrics = metrics::prune_in(&mut tx, before_ms).await?;
        let reports = prune_reports_in(&mut tx, before_ms).await?;
        let history = history::prune_in(&mut tx, before_ms).await?;
        tx.commit().await?;
        Ok(metrics + reports + history)
    }
}

/// One report of [`Store::store_reports`], inside its transaction.
async fn store_report(
    tx: &mut Tx,
    server: &ServerId,
    report: &AgentReport,
    received_ms: i64,
    ack: ReportAck,
) -> Result<StoredReport, StoreError> {
    let earlier = sqlx::query_as::<_, ProbeCounts>(
        "SELECT accepted_probes, skipped_probes FROM agent_reports
         WHERE server_id = $1 AND report_id = $2",
    )
    .bind(server)
    .bind(&report.report_id)
    .fetch_optional(&mut **tx)
    .await?;
    if let Some(first) = earlier {
        return Ok(StoredReport::Duplicate(first.try_into()?));
    }
    let probes = serde_json::to_string(&report.probes).map_err(|e| corrupt("probes", e))?;
    let metrics = serde_json::to_string(&report.metrics).map_err(|e| corrupt("metrics", e))?;
    let seq: i64 = sqlx::query_scalar(
        "INSERT INTO agent_reports (report_id, server_id, received_at_ms, accepted_probes, skipped_probes, probes)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
    )
    .bind(&report.report_id)
    .bind(server)
    .bind(received_ms)
    .bind(i64::from(ack.accepted_probes))
    .bind(i64::from(ack.skipped_probes))
    .bind(probes)
    .fetch_one(&mut **tx)
    .await?;
    upsert_self_report(tx, server, report, received_ms, &metrics).await?;
    metrics::insert_sample(tx, server, received_ms, &metrics).await?;
    Ok(StoredReport::New { seq })
}

/// Replaces the server's latest self-report (and the metrics it came with).
async fn upsert_self_report(
    tx: &mut Tx,
    server: &ServerId,
    report: &AgentReport,
    received_ms: i64,
    metrics_json: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO server_reports (server_id, received_at_ms, listener_ok, service_ok, detail, agent_version, sent_at, metrics)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT(server_id) DO UPDATE SET received_at_ms = excluded.received_at_ms,
            listener_ok = excluded.listener_ok, service_ok = excluded.service_ok, detail = excluded.detail,
            agent_version = excluded.agent_version, sent_at = excluded.sent_at, metrics = excluded.metrics",
    )
    .bind(server)
    .bind(received_ms)
    .bind(report.self_check.listener_ok)
    .bind(report.self_check.service_ok)
    .bind(&report.self_check.detail)
    .bind(&report.agent_version)
    .bind(report.sent_at)
    .bind(metrics_json)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Pair rows per statement: 14 values each, far under both backends'
/// limits on bound values (32,766 and 65,535).
const PAIRS_PER_STATEMENT: usize = 500;

async fn upsert_pairs(tx: &mut Tx, pairs: &[PairRow]) -> Result<(), StoreError> {
    let mut statement =
        sqlx::QueryBuilder::<Db>::new(format!("INSERT INTO pair_states ({PAIR_COLUMNS}) "));
    statement.push_values(pairs, |mut row, pair| {
        let transfer = pair.transfer.as_ref();
        row.push_bind(&pair.witness_id)
            .push_bind(&pair.entry_point_id)
            .push_bind(i64::from(pair.state.streak))
            .push_bind(pair.state.first_failure())
            .push_bind(pair.state.last_at_ms)
            .push_bind(pair.state.received_ms)
            .push_bind(pair.state.last_error.map(error_name))
            .push_bind(pair.state.last_stage.map(Stage::as_str))
            .push_bind(pair.state.sni_control)
            .push_bind(transfer.map(|t| i64::from(t.pair.streak)))
            .push_bind(transfer.and_then(|t| t.pair.first_failure()))
            .push_bind(transfer.map(|t| t.pair.last_at_ms))
            .push_bind(transfer.map(|t| t.pair.received_ms))
            .push_bind(transfer.map(|t| i64::try_from(t.bytes).unwrap_or(i64::MAX)));
    });
    statement.push(
        " ON CONFLICT(witness_id, entry_point_id) DO UPDATE SET streak = excluded.streak,
            first_failure_ms = excluded.first_failure_ms, last_at_ms = excluded.last_at_ms,
            received_ms = excluded.received_ms, last_error = excluded.last_error,
            last_stage = excluded.last_stage, sni_control = excluded.sni_control,
            transfer_streak = excluded.transfer_streak,
            transfer_first_failure_ms = excluded.transfer_first_failure_ms,
            transfer_last_at_ms = excluded.transfer_last_at_ms,
            transfer_received_ms = excluded.transfer_received_ms,
            transfer_bytes = excluded.transfer_bytes",
    );
    statement.build().execute(&mut **tx).await?;
    Ok(())
}

/// Drops the ids of reports older than `before_ms` whose effect a
/// checkpoint holds; an agent retrying a report older than the window
/// would be applied again, which its older-than-applied probe results make
/// harmless.
async fn prune_reports_in(tx: &mut Tx, before_ms: i64) -> Result<u64, StoreError> {
    Ok(
        sqlx::query("DELETE FROM agent_reports WHERE probes IS NULL AND received_at_ms < $1")
            .bind(before_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected(),
    )
}
