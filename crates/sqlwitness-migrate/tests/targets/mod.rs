//! The servers the migration tests copy to.

/// Every configured server engine as a migration target.
pub fn targets() -> Vec<sqlwitness_migrate::MigrationTarget> {
    let mut out = Vec::new();
    sqlwitness_testkit::for_each_server(None, |kind, url| {
        out.push(sqlwitness_migrate::MigrationTarget::new(kind, url))
    });
    out
}
