//! Maintenance windows (docs/PRODUCT.md §6): planned, listed and cancelled by
//! the operator; the evaluator reads them with the fleet.

use super::{corrupt, Store, StoreError};
use chrono::{DateTime, Duration, Utc};
use meshwatch::maintenance::{
    MaintenanceId, MaintenancePlan, MaintenanceWindow, KEEP_ENDED_DAYS, MAX_WINDOWS,
};

#[derive(sqlx::FromRow)]
struct WindowRow {
    id: i64,
    servers: String,
    routes: String,
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
    weekly: bool,
    note: String,
}

impl TryFrom<WindowRow> for MaintenanceWindow {
    type Error = StoreError;

    fn try_from(row: WindowRow) -> Result<Self, StoreError> {
        Ok(MaintenanceWindow {
            id: MaintenanceId(row.id),
            plan: MaintenancePlan {
                servers: serde_json::from_str(&row.servers)
                    .map_err(|e| corrupt("maintenance servers", e))?,
                routes: serde_json::from_str(&row.routes)
                    .map_err(|e| corrupt("maintenance routes", e))?,
                start: row.starts_at,
                end: row.ends_at,
                weekly: row.weekly,
                note: row.note,
            },
        })
    }
}

fn ids_json<T: serde::Serialize>(ids: &[T]) -> Result<String, StoreError> {
    serde_json::to_string(ids).map_err(|e| corrupt("maintenance targets", e))
}

impl Store {
    /// Every window, by start.
    pub async fn maintenance_windows(&self) -> Result<Vec<MaintenanceWindow>, StoreError> {
        sqlx::query_as::<_, WindowRow>(
            "SELECT id, servers, routes, starts_at, ends_at, weekly, note
             FROM maintenance_windows ORDER BY starts_at, id",
        )
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(MaintenanceWindow::try_from)
        .collect()
    }

    /// Stores a validated plan, first dropping one-off windows ended more
    /// than [`KEEP_ENDED_DAYS`] ago; `None` (nothing stored) when
    /// [`MAX_WINDOWS`] are kept already.
    pub async fn plan_maintenance(
        &self,
        plan: &MaintenancePlan,
        now: DateTime<Utc>,
    ) -> Result<Option<MaintenanceWindow>, StoreError> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM maintenance_windows WHERE weekly = $1 AND ends_at <= $2")
            .bind(false)
            .bind(now - Duration::days(KEEP_ENDED_DAYS))
            .execute(&mut *tx)
            .await?;
        let kept: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM maintenance_windows")
            .fetch_one(&mut *tx)
            .await?;
        if usize::try_from(kept).unwrap_or(usize::MAX) >= MAX_WINDOWS {
            return Ok(None);
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO maintenance_windows
                (servers, routes, starts_at, ends_at, weekly, note, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(ids_json(&plan.servers)?)
        .bind(ids_json(&plan.routes)?)
        .bind(plan.start)
        .bind(plan.end)
        .bind(plan.weekly)
        .bind(&plan.note)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(MaintenanceWindow {
            id: MaintenanceId(id),
            plan: plan.clone(),
        }))
    }

    /// Cancels a window; false when there is none with that id.
    pub async fn cancel_maintenance(&self, id: MaintenanceId) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let done = sqlx::query("DELETE FROM maintenance_windows WHERE id = $1")
            .bind(id.0)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        tx.commit().await?;
        Ok(done)
    }
}
