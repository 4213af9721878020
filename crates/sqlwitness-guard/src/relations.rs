//! What a query may read: the tables of its own question's namespace.
//!
//! Every migrated database of every benchmark lives on the same server,
//! beside the server's own catalogue (other sessions' SQL, settings, paths).
//! A table name qualified by a schema or database must name the question's
//! namespace; an unqualified name must not reach the catalogue (PostgreSQL
//! looks there first, for the names its prefix reserves).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;
use sqlwitness_dialect::Dialect;

use crate::guard::{GuardOptions, Refusal};
use crate::names::{Name, Sig};

/// The table named by `parts` (its schema first, when qualified).
pub(crate) fn check_relation(
    parts: &[&Name<'_>],
    dialect: &Dialect,
    options: &GuardOptions,
) -> Result<(), Refusal> {
    let written = || {
        parts
            .iter()
            .map(|p| p.shown())
            .collect::<Vec<_>>()
            .join(".")
    };
    match parts {
        [] => Ok(()),
        [table] => {
            let lower = table.value.to_ascii_lowercase();
            match dialect
                .catalog_relation_prefixes
                .iter()
                .find(|p| lower.starts_with(p.as_str()))
            {
                Some(prefix) => Err(Refusal(format!(
                    "the table {}: a name starting with `{prefix}` is the system catalogue's (sessions, settings and paths are not the question's data)",
                    table.shown()
                ))),
                None => Ok(()),
            }
        }
        [schema, _] => match &options.namespace {
            Some(ns) if dialect.identifiers.names(&schema.value, schema.quoted, ns) => Ok(()),
            Some(ns) => Err(Refusal(format!(
                "the table {} outside the question's namespace `{ns}`",
                written()
            ))),
            None => Err(Refusal(format!(
                "the table {}: a table may be qualified only by its question's namespace",
                written()
            ))),
        },
        _ => Err(Refusal(format!(
            "the table {}: a table name of {} parts reaches beyond the question's namespace",
            written(),
            parts.len()
        ))),
    }
}

/// Paren levels of the text, for [`named_tables`].
struct Level {
    /// A `SELECT` opened at this level.
    query: bool,
    /// In a `FROM` list (or a parenthesised join inside one).
    from: bool,
}

/// The tables a text names, from its tokens alone (for text `sqlparser`
/// cannot parse): the dotted name after `FROM` (of a query, not of
/// `EXTRACT(… FROM …)` or `IS DISTINCT FROM`), `JOIN`, a comma of a
/// `FROM` list, an opening parenthesis where a table may stand, and
/// `TABLE`. Table functions (a name followed by `(`) are left to the
/// function checks.
pub(crate) fn named_tables<'s, 'a>(sigs: &'s [Sig<'a>]) -> Vec<Vec<&'s Name<'a>>> {
    let mut out = Vec::new();
    let mut levels = vec![Level {
        query: false,
        from: false,
    }];
    let mut expect = false;
    let mut i = 0;
    while i < sigs.len() {
        let top = levels.len() - 1;
        match &sigs[i] {
            Sig::Other(Token::LParen) => {
                levels.push(Level {
                    query: false,
                    from: expect,
                });
            }
            Sig::Other(Token::RParen) => {
                if top > 0 {
                    levels.pop();
                }
                expect = false;
            }
            Sig::Other(Token::Comma) => expect = levels[top].from,
            Sig::Other(_) => expect = false,
            Sig::Name(n) if !n.quoted && n.keyword != Keyword::NoKeyword => {
                let after_distinct = i > 0
                    && matches!(sigs[i - 1].name(), Some(p) if !p.quoted && p.keyword == Keyword::DISTINCT);
                match n.keyword {
                    Keyword::SELECT => {
                        levels[top] = Level {
                            query: true,
                            from: false,
                        };
                        expect = false;
                    }
                    Keyword::FROM if levels[top].query && !after_distinct => {
                        levels[top].from = true;
                        expect = true;
                    }
                    Keyword::JOIN | Keyword::STRAIGHT_JOIN | Keyword::TABLE => expect = true,
                    Keyword::LATERAL | Keyword::ONLY | Keyword::ROWS if expect => {}
                    Keyword::WHERE
                    | Keyword::GROUP
                    | Keyword::HAVING
                    | Keyword::ORDER
                    | Keyword::LIMIT
                    | Keyword::OFFSET
                    | Keyword::FETCH
                    | Keyword::WINDOW
                    | Keyword::QUALIFY
                    | Keyword::UNION
                    | Keyword::INTERSECT
                    | Keyword::EXCEPT
                    | Keyword::MINUS
                    | Keyword::FOR
                    | Keyword::INTO => {
                        levels[top].from = false;
                        expect = false;
                    }
                    _ if expect => i = take_table(sigs, i, &mut out, &mut expect),
                    _ => {}
                }
            }
            Sig::Name(_) if expect => i = take_table(sigs, i, &mut out, &mut expect),
            Sig::Name(_) => {}
        }
        i += 1;
    }
    out
}

/// The dotted name starting at `sigs[at]`, pushed to `out` unless a `(`
/// makes it a table function; the index of its last part.
fn take_table<'s, 'a>(
    sigs: &'s [Sig<'a>],
    at: usize,
    out: &mut Vec<Vec<&'s Name<'a>>>,
    expect: &mut bool,
) -> usize {
    *expect = false;
    let mut parts = Vec::new();
    let mut last = at;
    let mut i = at;
    while let Some(n) = sigs.get(i).and_then(Sig::name) {
        parts.push(n);
        last = i;
        if !sigs.get(i + 1).is_some_and(|s| s.is(&Token::Period)) {
            break;
        }
        i += 2;
    }
    if !sigs.get(last + 1).is_some_and(|s| s.is(&Token::LParen)) {
        out.push(parts);
    }
    last
}

