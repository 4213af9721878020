//! MySQL's and MariaDB's own spellings in a view's query as `SHOW CREATE
//! VIEW` prints it, rewritten for SQLite where SQLite has a construct with
//! the same meaning:
//!
//! - a string's character-set introducer goes (`_utf8mb4'a'` → `'a'`,
//!   `_latin1'#'` → `'#'`, `N'a'` → `'a'`); an introduced hex string
//!   becomes the text its bytes spell in that character set
//!   (`_utf8mb4 X'3A20'` → `': '`), `_binary` strings become blobs; a
//!   character set this does not decode is kept, and SQLite refuses it;
//! - `COLLATE` on a string literal goes (SQLite compares as `BINARY`); a
//!   binary collation on anything else becomes `COLLATE BINARY`; any other
//!   collation is kept, and SQLite refuses it;
//! - `cast(x as char[(n)] [charset c])` → `CAST(x AS TEXT)` (cut to `n`
//!   characters by `substr` when a length is given), `cast(x as char charset
//!   binary)` → `CAST(x AS BLOB)`, `convert(x using c)` likewise;
//! - `concat(a, b, …)` → `(a || b || …)` (NULL when any argument is, as in
//!   MySQL: SQLite's own `concat` reads NULL as `''`);
//! - `if(c, a, b)` → `CASE WHEN c THEN a ELSE b END`, `isnull(x)` →
//!   `(x IS NULL)`;
//! - `ucase`/`lcase` → `upper`/`lower`; `length` (bytes in MySQL) →
//!   `octet_length`; `char_length`/`character_length` → `length`;
//! - `group_concat(x [order by …] separator 's')` → `group_concat(x, 's'
//!   [ORDER BY …])` (SQLite 3.44 and later read the ORDER BY); several
//!   expressions are joined with `||` first (MySQL concatenates them and
//!   skips a row where one is NULL, as `||` then gives NULL). With
//!   `DISTINCT` SQLite takes one argument only: the separator `','` is
//!   SQLite's own and goes, any other is kept and SQLite refuses the view;
//! - a function named with its database (`` `db`.`f`(…) ``) loses the
//!   database.
//!
//! Whether a rewritten view answers as the source's is decided on data by
//! the caller (its rows against the source view's): a rewrite here changes
//! spelling, never what is asked.

use sqlparser::ast::{
    BinaryOperator, CaseWhen, CastKind, CharacterLength, DataType, DuplicateTreatment, Expr,
    Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Value,
};
use sqlparser::tokenizer::Token;

/// `sql` with the character set of a `char` type left out (`cast(x as char
/// charset utf8mb4)` → `cast(x as char)`; `char charset binary` →
/// `binary`), which sqlparser does not read in a cast. Outside strings and
/// quoted names only; `sql` as it is when it does not tokenize (the parse
/// then says why).
pub(super) fn without_type_charsets(sql: &str) -> String {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let Ok(tokens) = crate::text::tokenize(&dialect, sql) else {
        return sql.to_string();
    };
    // Indexes of the non-blank tokens.
    let solid: Vec<usize> = (0..tokens.len())
        .filter(|&i| !crate::text::is_blank(&tokens[i].token))
        .collect();
    let word = |k: usize, w: &str| {
        solid.get(k).is_some_and(|&i| match &tokens[i].token {
            Token::Word(x) => x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w),
            _ => false,
        })
    };
    let punct = |k: usize, t: Token| solid.get(k).is_some_and(|&i| tokens[i].token == t);
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0; // byte offset of `sql` copied so far
    let mut k = 0;
    while k < solid.len() {
        if !word(k, "char") {
            k += 1;
            continue;
        }
        // `char`, `char(n)`: the type's last token.
        let mut last = k;
        if punct(k + 1, Token::LParen)
            && solid
                .get(k + 2)
                .is_some_and(|&i| matches!(tokens[i].token, Token::Number(..)))
            && punct(k + 3, Token::RParen)
        {
            last = k + 3;
        }
        let name_at = if word(last + 1, "charset") {
            last + 2
        } else if word(last + 1, "character") && word(last + 2, "set") {
            last + 3
        } else {
            k = last + 1;
            continue;
        };
        let Some(&name) = solid.get(name_at) else {
            break;
        };
        let Token::Word(charset) = &tokens[name].token else {
            k = name_at;
            continue;
        };
        let (start, type_end) = (tokens[solid[k]].start, tokens[solid[last]].start);
        let type_end = type_end + tokens[solid[last]].text.len();
        out.push_str(&sql[copied..start]);
        if charset.value.eq_ignore_ascii_case("binary") {
            // `char(n) charset binary` is `binary(n)`.
            out.push_str("binary");
            out.push_str(&sql[start + tokens[solid[k]].text.len()..type_end]);
        } else {
            out.push_str(&sql[start..type_end]);
        }
        copied = tokens[name].start + tokens[name].text.len();
        k = name_at + 1;
    }
    out.push_str(&sql[copied..]);
    out
}

