//! `COPY` rows a PostgreSQL dump reads from a file of its own rather than
//! from its text: psql's `\copy TABLE [(cols)] FROM 'file' [options]` (the
//! file read by the client, from its working folder), and in the
//! `restore.sql` of a pg_dump tar archive `COPY … FROM '$$PATH$$/NNNN.dat'`
//! (the archive's data member). Each runs as the `COPY … FROM STDIN` the
//! client sends, fed from that file; where the file may be is
//! [`super::reading`]'s to decide. Every other source stays refused: the
//! client's own input (`stdin`, `pstdin`), a program, a `\copy … TO`.

use super::policy::{tokens, Tok};
use super::split::DumpDialect;

/// What `pg_dump -Ft` writes in `restore.sql` for the folder its data
/// files are extracted to.
pub(super) const ARCHIVE_PATH: &str = "$$PATH$$/";

/// A `COPY … FROM STDIN` whose rows a file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CopyFile {
    /// The statement sent to the server.
    pub sql: String,
    /// The file as the dump names it (`rows.csv`; for an archive's member,
    /// the name after `$$PATH$$/`).
    pub file: String,
    /// In the archive the dump is read from, not in the dump's folder.
    pub member: bool,
}

/// A `\copy` the loader does not follow: why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(super) struct NotFollowed(pub String);

/// psql's `\copy` command `text`, as psql reads it (`None`: another
/// command): `COPY <what> FROM STDIN <options>` with the file it reads, or
/// why it is not followed.
pub(super) fn slash_copy(text: &str) -> Option<Result<CopyFile, NotFollowed>> {
    let text = text.trim();
    let rest = text
        .get(..5)
        .filter(|h| h.eq_ignore_ascii_case("\\copy"))
        .map(|_| &text[5..])?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    // psql takes the rest of the line, without the semicolons it ends with.
    let rest = rest
        .trim()
        .trim_end_matches(|c: char| c == ';' || c.is_whitespace());
    Some(parse_slash_copy(rest))
}

fn parse_slash_copy(rest: &str) -> Result<CopyFile, NotFollowed> {
    let refuse = |why: &str| Err(NotFollowed(why.to_string()));
    let Some((at, to)) = direction(rest) else {
        return refuse("\\copy without FROM or TO");
    };
    let what = rest[..at].trim();
    if to {
        return refuse("\\copy … TO writes a file");
    }
    if what.is_empty() || what.starts_with('(') {
        return refuse("\\copy … FROM needs a table");
    }
    let after = rest[at + "from".len()..].trim_start();
    let (file, quoted, options) = match after.strip_prefix('\'') {
        Some(q) => {
            let Some(end) = closing_quote(q) else {
                return refuse("\\copy: the file's name has no closing quote");
            };
            (q[..end].replace("''", "'"), true, &q[end + 1..])
        }
        None => {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (after[..end].to_string(), false, &after[end..])
        }
    };
    if !quoted {
        match file.to_ascii_lowercase().as_str() {
            "stdin" | "pstdin" => {
                return refuse("\\copy … FROM stdin reads the client's own input, not a file")
            }
            "program" => return refuse("\\copy … FROM PROGRAM runs a program"),
            "stdout" | "pstdout" | "" => return refuse("\\copy … FROM names no file"),
            _ => {}
        }
    }
    let options = options.trim();
    Ok(CopyFile {
        sql: format!("COPY {what} FROM STDIN {options}")
            .trim_end()
            .to_string(),
        file,
        member: false,
    })
}

