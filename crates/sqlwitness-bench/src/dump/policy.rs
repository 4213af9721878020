//! What a dump's loader runs, skips or refuses, statement by statement.
//!
//! A dump is input sqlwitness did not write. It is loaded into a namespace
//! sqlwitness creates, under a login that owns only that namespace (the
//! server's privileges are the wall); this policy is the first line, so
//! that what would reach outside is refused by name before anything runs:
//! server files and programs (`COPY … PROGRAM`, `COPY` to or from a server
//! file, `LOAD DATA`, `INTO OUTFILE`), roles and logins, server-wide
//! settings, other databases. What only sets up the dump's own environment
//! (its `CREATE DATABASE` and `\connect`, owners and grants, extensions) is
//! skipped with a note: sqlwitness provides that environment. Code that
//! would run at load time or later (triggers, functions, procedures,
//! events, rules) and materialized views are listed, not created. A view
//! is a stored query that runs nothing when it is created: it is created in
//! the dump's namespace by the loader (MySQL's `DEFINER=` clause left out,
//! so that the loader is its definer), and a view the server refuses is
//! listed with the server's reason instead of stopping the load.

use super::split::{past_quoted, DumpDialect};

/// The loader's decision on one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Run,
    /// Not run; why (for the import report).
    Skip(String),
    /// Listed as an object the dump defines but sqlwitness does not create
    /// (kind and name).
    List {
        kind: String,
        name: String,
    },
    /// A view: run as [`without_definer`] gives it; a view the server
    /// refuses is listed with its reason (its name, as written).
    View(String),
    /// The dump is refused; why.
    Refuse(String),
}

/// `text` without MySQL's `DEFINER = user@host` clause (outside strings and
/// quoted names, before the word `VIEW`: the query's own names are kept),
/// so that the login that runs it is the definer.
pub fn without_definer(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    let boundary = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    while i < b.len() {
        let word = |w: &str| {
            b.len() >= i + w.len()
                && text.is_char_boundary(i + w.len())
                && text[i..i + w.len()].eq_ignore_ascii_case(w)
                && boundary(i)
                && b.get(i + w.len())
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        };
        if word("VIEW") {
            break;
        }
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = past_quoted(b, i, q, q != b'`'),
            b'D' | b'd' if word("DEFINER") => {
                let mut j = i + 7;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) != Some(&b'=') {
                    i += 7;
                    continue;
                }
                j += 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                // `user@host`, each part quoted or bare; or CURRENT_USER[()].
                loop {
                    if let Some(&q @ (b'\'' | b'"' | b'`')) = b.get(j) {
                        j = past_quoted(b, j, q, q != b'`');
                    } else {
                        while j < b.len()
                            && (b[j].is_ascii_alphanumeric()
                                || matches!(b[j], b'_' | b'.' | b'%' | b'-' | b'(' | b')'))
                        {
                            j += 1;
                        }
                    }
                    if b.get(j) == Some(&b'@') {
                        j += 1;
                    } else {
                        break;
                    }
                }
                out.push_str(&text[copied..i]);
                copied = j;
                i = j;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// What the policy knows of the dump so far.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The dump's own database (its first `CREATE DATABASE`, `USE` or
    /// `\connect`), which the namespace sqlwitness creates stands for.
    pub own_database: Option<String>,
}

/// A token of a statement: a keyword or bare name (upper-cased), a quoted
/// name (as written, between its quotes), a string (`'`), or punctuation.
pub(crate) fn words(dialect: DumpDialect, text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"--") || (c == b'#' && dialect == DumpDialect::Mysql) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*!") || b[i..].starts_with(b"/*M!") {
            // MySQL's executable comment: its content is a statement's.
            i += if b[i + 2] == b'M' { 4 } else { 3 };
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else if b[i..].starts_with(b"*/") && dialect == DumpDialect::Mysql {
            i += 2;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'\'' || (c == b'"' && dialect == DumpDialect::Mysql) {
            let backslash =
                dialect == DumpDialect::Mysql || (i > 0 && matches!(b[i - 1], b'e' | b'E'));
            i = past_quoted(b, i, c, backslash);
            out.push("'".to_string());
        } else if c == b'"' || c == b'`' {
            let start = i;
            i = past_quoted(b, i, c, false);
            out.push(text[start..i].to_string());
        } else if c == b'$' && dialect == DumpDialect::Postgres {
            // A dollar-quoted body is a string here.
            let mut j = i + 1;
            while j < b.len() && b[j] != b'$' && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            if j < b.len() && b[j] == b'$' && !b[i + 1..j].first().is_some_and(u8::is_ascii_digit) {
                let tag = &b[i..=j];
                let mut k = j + 1;
                while k < b.len() && !b[k..].starts_with(tag) {
                    k += 1;
                }
                i = (k + tag.len()).min(b.len());
                out.push("'".to_string());
            } else {
                out.push("$".to_string());
                i += 1;
            }
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$') || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(text[start..i].to_ascii_uppercase());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

/// A name token without its quotes (`"Shop"` → `Shop`, `SHOP` → `shop`
/// for an unquoted PostgreSQL name, which folds to lower case).
fn name_of(dialect: DumpDialect, token: &str) -> String {
    let quoted = |q: char| token.len() >= 2 && token.starts_with(q) && token.ends_with(q);
    if quoted('"') {
        token[1..token.len() - 1].replace("\"\"", "\"")
    } else if quoted('`') {
        token[1..token.len() - 1].replace("``", "`")
    } else if dialect == DumpDialect::Postgres {
        token.to_lowercase()
    } else {
        // MySQL keeps the case as written; tokens were upper-cased.
        token.to_string()
    }
}

fn refuse(what: &str) -> Decision {
    Decision::Refuse(what.to_string())
}

fn skip(why: &str) -> Decision {
    Decision::Skip(why.to_string())
}

fn has(w: &[String], word: &str) -> bool {
    w.iter().any(|x| x == word)
}

fn has_pair(w: &[String], a: &str, b: &str) -> bool {
    w.windows(2).any(|p| p[0] == a && p[1] == b)
}

/// The token after the first `word` (skipping `IF [NOT] EXISTS`).
fn after<'a>(w: &'a [String], word: &str) -> Option<&'a String> {
    let at = w.iter().position(|x| x == word)?;
    let mut rest = w[at + 1..]
        .iter()
        .filter(|x| !matches!(x.as_str(), "IF" | "NOT" | "EXISTS"));
    rest.next()
}

