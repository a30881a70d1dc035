//! Agent reports, the mesh as the engine needs it, and pair-state
//! checkpoints.

use super::{corrupt, Store, StoreError};
use crate::secrets::TokenHash;
use meshwatch::agent_api::{AgentReport, Metrics, Peer, ReportAck};
use meshwatch::chart::{ChartMetric, ChartSeries, MetricCharts};
use meshwatch::evidence::{PairState, ProbeError, SelfCheck};
use meshwatch::fleet::{is_obfuscated, probe_alpn, Protocol};
use meshwatch::mesh::{MeshRoute, MeshServer};
use meshwatch::{RouteId, ServerId};
use sqlx::Row;
use std::collections::HashMap;

/// A report stored before the last checkpoint's effect included it.
pub struct PendingReport {
    pub seq: i64,
    pub server_id: String,
    pub received_ms: i64,
    /// The probe results, as the JSON array the agent sent.
    pub probes: String,
}

/// A report the panel received, as the reports listing shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReceivedReport {
    pub report_id: String,
    pub received_at: chrono::DateTime<chrono::Utc>,
    pub accepted_probes: u32,
    pub skipped_probes: u32,
}

/// One checkpointed pair.
pub struct PairRow {
    pub witness_id: String,
    pub entry_point_id: String,
    pub state: PairState,
}

/// Everything needed to rebuild the in-memory evidence at start-up.
pub struct EvidenceSnapshot {
    pub reports: Vec<(String, i64, SelfCheck)>,
    pub pairs: Vec<PairRow>,
    pub pending: Vec<PendingReport>,
}

/// A stored report: either newly stored (with its sequence number) or a
/// retry of one stored before (with the answer given then).
pub enum StoredReport {
    New { seq: i64 },
    Duplicate(ReportAck),
}

fn error_name(e: ProbeError) -> &'static str {
    match e {
        ProbeError::Timeout => "timeout",
        ProbeError::Refused => "refused",
        ProbeError::Reset => "reset",
        ProbeError::TlsError => "tls_error",
        ProbeError::DnsError => "dns_error",
        ProbeError::Other => "other",
    }
}

fn error_from_name(raw: &str) -> Option<ProbeError> {
    serde_json::from_value(serde_json::Value::String(raw.to_owned())).ok()
}

