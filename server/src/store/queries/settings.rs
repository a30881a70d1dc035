//! The panel-wide settings (one row): the verdict parameters, and the
//! language notifications are written in.

use super::{corrupt, Store, StoreError};
use meshwatch::settings::Settings;
use meshwatch_views::i18n::Lang;

#[derive(sqlx::FromRow)]
struct SettingsRow {
    report_interval_s: i64,
    probe_interval_s: i64,
    probe_timeout_s: i64,
    stale_after_s: i64,
    failure_streak: i64,
    quorum: i64,
    unreliable_fraction: f64,
    witness_set_threshold: i64,
    witness_set_size: i64,
    witness_rotation_s: i64,
}

fn to_u32(v: i64) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|e| corrupt("setting", e))
}

impl TryFrom<SettingsRow> for Settings {
    type Error = StoreError;

    fn try_from(row: SettingsRow) -> Result<Self, StoreError> {
        Ok(Settings {
            report_interval_s: to_u32(row.report_interval_s)?,
            probe_interval_s: to_u32(row.probe_interval_s)?,
            probe_timeout_s: to_u32(row.probe_timeout_s)?,
            stale_after_s: to_u32(row.stale_after_s)?,
            failure_streak: to_u32(row.failure_streak)?,
            quorum: to_u32(row.quorum)?,
            unreliable_fraction: row.unreliable_fraction,
            witness_set_threshold: to_u32(row.witness_set_threshold)?,
            witness_set_size: to_u32(row.witness_set_size)?,
            witness_rotation_s: to_u32(row.witness_rotation_s)?,
        })
    }
}

impl Store {
    pub async fn settings(&self) -> Result<Settings, StoreError> {
        sqlx::query_as::<_, SettingsRow>(
            "SELECT report_interval_s, probe_interval_s, probe_timeout_s, stale_after_s,
                    failure_streak, quorum, unreliable_fraction, witness_set_threshold,
                    witness_set_size, witness_rotation_s FROM settings WHERE id = 1",
        )
        .fetch_one(&self.reader)
        .await?
        .try_into()
    }

    /// Replaces the settings (validated by the caller).
    pub async fn save_settings(&self, s: &Settings) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE settings SET report_interval_s = $1, probe_interval_s = $2, probe_timeout_s = $3,
                stale_after_s = $4, failure_streak = $5, quorum = $6, unreliable_fraction = $7,
                witness_set_threshold = $8, witness_set_size = $9, witness_rotation_s = $10 WHERE id = 1",
        )
        .bind(i64::from(s.report_interval_s))
        .bind(i64::from(s.probe_interval_s))
        .bind(i64::from(s.probe_timeout_s))
        .bind(i64::from(s.stale_after_s))
        .bind(i64::from(s.failure_streak))
        .bind(i64::from(s.quorum))
        .bind(s.unreliable_fraction)
        .bind(i64::from(s.witness_set_threshold))
        .bind(i64::from(s.witness_set_size))
        .bind(i64::from(s.witness_rotation_s))
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
        let code: Option<String> =
            sqlx::query_scalar("SELECT notify_lang FROM settings WHERE id = 1")
                .fetch_one(&self.reader)
                .await?;
        code.map(|code| Lang::from_code(&code).ok_or_else(|| corrupt("notify_lang", &code)))
            .transpose()
    }

    /// Remembers an operator's choice of panel language for notifications.
    pub async fn set_notify_lang(&self, lang: Lang) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE settings SET notify_lang = $1 WHERE id = 1")
            .bind(lang.code())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