/// The SQLite spelling of `e` when MySQL spells it its own way (see the
/// module's documentation); `None` to keep it. `e`'s operands are already
/// rewritten.
pub(super) fn rewrite(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Prefixed { prefix, value } if prefix.value.starts_with('_') => {
            introduced(&prefix.value[1..], value)
        }
        Expr::Value(v) => match &v.value {
            Value::NationalStringLiteral(s) | Value::DoubleQuotedString(s) => Some(text(s)),
            _ => None,
        },
        Expr::Collate { expr, collation } => {
            let name = collation.to_string().to_ascii_lowercase();
            let name = name.trim_matches('`');
            if is_string_literal(expr) {
                Some((**expr).clone())
            } else if name == "binary" || name.ends_with("_bin") {
                Some(Expr::Collate {
                    expr: expr.clone(),
                    collation: ObjectName::from(vec![Ident::new("BINARY")]),
                })
            } else {
                None
            }
        }
        Expr::Cast {
            kind: CastKind::Cast,
            expr,
            data_type,
            format: None,
        } => cast(expr, data_type),
        Expr::Convert {
            is_try: false,
            expr,
            data_type,
            charset,
            target_before_value: false,
            styles,
        } if styles.is_empty() => {
            let binary = charset.as_ref().is_some_and(|c| {
                c.to_string()
                    .trim_matches('`')
                    .eq_ignore_ascii_case("binary")
            });
            match (data_type, binary) {
                (_, true) => Some(sqlite_cast(expr, DataType::Blob(None))),
                (Some(t), false) => cast(expr, t),
                (None, false) => Some(sqlite_cast(expr, DataType::Text)),
            }
        }
        Expr::Function(f) => function(f),
        _ => None,
    }
}

/// A string introduced by character set `charset` (`_utf8mb4'a'`).
fn introduced(charset: &str, value: &Expr) -> Option<Expr> {
    let Expr::Value(v) = value else {
        return None;
    };
    let binary = charset.eq_ignore_ascii_case("binary");
    match &v.value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) if binary => {
            Some(Expr::value(Value::HexStringLiteral(hex(s.as_bytes()))))
        }
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(text(s)),
        Value::HexStringLiteral(h) if binary => {
            Some(Expr::value(Value::HexStringLiteral(h.clone())))
        }
        Value::HexStringLiteral(h) => decode(charset, &unhex(h)?).map(|s| text(&s)),
        _ => None,
    }
}

/// The text that `bytes` spell in MySQL character set `charset`, for the
/// character sets read here.
fn decode(charset: &str, bytes: &[u8]) -> Option<String> {
    match charset.to_ascii_lowercase().as_str() {
        "utf8mb4" | "utf8mb3" | "utf8" => String::from_utf8(bytes.to_vec()).ok(),
        "ascii" => bytes
            .is_ascii()
            .then(|| String::from_utf8_lossy(bytes).into_owned()),
        // MySQL's latin1 is cp1252: its bytes 0x80–0x9F are not ISO 8859-1's.
        "latin1" => bytes
            .iter()
            .all(|b| !(0x80..0xA0).contains(b))
            .then(|| bytes.iter().map(|&b| char::from(b)).collect()),
        _ => None,
    }
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) || !h.is_ascii() {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn text(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

fn is_string_literal(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_string_literal(inner),
        Expr::Value(v) => matches!(v.value, Value::SingleQuotedString(_)),
        _ => false,
    }
}

/// `CAST(expr AS t)`.
fn sqlite_cast(expr: &Expr, t: DataType) -> Expr {
    Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(expr.clone()),
        data_type: t,
        format: None,
    }
}