/// The database a statement names, checked against (and, the first time,
/// setting) the dump's own.
fn own_database(
    ctx: &mut Context,
    dialect: DumpDialect,
    token: Option<&String>,
    action: &str,
) -> Decision {
    let Some(token) = token else {
        return refuse(&format!("{action} without a database name"));
    };
    // `raw` keeps the case as written for MySQL names (case-sensitive on
    // most servers' file systems).
    let name = name_of(dialect, token);
    match &ctx.own_database {
        None => {
            ctx.own_database = Some(name.clone());
            Decision::Skip(format!(
                "{action} {name}: the dump's own database is the namespace sqlwitness creates"
            ))
        }
        Some(own) if own.eq_ignore_ascii_case(&name) => Decision::Skip(format!(
            "{action} {name}: the dump's own database is the namespace sqlwitness creates"
        )),
        Some(own) => Decision::Refuse(format!(
            "{action} {name}: a statement on another database than the dump's own ({own})"
        )),
    }
}

/// The loader's decision on a psql or mysql-client command line.
pub fn classify_command(dialect: DumpDialect, ctx: &mut Context, text: &str) -> Decision {
    let mut parts = text.split_whitespace();
    let head = parts.next().unwrap_or("");
    match (dialect, head.to_ascii_lowercase().as_str()) {
        (DumpDialect::Postgres, "\\c" | "\\connect") => {
            let db = parts.next().map(|d| d.trim_end_matches(';').to_string());
            let token = db.map(|d| {
                if d.starts_with('"') {
                    d
                } else {
                    d.to_ascii_uppercase()
                }
            });
            own_database(ctx, dialect, token.as_ref(), "\\connect")
        }
        (DumpDialect::Postgres, "\\restrict" | "\\unrestrict" | "\\encoding") => {
            skip("a psql setting for the dump's own session")
        }
        (DumpDialect::Postgres, "\\set" | "\\pset" | "\\echo" | "\\timing") => {
            skip("a psql display or variable setting")
        }
        (DumpDialect::Mysql, "delimiter") => skip("the statement terminator"),
        _ => Decision::Refuse(format!(
            "the client command `{head}` (files, programs and other connections are not the dump's to use)"
        )),
    }
}

