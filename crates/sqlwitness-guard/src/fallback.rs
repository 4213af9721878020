//! Text `sqlparser` cannot parse (SQLite accepts things it does not): the
//! tokens decide whether it is a single read-only query.

use sqlparser::tokenizer::Token;
use sqlwitness_dialect::Dialect;

use crate::guard::{GuardOptions, Refusal};
use crate::names::Sig;
use crate::relations::{check_relation, named_tables};

/// Words refused anywhere (outside string literals and quoted identifiers)
/// unless followed by `(` (so the function `replace(…)` stays allowed).
/// Statement keywords that cannot occur inside a query starting with
/// SELECT/WITH/VALUES (`SET`, `SHOW` …) are not listed: the first-token
/// rule and the `;` rule already exclude those statements, and listing
/// them would refuse columns of those names.
const FORBIDDEN_WORDS: &[&str] = &[
    "INTO", "PRAGMA", "ATTACH", "DETACH", "COPY", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE",
    "UPSERT", "DROP", "CREATE", "ALTER", "TRUNCATE", "VACUUM", "REINDEX", "GRANT", "REVOKE",
    "LOCK", "CALL", "EXEC", "EXECUTE", "OUTFILE", "DUMPFILE",
];

/// The first token must be `SELECT`, `WITH`, `VALUES` or `(`; a `;` may be
/// followed by nothing; no [`FORBIDDEN_WORDS`] as an unquoted word not
/// followed by `(`; every table named where `FROM`, `JOIN` or `TABLE`
/// puts one passes [`check_relation`].
pub(crate) fn check(
    sigs: &[Sig<'_>],
    dialect: &Dialect,
    options: &GuardOptions,
) -> Result<(), Refusal> {
    match sigs.first() {
        None => return Err(Refusal("no statement".into())),
        Some(s) if s.is(&Token::LParen) => {}
        Some(Sig::Name(n))
            if !n.quoted
                && ["SELECT", "WITH", "VALUES"]
                    .iter()
                    .any(|k| n.value.eq_ignore_ascii_case(k)) => {}
        Some(s) => {
            let shown = match s {
                Sig::Name(n) => n.text.to_string(),
                Sig::Other(t) => t.to_string(),
            };
            return Err(Refusal(format!(
                "SQL starting with `{shown}` (not SELECT, WITH, VALUES or `(`)"
            )));
        }
    }
    for (i, s) in sigs.iter().enumerate() {
        let called = sigs.get(i + 1).is_some_and(|n| n.is(&Token::LParen));
        match s {
            Sig::Other(Token::SemiColon) if i + 1 < sigs.len() => {
                return Err(Refusal("several statements (text after `;`)".into()));
            }
            Sig::Name(n)
                if !n.quoted
                    && !called
                    && FORBIDDEN_WORDS
                        .iter()
                        .any(|k| n.value.eq_ignore_ascii_case(k)) =>
            {
                return Err(Refusal(format!(
                    "the keyword `{}`",
                    n.value.to_ascii_uppercase()
                )));
            }
            _ => {}
        }
    }
    for parts in named_tables(sigs) {
        check_relation(&parts, dialect, options)?;
    }
    Ok(())
}
