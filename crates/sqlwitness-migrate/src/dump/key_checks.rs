//! `pg_dump --disable-triggers` without a superuser. Such a dump wraps each
//! table's rows in `ALTER TABLE t DISABLE TRIGGER ALL` … `ENABLE TRIGGER
//! ALL`, which switches the server's foreign-key checks off as well as the
//! dump's own triggers: its rows may come in any order (a table whose key
//! points at a table loaded later; two tables pointing at each other).
//! Only a superuser may switch the server's checks, and the loader is not
//! one; it owns the dump's tables, though, so it does what the switch
//! means with the rights it has:
//!
//! * `DISABLE TRIGGER ALL` runs as `DISABLE TRIGGER USER` (the dump's own
//!   triggers), and the table's foreign keys are dropped, each one's
//!   definition kept in a temporary table of the loader's session;
//! * `ENABLE TRIGGER ALL` runs as `ENABLE TRIGGER USER`, and the keys come
//!   back `NOT VALID` (the rows loaded meanwhile are not checked, as the
//!   publisher's load did not check them; later rows are);
//! * once the dump's last statement has run, a key never enabled again
//!   comes back too, and every key that came back is validated: a key whose
//!   rows break it stays `NOT VALID` — the rows are kept as the publisher's
//!   superuser load keeps them.
//!
//! All of it runs as the loader, in `DO` blocks: nothing is done with
//! rights the dump does not already have.

/// The dollar-quote tag of the blocks' bodies.
const BODY: &str = "$sqlwitness_keys$";
/// The dollar-quote tag of the table's name inside them.
const NAME: &str = "$sqlwitness_name$";

/// What `ALTER TABLE … DISABLE|ENABLE TRIGGER ALL` (`text`) runs as, and
/// the block to run once the dump's last statement has run; `None` when
/// `text` is not such a statement as `pg_dump` writes it.
pub(crate) fn trigger_all(text: &str) -> Option<(String, String)> {
    let (table, enable) = parse(text)?;
    if table.contains("$sqlwitness") {
        return None;
    }
    let one = format!("SELECT {NAME}{table}{NAME}::pg_catalog.regclass");
    Some((switch(&one, enable), at_end()))
}