/// MySQL's casts to a string type: `CAST(… AS TEXT)`, cut to the length a
/// `char(n)` gives; to `binary`: `CAST(… AS BLOB)`. Other types are left to
/// the casts every engine's view shares.
fn cast(expr: &Expr, data_type: &DataType) -> Option<Expr> {
    match data_type {
        DataType::Char(len) | DataType::Character(len) => {
            let as_text = sqlite_cast(expr, DataType::Text);
            Some(match len {
                Some(CharacterLength::IntegerLength { length, .. }) => call(
                    "substr",
                    vec![
                        as_text,
                        Expr::value(Value::Number("1".into(), false)),
                        Expr::value(Value::Number(length.to_string(), false)),
                    ],
                ),
                _ => as_text,
            })
        }
        DataType::Binary(_) => Some(sqlite_cast(expr, DataType::Blob(None))),
        _ => None,
    }
}

/// A call of SQLite function `name` on `args`.
fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(sqlparser::ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// The plain arguments of a call (no DISTINCT, no clause, no named
/// argument), or `None`.
fn plain_args(f: &Function) -> Option<Vec<Expr>> {
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    list.args
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// `e` as an operand of `||`: nested unless it binds tighter already.
fn operand(e: Expr) -> Expr {
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::Function(_)
        | Expr::Nested(_)
        | Expr::Case { .. }
        | Expr::Cast { .. }
        | Expr::Subquery(_) => e,
        e => Expr::Nested(Box::new(e)),
    }
}

/// `(a || b || …)`; `(a || '')` for one argument (MySQL's `concat` gives a
/// string).
fn concatenation(args: Vec<Expr>) -> Option<Expr> {
    let mut args = args.into_iter().map(operand);
    let first = args.next()?;
    let rest: Vec<Expr> = args.collect();
    let rest = if rest.is_empty() {
        vec![text("")]
    } else {
        rest
    };
    let joined = rest.into_iter().fold(first, |left, right| Expr::BinaryOp {
        left: Box::new(left),
        op: BinaryOperator::StringConcat,
        right: Box::new(right),
    });
    Some(Expr::Nested(Box::new(joined)))
}

fn function(f: &Function) -> Option<Expr> {
    let parts = &f.name.0;
    let Some(ObjectNamePart::Identifier(last)) = parts.last() else {
        return None;
    };
    if parts.len() > 1 {
        // `db`.`f`(…): the function by its own name.
        let mut g = f.clone();
        g.name = ObjectName(vec![ObjectNamePart::Identifier(last.clone())]);
        return Some(function(&g).unwrap_or(Expr::Function(g)));
    }
    let renamed = |name: &str| {
        let mut g = f.clone();
        g.name = ObjectName::from(vec![Ident::new(name)]);
        Some(Expr::Function(g))
    };
    let no_window = f.over.is_none() && f.filter.is_none() && f.within_group.is_empty();
    match last.value.to_ascii_lowercase().as_str() {
        "concat" if no_window => concatenation(plain_args(f)?),
        "if" if no_window => {
            let [c, a, b]: [Expr; 3] = plain_args(f)?.try_into().ok()?;
            Some(Expr::Case {
                case_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
                end_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
                operand: None,
                conditions: vec![CaseWhen {
                    condition: c,
                    result: a,
                }],
                else_result: Some(Box::new(b)),
            })
        }
        "isnull" if no_window => {
            let [x]: [Expr; 1] = plain_args(f)?.try_into().ok()?;
            Some(Expr::Nested(Box::new(Expr::IsNull(Box::new(x)))))
        }
        "ucase" => renamed("upper"),
        "lcase" => renamed("lower"),
        "length" => renamed("octet_length"),
        "char_length" | "character_length" => renamed("length"),
        "group_concat" => group_concat(f),
        _ => None,
    }
}

/// MySQL's `group_concat(x … separator 's')` as SQLite's `group_concat(x,
/// 's' …)`.
fn group_concat(f: &Function) -> Option<Expr> {
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.clauses.iter().any(|c| {
        !matches!(
            c,
            FunctionArgumentClause::Separator(_) | FunctionArgumentClause::OrderBy(_)
        )
    }) {
        return None;
    }
    let separator = list.clauses.iter().find_map(|c| match c {
        FunctionArgumentClause::Separator(v) => Some(v.value.clone()),
        _ => None,
    });
    let exprs: Vec<Expr> = list
        .args
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    // Several expressions are concatenated: SQLite's second argument is
    // the separator.
    let value = if exprs.len() > 1 {
        concatenation(exprs)?
    } else {
        exprs.into_iter().next()?
    };
    let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
    let mut args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(value))];
    match separator {
        // SQLite's own separator: a DISTINCT aggregate takes one argument.
        Some(Value::SingleQuotedString(s)) if distinct && s == "," => {}
        Some(Value::DoubleQuotedString(s)) => {
            args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(text(&s))))
        }
        Some(sep) => args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(
            sep,
        )))),
        None => {}
    }
    // SQLite writes the arguments before the ORDER BY: `group_concat(x, 's'
    // ORDER BY y)`.
    let clauses = list
        .clauses
        .iter()
        .filter(|c| matches!(c, FunctionArgumentClause::OrderBy(_)))
        .cloned()
        .collect();
    let mut g = f.clone();
    g.args = FunctionArguments::List(sqlparser::ast::FunctionArgumentList {
        duplicate_treatment: list.duplicate_treatment,
        args,
        clauses,
    });
    Some(Expr::Function(g))
}

