//! The analyses built on the parse (static findings, tie probes) work on
//! golds written for PostgreSQL, read in PostgreSQL's dialect first.

use sqlwitness_dialect::Grammar;
use sqlwitness_nondet::{analyze, top_order_probe, NondetRule};
use sqlwitness_sql::{parse_in, written_for, SchemaInfo, SQLITE_ONLY};

#[test]
fn postgres_only_syntax_is_read_as_postgres() {
    let sql = "SELECT name, price::numeric FROM items ORDER BY price::numeric DESC LIMIT 1";
    // `::` and the rest parse either way; an escape string needs PostgreSQL.
    let pg_only = "SELECT name FROM items WHERE name = E'a\\'b' ORDER BY price DESC LIMIT 1";
    assert!(parse_in(pg_only, SQLITE_ONLY).is_err());
    let dialects = written_for(Grammar::Postgres);
    for q in [sql, pg_only] {
        let findings = analyze(q, &SchemaInfo::default(), &dialects).unwrap();
        assert!(
            findings.iter().any(|f| f.rule == NondetRule::LimitTie1),
            "{q}: {findings:?}"
        );
        assert!(top_order_probe(q, &dialects).is_some(), "{q}");
    }
}
