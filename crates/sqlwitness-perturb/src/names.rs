//! New column names: a candidate's words written in the style of the
//! column they replace (`Ranking_Points` + "rank pts" → `Rank_Pts`), and the
//! names that are never used.

/// Words reserved in SQLite, PostgreSQL, MySQL or MariaDB (or keywords a
/// bare column name collides with in one of them). A new column name is
/// never one of these: the perturbed sets must run unquoted everywhere.
const RESERVED: &[&str] = &[
    "add",
    "all",
    "alter",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "between",
    "both",
    "by",
    "case",
    "cast",
    "check",
    "collate",
    "column",
    "constraint",
    "create",
    "cross",
    "current",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "database",
    "default",
    "delete",
    "desc",
    "distinct",
    "div",
    "drop",
    "else",
    "end",
    "escape",
    "except",
    "exists",
    "false",
    "fetch",
    "for",
    "foreign",
    "from",
    "full",
    "grant",
    "group",
    "groups",
    "having",
    "if",
    "in",
    "index",
    "inner",
    "insert",
    "intersect",
    "interval",
    "into",
    "is",
    "join",
    "key",
    "keys",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "lines",
    "match",
    "mod",
    "natural",
    "not",
    "null",
    "of",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "over",
    "partition",
    "primary",
    "range",
    "rank",
    "read",
    "recursive",
    "references",
    "regexp",
    "rename",
    "replace",
    "right",
    "row",
    "rows",
    "select",
    "set",
    "show",
    "some",
    "table",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "update",
    "usage",
    "user",
    "using",
    "values",
    "when",
    "where",
    "window",
    "with",
    "year_month",
];

pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name.to_ascii_lowercase().as_str())
}

/// The words of a column name: split at `_`, spaces and lower→upper case
/// changes (`CountryName` → country, name), lower-cased.
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == ' ' || c == '-' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let boundary = c.is_ascii_uppercase()
            && i > 0
            && (chars[i - 1].is_ascii_lowercase()
                || (chars[i - 1].is_ascii_uppercase()
                    && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `candidate` (lower-case words separated by spaces) written in the style
/// of `original`: its separator (`_`, or none for CamelCase) and its case
/// (all upper, each word capitalised, first capitalised, all lower).
pub(crate) fn styled(original: &str, candidate: &str) -> String {
    // A word the original writes in capitals keeps them (`Stadium_ID` +
    // "arena id" → `Arena_ID`).
    let orig_words: Vec<&str> = original
        .split(['_', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    let kept: Vec<String> = candidate
        .split_whitespace()
        .map(|w| {
            orig_words
                .iter()
                .find(|o| {
                    o.eq_ignore_ascii_case(w)
                        && o.len() > 1
                        && o.chars().all(|c| c.is_ascii_uppercase())
                })
                .map(|o| o.to_string())
                .unwrap_or_else(|| w.to_string())
        })
        .collect();
    let ws: Vec<&str> = kept.iter().map(String::as_str).collect();
    let letters: Vec<char> = original
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    let all_upper = letters.len() > 1 && letters.iter().all(|c| c.is_ascii_uppercase());
    let camel = !original.contains('_')
        && original.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && !all_upper;
    let cap = |w: &str| {
        let mut c = w.chars();
        match c.next() {
            Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
            None => String::new(),
        }
    };
    if all_upper {
        return ws.join("_").to_ascii_uppercase();
    }
    if camel {
        let first_upper = original.starts_with(|c: char| c.is_ascii_uppercase());
        return ws
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 && !first_upper {
                    w.to_string()
                } else {
                    cap(w)
                }
            })
            .collect();
    }
    let parts: Vec<&str> = original.split('_').filter(|p| !p.is_empty()).collect();
    let each_cap = parts.len() > 1
        && parts
            .iter()
            .all(|p| p.starts_with(|c: char| c.is_ascii_uppercase()));
    let first_cap = original.starts_with(|c: char| c.is_ascii_uppercase());
    ws.iter()
        .enumerate()
        .map(|(i, w)| {
            if each_cap || (i == 0 && first_cap) {
                cap(w)
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// The same name, ignoring case, `_` and spaces.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| *c != '_' && *c != ' ')
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>()
    };
    norm(a) == norm(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_names() {
        assert_eq!(words("Ranking_Points"), ["ranking", "points"]);
        assert_eq!(words("CountryName"), ["country", "name"]);
        assert_eq!(words("GNPOld"), ["gnp", "old"]);
        assert_eq!(words("hometown"), ["hometown"]);
    }

    #[test]
    fn styles_follow_the_original() {
        assert_eq!(styled("Ranking_Points", "rank pts"), "Rank_Pts");
        assert_eq!(styled("Country", "nation"), "Nation");
        assert_eq!(styled("Stadium_ID", "arena id"), "Arena_ID");
        assert_eq!(styled("country", "home nation"), "home_nation");
        assert_eq!(styled("Song_release_year", "song year"), "Song_year");
        assert_eq!(styled("CountryName", "nation name"), "NationName");
        assert_eq!(styled("countryName", "nation name"), "nationName");
        assert_eq!(styled("MPG", "miles per gallon"), "MILES_PER_GALLON");
        assert!(is_reserved("Rank") && !is_reserved("rank_pts"));
    }
}