#[cfg(test)]
mod tests {
    use super::super::view_to_sqlite;
    use sqlwitness_dialect::Grammar;

    fn rewrite(def: &str) -> String {
        let out = view_to_sqlite(def, Grammar::Mysql).unwrap();
        let sqlite = sqlparser::dialect::SQLiteDialect {};
        assert!(crate::parse_bounded(&sqlite, &out).is_ok(), "{out}");
        out
    }

    #[test]
    fn introducers_go_and_hex_strings_are_decoded() {
        let out = rewrite(
            "select concat(`c`.`first_name`,_utf8mb4' ',`c`.`last_name`) AS `name`,\
             _latin1'#' AS `a`,N'short' AS `b`,_utf8mb4 X'3A20' AS `c`,_latin1 X'E9' AS `d`,\
             _binary'ab' AS `e`,_utf8mb4'it''s' AS `f` from `customer` `c`",
        );
        assert_eq!(
            out,
            "SELECT (`c`.`first_name` || ' ' || `c`.`last_name`) AS `name`, '#' AS `a`, \
             'short' AS `b`, ': ' AS `c`, 'é' AS `d`, X'6162' AS `e`, 'it''s' AS `f` \
             FROM `customer` `c`"
        );
        // A character set not decoded here is kept: SQLite refuses it.
        let out = rewrite("select _sjis X'8140' AS `x`");
        assert!(out.contains("_sjis"), "{out}");
    }

    #[test]
    fn collations_on_literals_go_binary_ones_stay_binary() {
        let out = rewrite(
            "select `f`.`film_id` AS `film_id` from `film` `f` where ((`f`.`rating` <> \
             (_utf8mb4'NC-17' collate utf8mb4_bin)) and ((`f`.`title` collate utf8mb4_bin) \
             like _utf8mb4'A%' collate utf8mb4_general_ci))",
        );
        assert!(out.contains("`f`.`rating` <> ('NC-17')"), "{out}");
        assert!(
            out.contains("(`f`.`title` COLLATE BINARY) LIKE 'A%'"),
            "{out}"
        );
        assert!(!out.contains("utf8mb4"), "{out}");
        // Another collation on a column is kept (SQLite has none of that name).
        let out = rewrite("select (`t`.`a` collate utf8mb4_general_ci) AS `a` from `t`");
        assert!(out.contains("COLLATE utf8mb4_general_ci"), "{out}");
    }

    #[test]
    fn casts_to_char_lose_their_character_set() {
        let out = rewrite(
            "select cast(`f`.`film_id` as char charset utf8mb4) AS `a`,\
             cast(`f`.`title` as char(3) charset utf8mb4) AS `b`,\
             cast(`f`.`title` as char charset binary) AS `c`,\
             convert(`f`.`title` using utf8mb4) AS `d`,cast(`f`.`rate` as signed) AS `e`,\
             cast(`f`.`rate` as decimal(10,2)) AS `f`,cast(`f`.`day` as date) AS `g`,\
             _utf8mb4'char charset x' AS `h` from `film` `f`",
        );
        assert_eq!(
            out,
            "SELECT CAST(`f`.`film_id` AS TEXT) AS `a`, substr(CAST(`f`.`title` AS TEXT), 1, 3) \
             AS `b`, CAST(`f`.`title` AS BLOB) AS `c`, CAST(`f`.`title` AS TEXT) AS `d`, \
             CAST(`f`.`rate` AS INTEGER) AS `e`, CAST(`f`.`rate` AS NUMERIC) AS `f`, \
             (`f`.`day`) AS `g`, 'char charset x' AS `h` FROM `film` `f`"
        );
    }

