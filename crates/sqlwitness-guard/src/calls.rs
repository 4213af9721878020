//! Functions, types and server variables, however the text spells them.
//!
//! These checks read the significant tokens ([`crate::names`]), not the
//! syntax tree: they hold whether or not `sqlparser` understands the text,
//! and a name counts as the server resolves it.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;
use sqlwitness_dialect::Dialect;

use crate::guard::{GuardOptions, Refusal};
use crate::lexer::{Span, SpanKind};
use crate::names::{Name, Sig};

/// Refuses, anywhere in the text: a call (a name followed by `(`) of a
/// denied function, qualified or not; a call qualified by anything but the
/// namespace or one of `dialect.function_schemas`; `.f` naming a function
/// of `denied_functions` where `t.f` calls `f(t)`; a denied type;
/// `OPERATOR(…)`.
pub(crate) fn check(
    sigs: &[Sig<'_>],
    dialect: &Dialect,
    options: &GuardOptions,
) -> Result<(), Refusal> {
    for (i, s) in sigs.iter().enumerate() {
        let Sig::Name(name) = s else { continue };
        if dialect.denies_type(&name.value) {
            return Err(Refusal(format!(
                "the type {} (it looks up a name given as text, out of the guard's sight)",
                name.shown()
            )));
        }
        let called = sigs.get(i + 1).is_some_and(|n| n.is(&Token::LParen));
        let after_dot = i > 0 && sigs[i - 1].is(&Token::Period);
        let before_dot = sigs.get(i + 1).is_some_and(|n| n.is(&Token::Period));
        if !called
            && !after_dot
            && !before_dot
            && !name.quoted
            && dialect
                .niladic_functions
                .contains(&name.value.to_ascii_lowercase())
        {
            // `CURRENT_USER` on MySQL: a call without parentheses.
            check_call(&[name], dialect, options)?;
        } else if called {
            if name.keyword == Keyword::OPERATOR && !after_dot {
                return Err(Refusal(
                    "`OPERATOR(…)`: an operator named by its schema runs a function the guard does not see".into(),
                ));
            }
            let parts = qualified_name(sigs, i).ok_or_else(|| {
                Refusal(format!(
                    "a call of {} on an expression (`(…).f(…)`)",
                    name.shown()
                ))
            })?;
            check_call(&parts, dialect, options)?;
        } else if after_dot
            && dialect.capabilities.attribute_calls
            && dialect
                .denied_functions
                .contains(&name.value.to_ascii_lowercase())
        {
            // By name only, not by family: attribute notation reaches only a
            // function of one row-typed argument (none of the flagged ones
            // today), and a column such as `to_region` or `lo_price` must
            // stay a column.
            return Err(Refusal(format!(
                "`.{}`: the denied function {} called in attribute notation",
                name.value,
                name.shown()
            )));
        }
    }
    Ok(())
}

/// The parts of the dotted name ending at `sigs[last]` (`a . b . f`);
/// `None` when a `.` follows something other than a name.
fn qualified_name<'s, 'a>(sigs: &'s [Sig<'a>], last: usize) -> Option<Vec<&'s Name<'a>>> {
    let mut parts = vec![sigs[last].name()?];
    let mut i = last;
    while i >= 2 && sigs[i - 1].is(&Token::Period) {
        parts.push(sigs[i - 2].name()?);
        i -= 2;
    }
    if i >= 1 && sigs[i - 1].is(&Token::Period) {
        return None;
    }
    parts.reverse();
    Some(parts)
}