#[cfg(test)]
mod tests {
    use sqlwitness_core::{builtin_engines::*, EngineKind};

    use crate::testing::{check, check_in, refused};

    /// Texts `sqlparser` cannot parse, so that the token reading decides.
    fn unparsed(sql: &str) -> String {
        format!("{sql} WHERE 1 ==== 1")
    }

    #[test]
    fn a_qualified_table_must_name_the_namespace() {
        for kind in EngineKind::all() {
            for sql in [
                "SELECT * FROM car_1.cars_data".to_string(),
                "SELECT count(*) FROM singer WHERE 1 IN (SELECT 1 FROM car_1.cars_data)".into(),
                "SELECT * FROM singer JOIN car_1.cars_data ON 1 = 1".into(),
                "WITH c AS (SELECT * FROM car_1.cars_data) SELECT * FROM c".into(),
                "SELECT * FROM singer, (SELECT * FROM `car_1`.cars_data) d".into(),
                unparsed("SELECT * FROM singer s, car_1.cars_data"),
                unparsed("SELECT * FROM (singer JOIN car_1.cars_data ON 1 = 1)"),
                unparsed("SELECT * FROM singer JOIN singer b USING (a, b), car_1.cars_data"),
            ] {
                if kind != Postgres || !sql.contains('`') {
                    refused(kind, &sql, "car_1");
                }
            }
            for sql in [
                "SELECT * FROM information_schema.processlist",
                "SELECT * FROM performance_schema.global_variables",
                "SELECT * FROM mysql.user",
                "SELECT * FROM sys.processlist",
                "SELECT * FROM pg_catalog.pg_stat_activity",
            ] {
                refused(
                    kind,
                    sql,
                    "outside the question's namespace `concert_singer`",
                );
            }
            refused(kind, "SELECT * FROM a.b.c", "3 parts");
            assert_eq!(check(kind, "SELECT * FROM concert_singer.singer"), Ok(()));
            assert_eq!(
                check(kind, &unparsed("SELECT * FROM concert_singer.singer")),
                Ok(())
            );
            // Without a namespace, any qualified table is refused.
            assert!(check_in(kind, None, "SELECT * FROM concert_singer.singer").is_err());
        }
        for kind in [Postgres, Mysql] {
            assert!(check(kind, "TABLE car_1.cars_data").is_err());
            assert!(check(kind, &unparsed("SELECT 1 UNION TABLE car_1.cars_data")).is_err());
        }
    }

    #[test]
    fn the_namespace_is_compared_as_the_server_resolves_it() {
        // PostgreSQL folds unquoted names; a quoted name is exact.
        let ns = Some("Concert_Singer");
        assert!(check_in(Postgres, ns, "SELECT * FROM Concert_Singer.singer").is_err());
        assert_eq!(
            check_in(Postgres, ns, r#"SELECT * FROM "Concert_Singer".singer"#),
            Ok(())
        );
        assert_eq!(
            check_in(
                Postgres,
                Some("concert_singer"),
                "SELECT * FROM CONCERT_SINGER.singer"
            ),
            Ok(())
        );
        assert!(check_in(
            Postgres,
            Some("concert_singer"),
            r#"SELECT * FROM "CONCERT_SINGER".singer"#
        )
        .is_err());
        // A Unicode-escaped qualifier is decoded first.
        refused(
            Postgres,
            r#"SELECT * FROM U&"car\005f1".cars_data"#,
            "car_1",
        );
        assert_eq!(
            check(Postgres, r#"SELECT * FROM U&"concert\005fsinger".singer"#),
            Ok(())
        );
        // MySQL compares database names as written; SQLite in any case.
        assert!(check_in(Mysql, ns, "SELECT * FROM concert_singer.singer").is_err());
        assert_eq!(
            check_in(Sqlite, ns, "SELECT * FROM concert_singer.singer"),
            Ok(())
        );
    }

    #[test]
    fn catalogue_relations_are_refused_on_postgresql() {
        for sql in [
            "SELECT query FROM pg_stat_activity",
            "SELECT * FROM pg_settings",
            "SELECT * FROM pg_file_settings",
            "SELECT * FROM PG_LOCKS",
            r#"SELECT * FROM "pg_shadow""#,
            "SELECT 1 FROM singer WHERE EXISTS (SELECT 1 FROM pg_hba_file_rules)",
        ] {
            refused(Postgres, sql, "system catalogue");
            refused(Postgres, &unparsed(sql), "system catalogue");
        }
        // Elsewhere `pg_` is just a name.
        assert_eq!(check(Mysql, "SELECT * FROM pg_stat_activity"), Ok(()));
        assert_eq!(check(Postgres, "SELECT * FROM concert_singer.pg_x"), Ok(()));
    }

    #[test]
    fn the_token_reading_finds_tables_only_where_tables_stand() {
        for sql in [
            "SELECT EXTRACT(YEAR FROM T1.d) FROM singer AS T1",
            "SELECT T1.a IS DISTINCT FROM T2.b FROM singer T1 JOIN singer T2 ON T1.a = T2.a",
            "SELECT substring(T1.name FROM 2 FOR 3), T2.x FROM singer T1, singer T2",
            "SELECT a FROM singer GROUP BY T1.a, T2.b ORDER BY T1.c, T2.d",
            "SELECT a FROM singer s WHERE s.a IN (1, 2) LIMIT 1, 2",
            "SELECT * FROM singer AS x (a, b) JOIN singer y USING (a, b)",
            "SELECT * FROM generate_series(1, 3) g, singer",
        ] {
            assert_eq!(check(Postgres, &unparsed(sql)), Ok(()), "{sql}");
        }
    }
}
