//! The panel-wide settings (one row): the verdict parameters, and the
//! language notifications are written in.

use super::{corrupt, Store, StoreError};
use meshwatch::i18n::Lang;
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

    /// The language an operator last chose in the panel, which the
    /// notifications speak; `None` until one is chosen (they speak
    /// English). Notifications go to the panel's targets, not to one
    /// operator, so the choice is panel-wide.
    pub async fn notify_lang(&self) -> Result<Option<Lang>, StoreError> {
        let code: Option<String> = sqlx::query("SELECT notify_lang FROM settings WHERE id = 1")
            .fetch_one(&self.reader)
            .await?
            .try_get("notify_lang")?;
        code.map(|code| Lang::from_code(&code).ok_or_else(|| corrupt("notify_lang", &code)))
            .transpose()
    }

    /// Remembers an operator's choice of panel language for notifications.
    pub async fn set_notify_lang(&self, lang: Lang) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE settings SET notify_lang = ? WHERE id = 1")
            .bind(lang.code())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