/// A call of the function named by `parts` (its schema first, when
/// qualified): refused when the function is denied, or when a qualifier is
/// neither the question's namespace nor a schema of built-in functions.
pub(crate) fn check_call(
    parts: &[&Name<'_>],
    dialect: &Dialect,
    options: &GuardOptions,
) -> Result<(), Refusal> {
    let Some((function, qualifiers)) = parts.split_last() else {
        return Ok(());
    };
    if dialect.denies_function(&function.value) {
        return Err(Refusal(format!(
            "a call of the denied function {}",
            function.shown()
        )));
    }
    let names = &dialect.identifiers;
    match qualifiers {
        [] => Ok(()),
        [schema]
            if options
                .namespace
                .iter()
                .chain(&dialect.function_schemas)
                .any(|s| names.names(&schema.value, schema.quoted, s)) =>
        {
            Ok(())
        }
        _ => {
            let allowed: Vec<String> = options
                .namespace
                .iter()
                .chain(&dialect.function_schemas)
                .map(|s| format!("`{s}`"))
                .collect();
            let rule = if allowed.is_empty() {
                "no schema may qualify a function here".to_string()
            } else {
                format!("only {} may qualify a function", allowed.join(" or "))
            };
            let written: Vec<String> = qualifiers.iter().map(|q| q.shown()).collect();
            Err(Refusal(format!(
                "a call of `{}` qualified by {}: {rule}",
                function.value,
                written.join(".")
            )))
        }
    }
}

/// Refuses `@@name` (MySQL, MariaDB: a server variable such as `@@datadir`
/// or `@@global.log_error`) anywhere in the code of `sql`: two `@` with
/// nothing but whitespace and comments between (`spans` are the inert
/// spans the server sees).
pub(crate) fn check_system_variables(sql: &str, spans: &[Span]) -> Result<(), Refusal> {
    // What each byte is: code, comment or quoted.
    let mut kind: Vec<Option<SpanKind>> = vec![None; sql.len()];
    for s in spans {
        kind[s.start..s.end].fill(Some(s.kind));
    }
    let b = sql.as_bytes();
    let mut last_at = false;
    for (i, &c) in b.iter().enumerate() {
        match kind[i] {
            Some(SpanKind::Comment) => continue,
            Some(SpanKind::Quoted) => last_at = false,
            None if c == b'@' && last_at => {
                let name: String = sql[i + 1..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '`'))
                    .collect();
                return Err(Refusal(format!(
                    "the server variable `@@{name}` (server settings, paths and hosts are not the question's data)"
                )));
            }
            None if c.is_ascii_whitespace() => {}
            None => last_at = c == b'@',
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use sqlwitness_core::builtin_engines::*;

    use crate::testing::{check, refused};

    #[test]
    fn postgresql_names_are_read_as_the_server_resolves_them() {
        for (sql, function) in [
            (r#"SELECT U&"pg_c\0061ncel_backend"(0)"#, "pg_cancel_backend"),
            (
                r#"SELECT U&"set_c\006Fnfig"('role', 'postgres', true)"#,
                "set_config",
            ),
            (
                r#"SELECT U&"pg_adv!0069sory_lock" UESCAPE '!'(42)"#,
                "pg_advisory_lock",
            ),
            (
                r#"SELECT U&"query_to_x\006Dl"('select 1', true, true, '')"#,
                "query_to_xml",
            ),
            (
                r#"SELECT U&"pg_termin\+000061te_backend"(1)"#,
                "pg_terminate_backend",
            ),
            (r#"SELECT "set_config"('a', 'b', false)"#, "set_config"),
            ("SELECT SET_CONFIG('a', 'b', false)", "SET_CONFIG"),
            ("SELECT pg_catalog.set_config('a', 'b', false)", "set_config"),
            (
                r#"SELECT "pg_catalog"."set_config"('a', 'b', false)"#,
                "set_config",
            ),
            (
                "SELECT pg_catalog . /* x */ set_config\n('a', 'b', false)",
                "set_config",
            ),
            (
                r#"SELECT pg_catalog.U&"pg_notify"('c', 'x')"#,
                "pg_notify",
            ),
            ("SELECT * FROM pg_catalog.pg_ls_dir('.')", "pg_ls_dir"),
            (
                "SELECT xmlexists('//x' PASSING BY VALUE query_to_xml('select 1', true, true, ''))",
                "query_to_xml",
            ),
            (
                "SELECT * FROM XMLTABLE('/a' PASSING xml '<a/>' COLUMNS x text PATH '.' DEFAULT pg_read_file('/etc/hostname'))",
                "pg_read_file",
            ),
            (
                "SELECT format('%s', pg_logical_emit_message(false, 'x', 'y'))",
                "pg_logical_emit_message",
            ),
        ] {
            refused(Postgres, sql, &format!("the denied function `{function}`"));
        }
    }

    #[test]
    fn calls_qualified_by_another_schema_are_refused() {
        refused(
            Postgres,
            "SELECT information_schema._pg_truetypid(a, t) FROM singer",
            "qualified by `information_schema`",
        );
        refused(Postgres, "SELECT a.b.lower('x')", "qualified by `a`.`b`");
        refused(Mysql, "SELECT sys.format_path('x')", "qualified by `sys`");
        refused(Mysql, "SELECT mysql.get_lock('x', 1)", "get_lock");
        refused(Mariadb, "SELECT `sys`.`ps_thread_id`(1)", "ps_thread_id");
        refused(
            Postgres,
            "SELECT (singer).lower('x') FROM singer",
            "on an expression",
        );
        // Built-in and own-namespace qualifiers are fine.
        assert_eq!(
            check(Postgres, "SELECT pg_catalog.lower(name) FROM singer"),
            Ok(())
        );
        assert_eq!(
            check(Postgres, "SELECT concert_singer.f(name) FROM singer"),
            Ok(())
        );
        assert_eq!(
            check(Mysql, "SELECT concert_singer.f(name) FROM singer"),
            Ok(())
        );
    }

    #[test]
    fn attribute_notation_calls_are_seen_on_postgresql() {
        refused(
            Postgres,
            "SELECT s.pg_backend_pid FROM singer s",
            "attribute notation",
        );
        refused(
            Postgres,
            r#"SELECT s.U&"set_c\006Fnfig" FROM singer s"#,
            "attribute notation",
        );
        // Columns that share a denied family's prefix stay columns.
        assert_eq!(
            check(Postgres, "SELECT s.to_region, s.lo_price FROM singer s"),
            Ok(())
        );
        // MySQL has no attribute notation: `t.uuid` is a column.
        assert_eq!(check(Mysql, "SELECT s.uuid FROM singer s"), Ok(()));
    }

    #[test]
    fn name_lookup_types_and_operator_syntax_are_refused() {
        for sql in [
            "SELECT 'car_1.cars_data'::regclass",
            "SELECT CAST('pg_read_file' AS regproc)",
            "SELECT regprocedure 'pg_read_file(text)'",
            r#"SELECT 'x'::pg_catalog."regclass""#,
            "SELECT 1::REGROLE",
        ] {
            refused(Postgres, sql, "looks up a name given as text");
        }
        refused(
            Postgres,
            "SELECT to_regclass('car_1.cars_data')",
            "to_regclass",
        );
        refused(Postgres, "SELECT 1 OPERATOR(pg_catalog.=) 1", "OPERATOR");
    }

    #[test]
    fn bare_niladic_calls_are_calls() {
        for sql in [
            "SELECT CURRENT_USER",
            "SELECT current_user FROM singer",
            "SELECT a FROM t WHERE current_user = 'x'",
        ] {
            let err = check(Mysql, sql).unwrap_err().message;
            assert!(
                err.to_lowercase()
                    .contains("denied function `current_user`"),
                "{sql}: {err}"
            );
        }
        // A quoted or qualified name is a column.
        for sql in [
            "SELECT `current_user` FROM t",
            "SELECT t.current_user FROM t",
        ] {
            assert!(check(Mysql, sql).is_ok(), "{sql}");
        }
    }

    #[test]
    fn server_variables_are_refused_on_mysql() {
        for sql in [
            "SELECT @@datadir",
            "SELECT @@GLOBAL.log_error",
            "SELECT @@session.hostname",
            "SELECT @@`datadir`",
            "SELECT @ @datadir",
            "SELECT @/* */@datadir",
            "SELECT count(*) FROM singer WHERE name = @@version_comment",
        ] {
            refused(Mysql, sql, "server variable");
            refused(Mariadb, sql, "server variable");
        }
        // A user variable, and `@@` inside quotes, are not.
        assert_eq!(
            check(Mysql, "SELECT @x, '@@datadir', `@@y` FROM singer"),
            Ok(())
        );
        // PostgreSQL's `@@` is the text-search match operator.
        assert_eq!(
            check(
                Postgres,
                "SELECT to_tsvector(name) @@ to_tsquery('a') FROM singer"
            ),
            Ok(())
        );
    }

    #[test]
    fn side_effect_functions_of_every_family_are_refused() {
        for f in [
            "pg_logical_emit_message(false, 'x', 'y')",
            "pg_notify('c', 'x')",
            "txid_current()",
            "pg_current_xact_id()",
            "nextval('s')",
            "current_setting('data_directory')",
            "pg_stat_get_activity(NULL)",
            "inet_server_addr()",
            "pg_relation_filepath('singer')",
            "table_to_xml('car_1.cars_data', true, true, '')",
            "database_to_xml(true, true, '')",
            "pg_switch_wal()",
            "dblink_connect('x')",
        ] {
            let name = f.split('(').next().unwrap();
            refused(Postgres, &format!("SELECT {f}"), name);
        }
        for f in [
            "GET_LOCK('x', 1)",
            "RELEASE_ALL_LOCKS()",
            "BENCHMARK(100, 1)",
            "LOAD_FILE('/etc/hostname')",
            "SOURCE_POS_WAIT('f', 4)",
            "WAIT_FOR_EXECUTED_GTID_SET('x')",
            "GTID_SUBSET('a', 'b')",
            "UUID_SHORT()",
            "FOUND_ROWS()",
            "CONNECTION_ID()",
            "innodb_redo_log_archive_start('x')",
            "sys_exec('id')",
        ] {
            let name = f.split('(').next().unwrap();
            refused(Mysql, &format!("SELECT {f}"), name);
            refused(Mariadb, &format!("SELECT {f}"), name);
        }
        // What the review allows.
        assert_eq!(
            check(Postgres, "SELECT pg_sleep(0), random(), age(now())"),
            Ok(())
        );
        assert_eq!(
            check(Mysql, "SELECT SLEEP(0), DATABASE(), VERSION()"),
            Ok(())
        );
    }
}