/// The loader's decision on one statement.
pub fn classify(dialect: DumpDialect, ctx: &mut Context, text: &str) -> Decision {
    let w = words(dialect, text);
    let first = w.first().map(String::as_str).unwrap_or("");
    let second = w.get(1).map(String::as_str).unwrap_or("");
    let role_word = |s: &str| matches!(s, "ROLE" | "USER" | "GROUP");
    // Common to both servers.
    if matches!(first, "CREATE" | "ALTER" | "DROP" | "RENAME")
        && role_word(second)
        && !(second == "USER" && w.get(2).map(String::as_str) == Some("MAPPING"))
    {
        return refuse(&format!(
            "{first} {second}: roles and logins are not the dump's to change"
        ));
    }
    // A MySQL schema is a database; a PostgreSQL one is inside the dump's.
    let database = second == "DATABASE" || (dialect == DumpDialect::Mysql && second == "SCHEMA");
    if matches!(first, "CREATE" | "DROP" | "ALTER") && database {
        // The dump's own database: sqlwitness's namespace, created with its
        // own settings (an `ALTER DATABASE` of it is skipped too).
        return own_database(
            ctx,
            dialect,
            after(&w, second),
            &format!("{first} {second}"),
        );
    }
    match dialect {
        DumpDialect::Postgres => classify_postgres(&w, first, second),
        DumpDialect::Mysql => classify_mysql(ctx, &w, first, second),
    }
}

fn classify_postgres(w: &[String], first: &str, second: &str) -> Decision {
    if first == "COPY" {
        let to = has(w, "TO");
        let from_at = w.iter().position(|x| x == "FROM");
        if to && from_at.is_none() {
            return refuse("COPY … TO writes to a server file or program");
        }
        return match from_at.and_then(|i| w.get(i + 1)).map(String::as_str) {
            Some("STDIN") => Decision::Run,
            Some("PROGRAM") => refuse("COPY … FROM PROGRAM runs a program on the server"),
            _ => refuse("COPY … FROM a server file reads outside the dump"),
        };
    }
    if matches!(first, "GRANT" | "REVOKE") {
        return skip("privileges are sqlwitness's to give: not applied");
    }
    if matches!(first, "ALTER") && has_pair(w, "OWNER", "TO") {
        return skip("ownership is the loader's: not applied");
    }
    if (first == "SET" || first == "RESET")
        && (second == "ROLE" || second == "SESSION" && has(w, "AUTHORIZATION"))
    {
        return skip("the loader's login is not changed");
    }
    let third = w.get(2).map(String::as_str).unwrap_or("");
    let extension = (matches!(first, "CREATE" | "DROP" | "ALTER") && second == "EXTENSION")
        || (first == "COMMENT" && second == "ON" && third == "EXTENSION");
    if extension {
        return skip(
            "extensions are not created by a dump's loader (objects that need one fail by name)",
        );
    }
    let server_wide = matches!(
        (first, second),
        ("ALTER", "SYSTEM")
            | ("CREATE" | "DROP" | "ALTER", "TABLESPACE")
            | ("CREATE" | "DROP" | "ALTER", "SERVER")
            | ("CREATE" | "DROP" | "ALTER", "SUBSCRIPTION")
            | ("CREATE" | "DROP" | "ALTER", "PUBLICATION")
            | ("LOAD", _)
            | ("IMPORT", "FOREIGN")
            | ("SECURITY", "LABEL")
            | ("REASSIGN" | "DROP", "OWNED")
    ) || (first == "CREATE" || first == "ALTER" || first == "DROP")
        && matches!(
            (second, third),
            ("FOREIGN", "DATA") | ("USER", "MAPPING") | ("EVENT", "TRIGGER")
        );
    if server_wide {
        return refuse(&format!(
            "{first} {second}: reaches beyond the dump's namespace (server files, settings or other servers)"
        ));
    }
    if first == "DO" {
        return Decision::List {
            kind: "code block (DO)".into(),
            name: String::new(),
        };
    }
    if let Some(listed) = listed_object(w) {
        return listed;
    }
    Decision::Run
}