    #[test]
    fn if_concat_and_renamed_functions() {
        let out = rewrite(
            "select if(`cu`.`active`,_utf8mb4'active',_utf8mb4'') AS `notes`,\
             concat(`a`.`x`) AS `one`,concat((`a`.`n` + 1),_utf8mb4'-',`a`.`y`) AS `two`,\
             ucase(substr(`a`.`x`,1,1)) AS `u`,lcase(`a`.`x`) AS `l`,\
             octet_length(`a`.`x`) AS `o`,length(`a`.`x`) AS `b`,char_length(`a`.`x`) AS `c`,\
             isnull(`a`.`x`) AS `n` from `a`",
        );
        assert!(
            out.contains("CASE WHEN `cu`.`active` THEN 'active' ELSE '' END AS `notes`"),
            "{out}"
        );
        assert!(out.contains("(`a`.`x` || '') AS `one`"), "{out}");
        assert!(
            out.contains("((`a`.`n` + 1) || '-' || `a`.`y`) AS `two`"),
            "{out}"
        );
        assert!(out.contains("upper("), "{out}");
        assert!(out.contains("lower(`a`.`x`) AS `l`"), "{out}");
        assert!(out.contains("octet_length(`a`.`x`) AS `o`"), "{out}");
        assert!(out.contains("octet_length(`a`.`x`) AS `b`"), "{out}");
        assert!(out.contains("length(`a`.`x`) AS `c`"), "{out}");
        assert!(out.contains("(`a`.`x` IS NULL) AS `n`"), "{out}");
    }

    #[test]
    fn group_concat_takes_its_separator_as_an_argument() {
        let out = rewrite(
            "select group_concat(concat(`actor`.`first_name`,_utf8mb4' ',`actor`.`last_name`) \
             order by `actor`.`last_name` ASC separator ', ') AS `actors`,\
             group_concat(distinct `c`.`name` order by `c`.`name` ASC separator ',') AS `cats`,\
             group_concat(`a`.`x`,`a`.`y` separator ';') AS `pairs` from `actor`",
        );
        assert!(
            out.contains(
                "group_concat((`actor`.`first_name` || ' ' || `actor`.`last_name`), ', ' \
                 ORDER BY `actor`.`last_name` ASC) AS `actors`"
            ),
            "{out}"
        );
        assert!(
            out.contains("group_concat(DISTINCT `c`.`name` ORDER BY `c`.`name` ASC) AS `cats`"),
            "{out}"
        );
        assert!(
            out.contains("group_concat((`a`.`x` || `a`.`y`), ';') AS `pairs`"),
            "{out}"
        );
        // DISTINCT with another separator: SQLite takes one argument
        // only, and says so when the view is created.
        let out = rewrite(
            "select group_concat(distinct `c`.`name` order by `c`.`name` ASC separator '; ') \
             AS `film_info` from `c`",
        );
        assert!(
            out.contains("group_concat(DISTINCT `c`.`name`, '; ' ORDER BY"),
            "{out}"
        );
    }

    #[test]
    fn the_dumps_own_database_is_left_out() {
        let out = rewrite(
            "select `sakila`.`f`.`title` AS `title`,`sakila`.`get_balance`(`p`.`id`) AS `b`,\
             (select count(0) from `sakila`.`film_actor` `fa` where (`fa`.`film_id` = \
             `f`.`film_id`)) AS `actors` from (`sakila`.`film` `f` left join \
             `sakila`.`payment` `p` on((`p`.`film_id` = `f`.`film_id`)))",
        );
        assert!(!out.contains("sakila"), "{out}");
        assert!(out.contains("`f`.`title` AS `title`"), "{out}");
        assert!(out.contains("`get_balance`(`p`.`id`)"), "{out}");
        assert!(out.contains("FROM `film_actor` `fa`"), "{out}");
        assert!(out.contains("(`film` `f` LEFT JOIN `payment` `p`"), "{out}");
    }

    #[test]
    fn postgres_keeps_its_own_rules() {
        // `concat` ignores NULLs on PostgreSQL: it is not `||` there.
        let out =
            view_to_sqlite(" SELECT concat(a, b) AS c\n   FROM t", Grammar::Postgres).unwrap();
        assert!(out.contains("concat(a, b)"), "{out}");
    }
}
