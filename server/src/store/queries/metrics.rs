//! Metrics: the latest of each server (kept with its self-report), the
//! samples behind the charts, and the charts as numbers — one average per
//! time bucket. The database averages in place (reading the numbers out of
//! the stored JSON its own way, see each backend's `json_number`), so a
//! day of samples never crosses into Rust; drawing is the panel's.

use super::{corrupt, Store, StoreError, Tx};
use meshwatch::agent_api::Metrics;
use meshwatch::ServerId;
use meshwatch_views::chart::{ChartMetric, ChartSeries, MetricCharts};
use std::sync::LazyLock;

/// The averages of each time bucket, built once per backend (this file is
/// compiled once for each) from its way of reading a JSON number.
static CHART_BUCKETS: LazyLock<String> = LazyLock::new(|| {
    let n = |key: &str| Store::json_number("metrics", key);
    format!(
        "SELECT (received_at_ms - $1) / $2 AS bucket,
                avg({cpu}) AS cpu,
                avg(100.0 * {mem_used} / nullif({mem_total}, 0)) AS mem,
                avg(100.0 * {disk_used} / nullif({disk_total}, 0)) AS disk,
                avg({rx}) AS rx,
                avg({tx}) AS tx,
                avg({conns}) AS conns,
                avg({load1}) AS load1
         FROM metrics_history
         WHERE server_id = $3 AND received_at_ms >= $1 AND received_at_ms < $4
         GROUP BY bucket",
        cpu = n("cpu_pct"),
        mem_used = n("mem_used_bytes"),
        mem_total = n("mem_total_bytes"),
        disk_used = n("disk_used_bytes"),
        disk_total = n("disk_total_bytes"),
        rx = n("net_rx_rate_bps"),
        tx = n("net_tx_rate_bps"),
        conns = n("connections"),
        load1 = n("load1"),
    )
});

/// One bucket of [`Store::metric_charts`]: each metric's average, `None`
/// where no sample held it.
#[derive(sqlx::FromRow)]
struct BucketRow {
    bucket: i64,
    cpu: Option<f64>,
    mem: Option<f64>,
    disk: Option<f64>,
    rx: Option<f64>,
    tx: Option<f64>,
    conns: Option<f64>,
    load1: Option<f64>,
}

impl BucketRow {
    /// The averages in [`ChartMetric::ALL`]'s order.
    fn averages(&self) -> [Option<f64>; 7] {
        [
            self.cpu, self.mem, self.disk, self.rx, self.tx, self.conns, self.load1,
        ]
    }
}

impl Store {
    /// The metrics of the server's latest report, if it ever reported.
    pub async fn latest_metrics(&self, server: &ServerId) -> Result<Option<Metrics>, StoreError> {
        let raw: Option<String> =
            sqlx::query_scalar("SELECT metrics FROM server_reports WHERE server_id = $1")
                .bind(server)
                .fetch_optional(&self.reader)
                .await?;
        raw.map(|json| serde_json::from_str(&json).map_err(|e| corrupt("metrics", e)))
            .transpose()
    }

    /// The server's metrics over the `buckets` buckets of `bucket_s` that
    /// end at `until`, averaged per bucket, oldest first.
    pub async fn metric_charts(
        &self,
        server: &ServerId,
        until: chrono::DateTime<chrono::Utc>,
        buckets: usize,
        bucket_s: u32,
    ) -> Result<MetricCharts, StoreError> {
        let bucket_ms = i64::from(bucket_s) * 1000;
        let until_ms = until.timestamp_millis();
        let since_ms = until_ms - bucket_ms * buckets as i64;
        let rows = sqlx::query_as::<_, BucketRow>(CHART_BUCKETS.as_str())
            .bind(since_ms)
            .bind(bucket_ms)
            .bind(server)
            .bind(until_ms)
            .fetch_all(&self.reader)
            .await?;
        Ok(MetricCharts {
            until,
            bucket_s,
            series: series(&rows, buckets),
        })
    }

    /// Adds metrics samples (receipt time in ms, metrics) for a server that
    /// has none up to the newest of them; false (nothing written) when it
    /// has, so a restart never doubles a backfilled past.
    pub async fn backfill_metrics(
        &self,
        server: &ServerId,
        samples: &[(i64, Metrics)],
    ) -> Result<bool, StoreError> {
        let Some(newest) = samples.iter().map(|(at, _)| *at).max() else {
            return Ok(false);
        };
        let mut tx = self.write().await?;
        let has_past = sqlx::query_scalar::<_, i32>(
            "SELECT 1 FROM metrics_history WHERE server_id = $1 AND received_at_ms <= $2 LIMIT 1",
        )
        .bind(server)
        .bind(newest)
        .fetch_optional(&mut *tx)
        .await?
        .is_some();
        if has_past {
            return Ok(false);
        }
        for (at, metrics) in samples {
            let json = serde_json::to_string(metrics).map_err(|e| corrupt("metrics", e))?;
            insert_sample(&mut tx, server, *at, &json).await?;
        }
        tx.commit().await?;
        Ok(true)
    }
}

/// Each metric's values, one slot per bucket; buckets without a row (or
/// out of range) stay empty, as do averages that are not finite.
fn series(rows: &[BucketRow], buckets: usize) -> Vec<ChartSeries> {
    let mut values = vec![vec![None; buckets]; ChartMetric::ALL.len()];
    for row in rows {
        let Some(slot) = usize::try_from(row.bucket).ok().filter(|&b| b < buckets) else {
            continue;
        };
        for (metric_values, average) in values.iter_mut().zip(row.averages()) {
            metric_values[slot] = average.filter(|v| v.is_finite()).map(|v| v as f32);
        }
    }
    ChartMetric::ALL
        .into_iter()
        .zip(values)
        .map(|(metric, values)| ChartSeries::new(metric, values))
        .collect()
}

/// One metrics sample of a server's history (the charts' source).
pub(super) async fn insert_sample(
    tx: &mut Tx,
    server: &ServerId,
    received_ms: i64,
    metrics_json: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO metrics_history (server_id, received_at_ms, metrics) VALUES ($1, $2, $3)",
    )
    .bind(server)
    .bind(received_ms)
    .bind(metrics_json)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Drops the samples older than `before_ms`; returns how many went.
pub(super) async fn prune_in(tx: &mut Tx, before_ms: i64) -> Result<u64, StoreError> {
    Ok(
        sqlx::query("DELETE FROM metrics_history WHERE received_at_ms < $1")
            .bind(before_ms)
            .execute(&mut **tx)
            .await?
            .rows_affected(),
    )
}