fn classify_mysql(ctx: &mut Context, w: &[String], first: &str, second: &str) -> Decision {
    if first == "USE" {
        return own_database(ctx, DumpDialect::Mysql, w.get(1), "USE");
    }
    if first == "LOAD" {
        return refuse("LOAD DATA / LOAD XML reads a file outside the dump");
    }
    if has(w, "INTO") && (has(w, "OUTFILE") || has(w, "DUMPFILE")) {
        return refuse("SELECT … INTO OUTFILE/DUMPFILE writes a server file");
    }
    if matches!(first, "GRANT" | "REVOKE")
        || (first == "SET" && matches!(second, "PASSWORD" | "ROLE" | "DEFAULT"))
    {
        return refuse(&format!(
            "{first}: privileges and logins are not the dump's to change"
        ));
    }
    let global = first == "SET"
        && w.iter()
            .any(|x| matches!(x.as_str(), "GLOBAL" | "PERSIST" | "PERSIST_ONLY"));
    if global {
        return refuse("SET GLOBAL/PERSIST changes the whole server");
    }
    if first == "SET"
        && w.iter()
            .any(|x| matches!(x.as_str(), "SQL_LOG_BIN" | "GTID_PURGED"))
    {
        return skip("replication settings are the server's");
    }
    let server = matches!(
        first,
        "INSTALL"
            | "UNINSTALL"
            | "SHUTDOWN"
            | "KILL"
            | "FLUSH"
            | "RESET"
            | "PURGE"
            | "CHANGE"
            | "START"
            | "STOP"
            | "CLONE"
            | "HANDLER"
            | "SOURCE"
            | "SYSTEM"
            | "RESTART"
    ) && !(first == "START" && second == "TRANSACTION")
        || matches!(
            (first, second),
            (
                "CREATE" | "ALTER" | "DROP",
                "SERVER" | "TABLESPACE" | "LOGFILE" | "SPATIAL"
            )
        )
        || (first == "ALTER" && second == "INSTANCE");
    if server {
        return refuse(&format!("{first} {second}: a server-level statement"));
    }
    if let Some(listed) = listed_object(w) {
        return listed;
    }
    Decision::Run
}