/// What `SET session_replication_role = replica` (every trigger off, the
/// server's key checks with them: data-only dumps begin so) and its way
/// back (`= origin`, `= DEFAULT`, `RESET`) run as, as [`trigger_all`] does
/// for every table of the loader's; `None` for another statement.
pub(crate) fn replication_role(text: &str) -> Option<(String, String)> {
    let lower = text.trim().trim_end_matches(';').to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == '=')
        .filter(|w| !w.is_empty())
        .collect();
    let enable = match words.as_slice() {
        ["reset", "session_replication_role"] => true,
        ["set", rest @ ..] => {
            let rest = match rest {
                ["session" | "local", r @ ..] => r,
                r => r,
            };
            match rest {
                ["session_replication_role", "to", v] | ["session_replication_role", v] => {
                    match v.trim_matches('\'') {
                        "replica" => false,
                        "origin" | "default" | "local" => true,
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    // Every table the loader owns: the dump's.
    let all = "SELECT c.oid::pg_catalog.regclass FROM pg_catalog.pg_class c \
               JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
               WHERE c.relkind IN ('r', 'p') AND n.nspname <> 'information_schema' \
               AND n.nspname NOT LIKE 'pg\\_%' \
               AND pg_catalog.pg_has_role(c.relowner, 'USAGE') ORDER BY 1";
    Some((switch(all, enable), at_end()))
}

/// A block switching the dump's own triggers of the tables `tables` (a
/// query of `regclass` values) and their foreign keys off or back on.
fn switch(tables: &str, enable: bool) -> String {
    let switch = if enable { "ENABLE" } else { "DISABLE" };
    let keys = if enable {
        "IF pg_catalog.to_regclass('pg_temp.sqlwitness_held_keys') IS NULL THEN CONTINUE; END IF; \
         FOR k IN SELECT name, def FROM pg_temp.sqlwitness_held_keys WHERE tbl = t AND dropped LOOP \
         EXECUTE pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT %I %s NOT VALID', t, k.name, k.def); \
         END LOOP; \
         UPDATE pg_temp.sqlwitness_held_keys SET dropped = false WHERE tbl = t;"
    } else {
        "CREATE TEMPORARY TABLE IF NOT EXISTS sqlwitness_held_keys \
         (tbl pg_catalog.regclass, name pg_catalog.text, def pg_catalog.text, dropped pg_catalog.bool); \
         FOR k IN SELECT c.conname, pg_catalog.pg_get_constraintdef(c.oid) AS def \
         FROM pg_catalog.pg_constraint c WHERE c.contype = 'f' AND c.conrelid = t ORDER BY c.conname LOOP \
         INSERT INTO pg_temp.sqlwitness_held_keys VALUES (t, k.conname, k.def, true); \
         EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', t, k.conname); \
         END LOOP;"
    };
    format!(
        "DO {BODY} DECLARE k record; t pg_catalog.regclass; BEGIN FOR t IN {tables} LOOP \
         EXECUTE pg_catalog.format('ALTER TABLE %s {switch} TRIGGER USER', t); {keys} \
         END LOOP; END {BODY}"
    )
}

/// The block run once the dump's last statement has run (see the module).
fn at_end() -> String {
    format!(
        "DO {BODY} DECLARE k record; BEGIN \
         IF pg_catalog.to_regclass('pg_temp.sqlwitness_held_keys') IS NULL THEN RETURN; END IF; \
         FOR k IN SELECT tbl, name, def FROM pg_temp.sqlwitness_held_keys WHERE dropped LOOP \
         EXECUTE pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT %I %s NOT VALID', k.tbl, k.name, k.def); \
         END LOOP; \
         FOR k IN SELECT tbl, name FROM pg_temp.sqlwitness_held_keys LOOP \
         BEGIN EXECUTE pg_catalog.format('ALTER TABLE %s VALIDATE CONSTRAINT %I', k.tbl, k.name); \
         EXCEPTION WHEN foreign_key_violation THEN NULL; END; \
         END LOOP; \
         DROP TABLE pg_temp.sqlwitness_held_keys; END {BODY}"
    )
}

/// The table (as written) of `ALTER TABLE [IF EXISTS] [ONLY] t
/// DISABLE|ENABLE TRIGGER ALL`, and whether it enables.
fn parse(text: &str) -> Option<(&str, bool)> {
    let t = text.trim().trim_end_matches(';').trim_end();
    let mut rest = strip_word(t, "ALTER")?;
    rest = strip_word(rest, "TABLE")?;
    if let Some(r) = strip_word(rest, "IF").and_then(|r| strip_word(r, "EXISTS")) {
        rest = r;
    }
    if let Some(r) = strip_word(rest, "ONLY") {
        rest = r;
    }
    let upper = rest.to_ascii_uppercase();
    let (at, enable) = [(" DISABLE ", false), (" ENABLE ", true)]
        .into_iter()
        .filter_map(|(w, e)| upper.rfind(w).map(|at| (at, e)))
        .max_by_key(|(at, _)| *at)?;
    let tail: Vec<&str> = upper[at..].split_whitespace().collect();
    if tail != [if enable { "ENABLE" } else { "DISABLE" }, "TRIGGER", "ALL"] {
        return None;
    }
    let table = rest[..at].trim();
    (!table.is_empty()).then_some((table, enable))
}

/// `s` after its first word when that is `word` (any case).
fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let s = s.trim_start();
    let head = s.get(..word.len())?;
    let after = &s[word.len()..];
    (head.eq_ignore_ascii_case(word) && after.starts_with(char::is_whitespace)).then_some(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_the_switch_are_read_as_pg_dump_writes_them() {
        assert_eq!(
            parse("ALTER TABLE public.t DISABLE TRIGGER ALL;"),
            Some(("public.t", false))
        );
        assert_eq!(
            parse("alter table only \"Odd Name\" enable trigger all"),
            Some(("\"Odd Name\"", true))
        );
        assert_eq!(
            parse("ALTER TABLE IF EXISTS ONLY s.\"x ENABLE y\" ENABLE TRIGGER ALL"),
            Some(("s.\"x ENABLE y\"", true))
        );
        assert_eq!(parse("ALTER TABLE t DISABLE TRIGGER my_trigger"), None);
        assert_eq!(parse("ALTER TABLE DISABLE TRIGGER ALL"), None);
        assert_eq!(parse("ALTER INDEX i DISABLE TRIGGER ALL"), None);
    }

    #[test]
    fn the_replication_role_switches_every_table() {
        for (text, enable) in [
            ("SET session_replication_role = replica;", false),
            ("SET SESSION session_replication_role TO 'replica'", false),
            ("SET session_replication_role = DEFAULT", true),
            ("set session_replication_role to origin", true),
            ("RESET session_replication_role", true),
        ] {
            let (sql, _) = replication_role(text).unwrap_or_else(|| panic!("{text}"));
            let word = if enable { "ENABLE" } else { "DISABLE" };
            assert!(
                sql.contains(&format!("{word} TRIGGER USER")),
                "{text}: {sql}"
            );
            assert!(sql.contains("pg_has_role(c.relowner"), "{text}: {sql}");
        }
        assert!(replication_role("SET search_path = public").is_none());
        assert!(replication_role("SET session_replication_role = sideways").is_none());
    }

    #[test]
    fn a_name_that_would_end_the_quoting_is_not_rewritten() {
        assert!(trigger_all("ALTER TABLE \"$sqlwitness_name$\" DISABLE TRIGGER ALL").is_none());
        let (sql, end) = trigger_all("ALTER TABLE ONLY public.film DISABLE TRIGGER ALL").unwrap();
        assert!(sql.starts_with("DO $sqlwitness_keys$"), "{sql}");
        assert!(
            sql.contains("$sqlwitness_name$public.film$sqlwitness_name$"),
            "{sql}"
        );
        assert!(sql.contains("DISABLE TRIGGER USER"), "{sql}");
        assert!(end.contains("VALIDATE CONSTRAINT"), "{end}");
    }
}