impl Store {
    /// The server an agent token belongs to.
    pub async fn server_for_agent_token(
        &self,
        token: &TokenHash,
    ) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM servers WHERE agent_token_hash = ?")
                .bind(token.as_str())
                .fetch_optional(&self.reader)
                .await?,
        )
    }

    /// Servers (with entry points and routes) and routes, in id order.
    pub async fn mesh_spec(&self) -> Result<(Vec<MeshServer>, Vec<MeshRoute>), StoreError> {
        let summaries = self.servers().await?;
        let flags: HashMap<String, bool> = summaries
            .iter()
            .map(|s| (s.id.to_string(), s.verifier))
            .collect();
        let servers = summaries
            .into_iter()
            .map(|s| MeshServer {
                verifier: flags.get(s.id.as_str()).copied().unwrap_or(false),
                id: s.id,
                name: s.name,
                country: s.country,
                routes: s.routes,
                entry_points: s.entry_points.into_iter().map(|e| e.id).collect(),
            })
            .collect();
        let routes = sqlx::query("SELECT id, servers_per_user FROM routes ORDER BY id")
            .fetch_all(&self.reader)
            .await?
            .into_iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                let per_user: Option<i64> = row.try_get("servers_per_user")?;
                Ok(MeshRoute {
                    id: RouteId::parse(&id).map_err(|e| corrupt("route id", e))?,
                    servers_per_user: per_user.and_then(|k| u32::try_from(k).ok()),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((servers, routes))
    }

    /// Every entry point of every server but `server_id`.
    pub async fn peers_of(&self, server_id: &str) -> Result<Vec<Peer>, StoreError> {
        sqlx::query(
            "SELECT id, server_id, protocol, host, port, sni, params FROM entry_points
             WHERE server_id <> ? ORDER BY server_id, position",
        )
        .bind(server_id)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            let protocol: String = row.try_get("protocol")?;
            let protocol =
                Protocol::from_wire(&protocol).ok_or_else(|| corrupt("protocol", &protocol))?;
            let port: i64 = row.try_get("port")?;
            let params: String = row.try_get("params")?;
            let params: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&params).map_err(|e| corrupt("params", e))?;
            Ok(Peer {
                entry_point_id: row.try_get("id")?,
                server_id: row.try_get("server_id")?,
                protocol,
                host: row.try_get("host")?,
                port: u16::try_from(port).map_err(|e| corrupt("port", e))?,
                sni: row.try_get("sni")?,
                alpn: probe_alpn(protocol, &params),
                obfuscated: is_obfuscated(protocol, &params),
            })
        })
        .collect()
    }

    /// The metrics of the server's latest report, if it ever reported.
    pub async fn latest_metrics(&self, server_id: &str) -> Result<Option<Metrics>, StoreError> {
        let raw: Option<String> =
            sqlx::query_scalar("SELECT metrics FROM server_reports WHERE server_id = ?")
                .bind(server_id)
                .fetch_optional(&self.reader)
                .await?;
        raw.map(|json| serde_json::from_str(&json).map_err(|e| corrupt("metrics", e)))
            .transpose()
    }

    /// The server's metrics from `since_ms` to `until_ms`, averaged per
    /// `bucket_s`, oldest first. SQLite averages in place, so a day of
    /// samples never crosses into Rust.
    pub async fn metric_charts(
        &self,
        server_id: &str,
        until: chrono::DateTime<chrono::Utc>,
        buckets: usize,
        bucket_s: u32,
    ) -> Result<MetricCharts, StoreError> {
        let bucket_ms = i64::from(bucket_s) * 1000;
        let until_ms = until.timestamp_millis();
        let since_ms = until_ms - bucket_ms * buckets as i64;
        let rows = sqlx::query(
            "SELECT (received_at_ms - ?1) / ?2 AS bucket,
                    avg(json_extract(metrics, '$.cpu_pct')) AS cpu,
                    avg(100.0 * json_extract(metrics, '$.mem_used_bytes') / nullif(json_extract(metrics, '$.mem_total_bytes'), 0)) AS mem,
                    avg(100.0 * json_extract(metrics, '$.disk_used_bytes') / nullif(json_extract(metrics, '$.disk_total_bytes'), 0)) AS disk,
                    avg(json_extract(metrics, '$.net_rx_rate_bps')) AS rx,
                    avg(json_extract(metrics, '$.net_tx_rate_bps')) AS tx,
                    avg(json_extract(metrics, '$.connections')) AS conns,
                    avg(json_extract(metrics, '$.load1')) AS load1
             FROM metrics_history
             WHERE server_id = ?3 AND received_at_ms >= ?1 AND received_at_ms < ?4
             GROUP BY bucket",
        )
        .bind(since_ms)
        .bind(bucket_ms)
        .bind(server_id)
        .bind(until_ms)
        .fetch_all(&self.reader)
        .await?;
        let columns = ["cpu", "mem", "disk", "rx", "tx", "conns", "load1"];
        let mut values = vec![vec![None; buckets]; columns.len()];
        for row in rows {
            let bucket: i64 = row.try_get("bucket")?;
            let Some(slot) = usize::try_from(bucket).ok().filter(|&b| b < buckets) else {
                continue;
            };
            for (column_values, column) in values.iter_mut().zip(columns) {
                let value: Option<f64> = row.try_get(column)?;
                column_values[slot] = value.filter(|v| v.is_finite()).map(|v| v as f32);
            }
        }
        let series = ChartMetric::ALL
            .into_iter()
            .zip(values)
            .map(|(metric, values)| ChartSeries::new(metric, values))
            .collect();
        Ok(MetricCharts {
            until,
            bucket_s,
            series,
        })
    }

    /// Adds metrics samples (receipt time in ms, metrics) for a server that
    /// has none up to the newest of them; false (nothing written) when it
    /// has, so a restart never doubles a backfilled past.
    pub async fn backfill_metrics(
        &self,
        server_id: &str,
        samples: &[(i64, Metrics)],
    ) -> Result<bool, StoreError> {
        let Some(newest) = samples.iter().map(|(at, _)| *at).max() else {
            return Ok(false);
        };
        let mut tx = self.write().await?;
        let has_past = sqlx::query(
            "SELECT 1 FROM metrics_history WHERE server_id = ? AND received_at_ms <= ? LIMIT 1",
        )
        .bind(server_id)
        .bind(newest)
        .fetch_optional(&mut *tx)
        .await?
        .is_some();
        if has_past {
            return Ok(false);
        }
        for (at, metrics) in samples {
            let json = serde_json::to_string(metrics).map_err(|e| corrupt("metrics", e))?;
            insert_metrics_sample(&mut tx, server_id, *at, &json).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The latest reports received from `server_id`, newest first (ids are
    /// kept for the retention window).
    pub async fn recent_reports(
        &self,
        server_id: &str,
        limit: u32,
    ) -> Result<Vec<ReceivedReport>, StoreError> {
        sqlx::query(
            "SELECT report_id, received_at_ms, accepted_probes, skipped_probes FROM agent_reports
             WHERE server_id = ? ORDER BY seq DESC LIMIT ?",
        )
        .bind(server_id)
        .bind(i64::from(limit))
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            let count = |name: &str| -> Result<u32, StoreError> {
                let v: i64 = row.try_get(name)?;
                u32::try_from(v).map_err(|e| corrupt(name, e))
            };
            let received_ms: i64 = row.try_get("received_at_ms")?;
            Ok(ReceivedReport {
                report_id: row.try_get("report_id")?,
                received_at: meshwatch::evidence::from_ms(received_ms),
                accepted_probes: count("accepted_probes")?,
                skipped_probes: count("skipped_probes")?,
            })
        })
        .collect()
    }

    /// Stores accepted reports durably, all in one transaction (a group
    /// commit: one fsync for the lot): each one's id, its probe results
    /// until checkpointed, the server's latest self-report and a metrics
    /// sample. A retry of a stored `report_id` (also one earlier in the
    /// same batch) writes nothing. The answers follow the batch's order.
    pub async fn store_reports(
        &self,
        batch: &[(&str, &AgentReport, i64, ReportAck)],
    ) -> Result<Vec<StoredReport>, StoreError> {
        let mut tx = self.write().await?;
        let mut stored = Vec::with_capacity(batch.len());
        for (server_id, report, received_ms, ack) in batch {
            stored.push(store_report(&mut tx, server_id, report, *received_ms, *ack).await?);
        }
        tx.commit().await?;
        Ok(stored)
    }

    /// The checkpointed pairs, latest self-reports and reports not yet
    /// folded into the checkpoint (in arrival order).
    pub async fn evidence_snapshot(&self) -> Result<EvidenceSnapshot, StoreError> {
        let reports = sqlx::query(
            "SELECT server_id, received_at_ms, listener_ok, service_ok, detail FROM server_reports",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            Ok((
                row.try_get("server_id")?,
                row.try_get("received_at_ms")?,
                SelfCheck {
                    listener_ok: row.try_get("listener_ok")?,
                    service_ok: row.try_get("service_ok")?,
                    detail: row.try_get("detail")?,
                },
            ))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        let pairs = sqlx::query(
            "SELECT witness_id, entry_point_id, streak, first_failure_ms, last_at_ms, received_ms, last_error FROM pair_states",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            let streak: i64 = row.try_get("streak")?;
            let error: Option<String> = row.try_get("last_error")?;
            Ok(PairRow {
                witness_id: row.try_get("witness_id")?,
                entry_point_id: row.try_get("entry_point_id")?,
                state: PairState {
                    streak: u32::try_from(streak).map_err(|e| corrupt("streak", e))?,
                    first_failure_ms: row
                        .try_get::<Option<i64>, _>("first_failure_ms")?
                        .unwrap_or(PairState::NO_FAILURE),
                    last_at_ms: row.try_get("last_at_ms")?,
                    received_ms: row.try_get("received_ms")?,
                    last_error: error.as_deref().and_then(error_from_name),
                },
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        let pending = sqlx::query(
            "SELECT seq, server_id, received_at_ms, probes FROM agent_reports
             WHERE probes IS NOT NULL AND seq > (SELECT applied_seq FROM checkpoint WHERE id = 1)
             ORDER BY seq",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|row| {
            Ok(PendingReport {
                seq: row.try_get("seq")?,
                server_id: row.try_get("server_id")?,
                received_ms: row.try_get("received_at_ms")?,
                probes: row.try_get("probes")?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(EvidenceSnapshot {
            reports,
            pairs,
            pending,
        })
    }

    /// Writes the changed pairs and moves the checkpoint to `applied_seq`:
    /// report bodies up to it are no longer needed (their ids stay, for
    /// idempotency).
    pub async fn checkpoint(&self, pairs: &[PairRow], applied_seq: i64) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        for p in pairs {
            sqlx::query(
                "INSERT INTO pair_states (witness_id, entry_point_id, streak, first_failure_ms, last_at_ms, received_ms, last_error)
                 VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(witness_id, entry_point_id) DO UPDATE SET streak = excluded.streak,
                    first_failure_ms = excluded.first_failure_ms, last_at_ms = excluded.last_at_ms,
                    received_ms = excluded.received_ms, last_error = excluded.last_error",
            )
            .bind(&p.witness_id)
            .bind(&p.entry_point_id)
            .bind(i64::from(p.state.streak))
            .bind(p.state.first_failure())
            .bind(p.state.last_at_ms)
            .bind(p.state.received_ms)
            .bind(p.state.last_error.map(error_name))
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("UPDATE checkpoint SET applied_seq = MAX(applied_seq, ?) WHERE id = 1")
            .bind(applied_seq)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE agent_reports SET probes = NULL WHERE seq <= ? AND probes IS NOT NULL")
            .bind(applied_seq)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Drops metrics samples and folded report ids older than `before_ms`
    /// (the retention window). Returns how many rows went.
    pub async fn prune(&self, before_ms: i64) -> Result<u64, StoreError> {
        let mut tx = self.write().await?;
        let metrics = sqlx::query("DELETE FROM metrics_history WHERE received_at_ms < ?")
            .bind(before_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        // Only ids whose effect a checkpoint holds; an agent retrying a
        // report older than the window would be applied again, which its
        // older-than-applied probe results make harmless.
        let reports =
            sqlx::query("DELETE FROM agent_reports WHERE probes IS NULL AND received_at_ms < ?")
                .bind(before_ms)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        // The history of a server that left the fleet is kept for the
        // window, like everything else.
        let cutoff = meshwatch::evidence::from_ms(before_ms);
        let history = sqlx::query(
            "DELETE FROM status_history WHERE at < ?
                AND server_id NOT IN (SELECT id FROM servers)",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(metrics + reports + history)
    }

    /// Marks or unmarks a verifier; false when the server does not exist.
    pub async fn set_verifier(&self, server: &ServerId, enabled: bool) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let done = sqlx::query("UPDATE servers SET verifier = ? WHERE id = ?")
            .bind(enabled)
            .bind(server.as_str())
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        tx.commit().await?;
        Ok(done)
    }
}

/// One metrics sample of a server's history (the charts' source).
/// One report of [`Store::store_reports`], inside its transaction.
async fn store_report(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    server_id: &str,
    report: &AgentReport,
    received_ms: i64,
    ack: ReportAck,
) -> Result<StoredReport, StoreError> {
    let earlier = sqlx::query(
        "SELECT accepted_probes, skipped_probes FROM agent_reports WHERE server_id = ? AND report_id = ?",
    )
    .bind(server_id)
    .bind(&report.report_id)
    .fetch_optional(&mut **tx)
    .await?;
    if let Some(row) = earlier {
        let count = |name: &str| -> Result<u32, StoreError> {
            let v: i64 = row.try_get(name)?;
            u32::try_from(v).map_err(|e| corrupt(name, e))
        };
        return Ok(StoredReport::Duplicate(ReportAck {
            accepted_probes: count("accepted_probes")?,
            skipped_probes: count("skipped_probes")?,
            fleet_version: 0,
        }));
    }
    let probes = serde_json::to_string(&report.probes).map_err(|e| corrupt("probes", e))?;
    let metrics = serde_json::to_string(&report.metrics).map_err(|e| corrupt("metrics", e))?;
    let seq: i64 = sqlx::query_scalar(
        "INSERT INTO agent_reports (report_id, server_id, received_at_ms, accepted_probes, skipped_probes, probes)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
    )
    .bind(&report.report_id)
    .bind(server_id)
    .bind(received_ms)
    .bind(i64::from(ack.accepted_probes))
    .bind(i64::from(ack.skipped_probes))
    .bind(probes)
    .fetch_one(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO server_reports (server_id, received_at_ms, listener_ok, service_ok, detail, agent_version, sent_at, metrics)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(server_id) DO UPDATE SET received_at_ms = excluded.received_at_ms,
            listener_ok = excluded.listener_ok, service_ok = excluded.service_ok, detail = excluded.detail,
            agent_version = excluded.agent_version, sent_at = excluded.sent_at, metrics = excluded.metrics",
    )
    .bind(server_id)
    .bind(received_ms)
    .bind(report.self_check.listener_ok)
    .bind(report.self_check.service_ok)
    .bind(&report.self_check.detail)
    .bind(&report.agent_version)
    .bind(report.sent_at)
    .bind(&metrics)
    .execute(&mut **tx)
    .await?;
    insert_metrics_sample(tx, server_id, received_ms, &metrics).await?;
    Ok(StoredReport::New { seq })
}

async fn insert_metrics_sample(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    server_id: &str,
    received_ms: i64,
    metrics_json: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO metrics_history (server_id, received_at_ms, metrics) VALUES (?, ?, ?)",
    )
    .bind(server_id)
    .bind(received_ms)
    .bind(metrics_json)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