/// Where the first `FROM` or `TO` outside quotes and parentheses starts in
/// a `\copy`'s text, and whether it is `TO`.
fn direction(text: &str) -> Option<(usize, bool)> {
    let b = text.as_bytes();
    let (mut i, mut depth) = (0usize, 0i32);
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => i = super::split::past_quoted(b, i, q, false),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth -= 1;
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$')) {
                    i += 1;
                }
                let word = &text[start..i];
                let separated = start == 0 || !b[start - 1].is_ascii_alphanumeric();
                if depth == 0 && separated {
                    if word.eq_ignore_ascii_case("from") {
                        return Some((start, false));
                    }
                    if word.eq_ignore_ascii_case("to") {
                        return Some((start, true));
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The end of a `'…'` string's content (`''` is a quote inside it).
fn closing_quote(q: &str) -> Option<usize> {
    let b = q.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The statement `text` of an archive's `restore.sql`, when it is `COPY …
/// FROM '$$PATH$$/…' [options]`: the `COPY … FROM STDIN` that reads the
/// member instead (`None`: any other statement, which the policy judges).
pub(super) fn archive_copy(text: &str) -> Option<CopyFile> {
    let mut toks = tokens(DumpDialect::Postgres, text);
    if !toks.next()?.is("COPY") {
        return None;
    }
    let after_copy = toks.offset();
    let mut depth = 0i32;
    loop {
        let before = toks.offset();
        let t = toks.next()?;
        match t {
            Tok::Punct("(") => depth += 1,
            Tok::Punct(")") => depth -= 1,
            t if depth == 0 && t.is("FROM") => {
                let from_end = toks.offset();
                let start = from_end + text[from_end..].find('\'')?;
                if toks.next()? != Tok::Str || !text[from_end..start].trim().is_empty() {
                    return None;
                }
                let end = toks.offset();
                let name = text.get(start + 1..end - 1)?.replace("''", "'");
                let member = name.strip_prefix(ARCHIVE_PATH)?.to_string();
                let what = text[after_copy..before].trim();
                let options = text[end..].trim();
                return Some(CopyFile {
                    sql: format!("COPY {what} FROM STDIN {options}")
                        .trim_end()
                        .to_string(),
                    file: member,
                    member: true,
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(sql: &str, file: &str, member: bool) -> CopyFile {
        CopyFile {
            sql: sql.into(),
            file: file.into(),
            member,
        }
    }

    #[test]
    fn slash_copy_runs_as_copy_from_stdin_as_psql_sends_it() {
        let read = |t: &str| slash_copy(t).unwrap();
        assert_eq!(
            read("\\copy public.t (a, b) from 'rows/t.csv' with (format csv, header)"),
            Ok(copy(
                "COPY public.t (a, b) FROM STDIN with (format csv, header)",
                "rows/t.csv",
                false
            ))
        );
        assert_eq!(
            read("\\copy t FROM t.tsv;"),
            Ok(copy("COPY t FROM STDIN", "t.tsv", false))
        );
        assert_eq!(
            read("\\copy \"from to\" FROM 'it''s.csv' csv header;"),
            Ok(copy(
                "COPY \"from to\" FROM STDIN csv header",
                "it's.csv",
                false
            ))
        );
        // The name, as written: where it may be is decided where it is read.
        assert_eq!(
            read("\\copy t from '/etc/passwd'").unwrap().file,
            "/etc/passwd"
        );
        assert_eq!(read("\\copy t from ../x.csv").unwrap().file, "../x.csv");
        for refused in [
            "\\copy t from stdin",
            "\\copy t from PSTDIN",
            "\\copy t from program 'id'",
            "\\copy t to 'out.csv'",
            "\\copy (select 1) to stdout",
            "\\copy t",
            "\\copy t from 'x.csv",
        ] {
            assert!(read(refused).is_err(), "{refused}");
        }
        // A quoted `stdin` is a file of that name.
        assert_eq!(read("\\copy t from 'stdin'").unwrap().file, "stdin");
        assert_eq!(slash_copy("\\connect x"), None);
        assert_eq!(slash_copy("\\copyright"), None);
    }

    #[test]
    fn an_archive_copy_reads_its_member() {
        assert_eq!(
            archive_copy("COPY public.actor (actor_id, first_name) FROM '$$PATH$$/3057.dat'"),
            Some(copy(
                "COPY public.actor (actor_id, first_name) FROM STDIN",
                "3057.dat",
                true
            ))
        );
        assert_eq!(
            archive_copy("copy \"from\" from '$$PATH$$/../x.dat' with (format text)")
                .map(|c| (c.sql, c.file)),
            Some((
                "COPY \"from\" FROM STDIN with (format text)".into(),
                "../x.dat".into()
            ))
        );
        for other in [
            "COPY public.actor FROM stdin",
            "COPY public.actor FROM '/etc/passwd'",
            "COPY t FROM PROGRAM '$$PATH$$/x'",
            "COPY t FROM E'$$PATH$$/x'",
            "SELECT '$$PATH$$/x'",
        ] {
            assert_eq!(archive_copy(other), None, "{other}");
        }
    }
}
