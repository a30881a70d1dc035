//! `GET /mesh.svg`: the mesh page's picture of a big fleet (see
//! `meshwatch_views::mesh_picture`), for a signed-in operator (the page guard
//! covers it). The page names it by the matrix's fingerprint, so a live
//! refresh that changed a cell loads the new picture. A fleet watched by
//! witness sets has no such picture (its page lists the sets): 404.

use crate::engine::Core;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use axum::response::{IntoResponse, Response};
use meshwatch_views::mesh_picture;
use meshwatch_views::views::MeshMatrix;
use std::sync::{Mutex, PoisonError};

pub async fn serve(State(core): State<Core>) -> Response {
    if core.read_model.uses_witness_sets() {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    }
    let matrix = core.read_model.mesh_matrix();
    let image = tokio::task::spawn_blocking(move || drawn(&matrix))
        .await
        .unwrap_or_default();
    (
        [
            (CONTENT_TYPE, "image/svg+xml"),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        image,
    )
        .into_response()
}

/// The picture of `matrix`, drawn once per matrix: the last one drawn is
/// kept by its fingerprint (pages opened together, and live refreshes of
/// an unchanged mesh, share it).
fn drawn(matrix: &MeshMatrix) -> Bytes {
    static LAST: Mutex<Option<(u64, Bytes)>> = Mutex::new(None);
    let fingerprint = mesh_picture::fingerprint(matrix);
    if let Some((kept, image)) = &*LAST.lock().unwrap_or_else(PoisonError::into_inner) {
        if *kept == fingerprint {
            return image.clone();
        }
    }
    let image = Bytes::from(mesh_picture::svg(matrix));
    *LAST.lock().unwrap_or_else(PoisonError::into_inner) = Some((fingerprint, image.clone()));
    image
}
