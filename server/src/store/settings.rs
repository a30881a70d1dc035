//! The verdict parameters (one row).

use super::{corrupt, Store, StoreError};
use meshwatch::settings::Settings;
use sqlx::Row;

fn to_u32(v: i64) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|e| corrupt("setting", e))
}

impl Store {
    pub async fn settings(&self) -> Result<Settings, StoreError> {
        let row = sqlx::query(
            "SELECT report_interval_s, probe_interval_s, probe_timeout_s, stale_after_s,
                    failure_streak, quorum, unreliable_fraction FROM settings WHERE id = 1",
        )
        .fetch_one(&self.reader)
        .await?;
        Ok(Settings {
            report_interval_s: to_u32(row.try_get("report_interval_s")?)?,
            probe_interval_s: to_u32(row.try_get("probe_interval_s")?)?,
            probe_timeout_s: to_u32(row.try_get("probe_timeout_s")?)?,
            stale_after_s: to_u32(row.try_get("stale_after_s")?)?,
            failure_streak: to_u32(row.try_get("failure_streak")?)?,
            quorum: to_u32(row.try_get("quorum")?)?,
            unreliable_fraction: row.try_get("unreliable_fraction")?,
        })
    }

    /// Replaces the settings (validated by the caller).
    pub async fn save_settings(&self, s: &Settings) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE settings SET report_interval_s = ?, probe_interval_s = ?, probe_timeout_s = ?,
                stale_after_s = ?, failure_streak = ?, quorum = ?, unreliable_fraction = ? WHERE id = 1",
        )
        .bind(i64::from(s.report_interval_s))
        .bind(i64::from(s.probe_interval_s))
        .bind(i64::from(s.probe_timeout_s))
        .bind(i64::from(s.stale_after_s))
        .bind(i64::from(s.failure_streak))
        .bind(i64::from(s.quorum))
        .bind(s.unreliable_fraction)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
