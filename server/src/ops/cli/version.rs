//! `meshwatch-server --version`: this binary's release and schema, and the
//! schema of the configured database when there is one. Works without a
//! valid configuration: it is what one asks first when something is wrong.

use crate::ops::config::Config;
use crate::store::schema::{binary_schema, SchemaFit, PANEL_VERSION};
use crate::store::{database_file, offline};

/// The lines to print.
pub async fn lines(config: Option<&Config>) -> Vec<String> {
    let mut lines = vec![
        format!("meshwatch-server {PANEL_VERSION}"),
        format!("database schema {}", binary_schema()),
    ];
    let database = config
        .and_then(|c| database_file(c.database_url.as_str()).ok().flatten())
        .filter(|path| path.is_file());
    if let Some(path) = database {
        let found = match offline::schema_of(&path).await {
            Ok(Some(applied)) => SchemaFit::of(&applied).describe(),
            Ok(None) => "no meshwatch schema (not a meshwatch database?)".to_owned(),
            Err(err) => format!("cannot read its schema ({err})"),
        };
        lines.push(format!("configured database {}: {found}", path.display()));
    }
    lines
}