/// Views and code (triggers, functions, procedures, events, rules): the
/// kind and name, when the statement creates one.
fn listed_object(w: &[String]) -> Option<Decision> {
    if w.first().map(String::as_str) != Some("CREATE") {
        return None;
    }
    const KINDS: [&str; 7] = [
        "VIEW",
        "TRIGGER",
        "FUNCTION",
        "PROCEDURE",
        "EVENT",
        "RULE",
        "AGGREGATE",
    ];
    // The kind is the first of these words before the object's name
    // (`CREATE OR REPLACE VIEW v`, `CREATE DEFINER=… TRIGGER t`,
    // `CREATE MATERIALIZED VIEW v`); a table whose column is named `event`
    // is a TABLE first.
    for (i, x) in w.iter().enumerate().skip(1) {
        if matches!(
            x.as_str(),
            "TABLE" | "INDEX" | "SEQUENCE" | "TYPE" | "DOMAIN" | "SCHEMA"
        ) {
            return None;
        }
        if KINDS.contains(&x.as_str()) {
            let mut at = i + 1;
            if w.get(at).map(String::as_str) == Some("IF") {
                at += 3;
            }
            // A qualified name: its parts and dots.
            let mut name = w.get(at).cloned().unwrap_or_default();
            while w.get(at + 1).map(String::as_str) == Some(".") {
                name.push('.');
                name.push_str(w.get(at + 2).map(String::as_str).unwrap_or(""));
                at += 2;
            }
            let name = name.to_lowercase();
            let kind = if x == "VIEW" && w[..i].iter().any(|y| y == "MATERIALIZED") {
                "materialized view".to_string()
            } else if x == "VIEW" {
                return Some(Decision::View(name));
            } else {
                x.to_lowercase()
            };
            return Some(Decision::List { kind, name });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(text: &str) -> Decision {
        classify(DumpDialect::Postgres, &mut Context::default(), text)
    }

    fn my(ctx: &mut Context, text: &str) -> Decision {
        classify(DumpDialect::Mysql, ctx, text)
    }

    fn refused(d: &Decision) -> bool {
        matches!(d, Decision::Refuse(_))
    }

    #[test]
    fn postgres_reaching_outside_is_refused() {
        for s in [
            "COPY t FROM PROGRAM 'id'",
            "copy t from '/etc/passwd'",
            "COPY (SELECT 1) TO '/tmp/x'",
            "CREATE ROLE admin2 SUPERUSER",
            "ALTER USER postgres PASSWORD 'x'",
            "ALTER SYSTEM SET work_mem = '1TB'",
            "CREATE TABLESPACE t LOCATION '/tmp'",
            "LOAD 'plugin'",
            "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw",
        ] {
            assert!(refused(&pg(s)), "{s}");
        }
        // Once the dump's own database is known, any other is refused.
        let mut ctx = Context {
            own_database: Some("shop".into()),
        };
        assert!(refused(&classify(
            DumpDialect::Postgres,
            &mut ctx,
            "DROP DATABASE other"
        )));
        assert_eq!(pg("COPY public.t (a, b) FROM stdin"), Decision::Run);
        assert!(matches!(
            pg("ALTER TABLE public.t OWNER TO postgres"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            pg("GRANT ALL ON SCHEMA public TO PUBLIC"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            pg("CREATE EXTENSION IF NOT EXISTS plpgsql"),
            Decision::Skip(_)
        ));
        assert_eq!(
            pg("CREATE OR REPLACE VIEW v AS SELECT 1"),
            Decision::View("v".into())
        );
        assert!(matches!(
            pg("CREATE MATERIALIZED VIEW m AS SELECT 1"),
            Decision::List { .. }
        ));
        assert_eq!(pg("CREATE TABLE event (trigger int)"), Decision::Run);
        // A column named like a keyword is a column.
        assert_eq!(
            pg("CREATE TABLE e (extension varchar(4), owner text)"),
            Decision::Run
        );
        // Keywords inside strings and bodies do not count.
        assert_eq!(
            pg("INSERT INTO t VALUES ('COPY t FROM PROGRAM')"),
            Decision::Run
        );
    }

    #[test]
    fn the_dumps_own_database_is_skipped_and_another_refused() {
        let mut ctx = Context::default();
        assert!(matches!(
            my(&mut ctx, "DROP DATABASE IF EXISTS `Chinook`"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            my(&mut ctx, "CREATE DATABASE `Chinook`"),
            Decision::Skip(_)
        ));
        assert!(matches!(my(&mut ctx, "USE `Chinook`"), Decision::Skip(_)));
        assert!(refused(&my(&mut ctx, "USE mysql")));
        assert!(refused(&my(&mut ctx, "DROP DATABASE victim")));
        let mut ctx = Context::default();
        assert!(matches!(
            classify_command(DumpDialect::Postgres, &mut ctx, "\\c chinook;"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            classify(
                DumpDialect::Postgres,
                &mut ctx,
                "DROP DATABASE IF EXISTS chinook"
            ),
            Decision::Skip(_)
        ));
        assert!(refused(&classify_command(
            DumpDialect::Postgres,
            &mut ctx,
            "\\! rm -rf /"
        )));
    }

    #[test]
    fn a_mysql_view_loses_its_definer() {
        let mut ctx = Context::default();
        let text = "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013 DEFINER=`root`@`localhost` \
                    SQL SECURITY DEFINER */\n/*!50001 VIEW `big` AS select 'DEFINER=x@y' AS `s` */";
        assert_eq!(my(&mut ctx, text), Decision::View("`big`".into()));
        assert_eq!(
            without_definer(text),
            "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013  SQL SECURITY DEFINER */\n\
             /*!50001 VIEW `big` AS select 'DEFINER=x@y' AS `s` */"
        );
        assert_eq!(
            without_definer("CREATE DEFINER = root@'%' VIEW v AS SELECT 1"),
            "CREATE  VIEW v AS SELECT 1"
        );
        assert_eq!(
            without_definer("CREATE DEFINER=CURRENT_USER() VIEW v AS SELECT 1"),
            "CREATE  VIEW v AS SELECT 1"
        );
        let kept = "CREATE VIEW v AS SELECT * FROM t WHERE definer = 'x'";
        assert_eq!(without_definer(kept), kept);
    }

    #[test]
    fn mysql_reaching_outside_is_refused() {
        for s in [
            "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
            "LOAD DATA LOCAL INFILE 'x' INTO TABLE t",
            "SELECT * FROM t INTO OUTFILE '/tmp/x'",
            "CREATE USER x IDENTIFIED BY 'y'",
            "GRANT ALL ON *.* TO x",
            "SET GLOBAL max_connections = 1",
            "/*!40101 SET @@GLOBAL.sql_mode = '' */",
            "INSTALL PLUGIN x SONAME 'y'",
            "SHUTDOWN",
        ] {
            assert!(refused(&my(&mut Context::default(), s)), "{s}");
        }
        let mut ctx = Context::default();
        assert_eq!(my(&mut ctx, "/*!40101 SET NAMES utf8mb4 */"), Decision::Run);
        assert_eq!(my(&mut ctx, "LOCK TABLES `t` WRITE"), Decision::Run);
        assert!(matches!(
            my(
                &mut ctx,
                "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x=1 */"
            ),
            Decision::List { .. }
        ));
    }
}
