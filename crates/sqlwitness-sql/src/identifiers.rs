//! Identifier-case resolution for engines that do not resolve names the
//! way SQLite does.
//!
//! SQLite matches table and column names case-insensitively, quoted or not
//! (ASCII letters only). PostgreSQL folds unquoted identifiers to lower
//! case, and MySQL table names are case-sensitive on Linux; so once a schema
//! is migrated with its exact mixed-case names (`Song_Name`), a query that
//! SQLite accepts — `SELECT song_name FROM Singer` — fails there. The
//! rewrite below quotes every identifier that names exactly one table or
//! column, with that name's exact spelling; a column reference takes the
//! spelling of the table it names (module `scope`), since two tables may
//! spell one name differently (`orders.shipperId`, `shippers.shipperid`).

mod scope;

use std::collections::{BTreeSet, HashMap};

use sqlparser::dialect::SQLiteDialect;
use sqlparser::tokenizer::Token;
use sqlwitness_core::EngineKind;

use crate::text::{is_blank, tokenize};

/// Unquoted words that are never rewritten: SQL's structural keywords.
const STRUCTURAL_KEYWORDS: &[&str] = &[
    "ALL",
    "AND",
    "AS",
    "ASC",
    "BETWEEN",
    "BY",
    "CASE",
    "COLLATE",
    "CROSS",
    "DESC",
    "DISTINCT",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXISTS",
    "FALSE",
    "FROM",
    "FULL",
    "GLOB",
    "GROUP",
    "HAVING",
    "IN",
    "INNER",
    "INTERSECT",
    "IS",
    "ISNULL",
    "JOIN",
    "LEFT",
    "LIKE",
    "LIMIT",
    "NATURAL",
    "NOT",
    "NOTNULL",
    "NULL",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "RECURSIVE",
    "REGEXP",
    "RIGHT",
    "SELECT",
    "THEN",
    "TRUE",
    "UNION",
    "USING",
    "VALUES",
    "WHEN",
    "WHERE",
    "WITH",
];

/// The exact table and column names of one database, looked up
/// case-insensitively (ASCII case, as SQLite does).
#[derive(Debug, Clone, Default)]
pub struct NameSet {
    /// Lower-case name → its exact spelling, or `None` when several
    /// different spellings share the lower case (ambiguous); over tables
    /// and columns together, tables alone, and columns alone.
    any: Spellings,
    tables: Spellings,
    columns: Spellings,
    /// Lower-case table name → its columns.
    table_columns: HashMap<String, Spellings>,
}

type Spellings = HashMap<String, Option<String>>;

/// Where a word stands, as far as a token scan can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// In a FROM/JOIN list, or a qualifier before `.`: a table (or alias).
    Table,
    /// Anywhere else: a column (or alias, or keyword).
    Column,
}

fn spellings<'a>(names: impl Iterator<Item = &'a String>) -> Spellings {
    let mut all: HashMap<String, BTreeSet<&str>> = HashMap::new();
    for name in names {
        all.entry(name.to_ascii_lowercase())
            .or_default()
            .insert(name.as_str());
    }
    all.into_iter()
        .map(|(lower, names)| {
            let exact = (names.len() == 1).then(|| names.into_iter().next().unwrap().to_string());
            (lower, exact)
        })
        .collect()
}

impl NameSet {
    /// Builds the set from `(table, columns)` pairs with their exact names.
    pub fn new(tables: &[(String, Vec<String>)]) -> NameSet {
        NameSet {
            any: spellings(
                tables
                    .iter()
                    .flat_map(|(t, cols)| std::iter::once(t).chain(cols)),
            ),
            tables: spellings(tables.iter().map(|(t, _)| t)),
            columns: spellings(tables.iter().flat_map(|(_, cols)| cols)),
            table_columns: {
                let mut by_table: HashMap<String, Vec<&String>> = HashMap::new();
                for (t, cols) in tables {
                    by_table
                        .entry(t.to_ascii_lowercase())
                        .or_default()
                        .extend(cols);
                }
                by_table
                    .into_iter()
                    .map(|(t, cols)| (t, spellings(cols.into_iter())))
                    .collect()
            },
        }
    }

    /// The columns of the table named `table` (any ASCII case).
    fn table_columns(&self, table: &str) -> Option<&Spellings> {
        self.table_columns.get(&table.to_ascii_lowercase())
    }

    /// The exact spelling of `word` when exactly one spelling among all
    /// tables and columns matches it case-insensitively.
    pub fn resolve(&self, word: &str) -> Option<&str> {
        lookup(&self.any, word)
    }

    /// The exact spelling of `word` where it stands: a table position
    /// prefers table names, any other position column names; either falls
    /// back to the other kind when its own has no match at all. So in
    /// `SELECT Orchestra FROM orchestra` (a column `Orchestra` of a table
    /// `orchestra`) each word gets its own spelling.
    fn resolve_at(&self, word: &str, pos: Position) -> Option<&str> {
        let (first, second) = match pos {
            Position::Table => (&self.tables, &self.columns),
            Position::Column => (&self.columns, &self.tables),
        };
        let lower = word.to_ascii_lowercase();
        match first.get(&lower) {
            Some(exact) => exact.as_deref(),
            None => second.get(&lower).and_then(|e| e.as_deref()),
        }
    }
}

fn lookup<'a>(map: &'a Spellings, word: &str) -> Option<&'a str> {
    map.get(&word.to_ascii_lowercase())
        .and_then(|exact| exact.as_deref())
}

/// Keywords that open a clause; the last one seen at the current
/// parenthesis depth tells whether a word is in a FROM/JOIN list.
const CLAUSE_KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "JOIN",
    "ON",
    "USING",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "INTERSECT",
    "EXCEPT",
];

/// Rewrites identifiers in `sql` (SQLite syntax) to the exact names of
/// `names`, quoted for `target`: `"Song_Name"` for PostgreSQL,
/// `` `Song_Name` `` for MySQL. SQLite needs no rewrite, so for it the text
/// comes back unchanged.
///
/// Works on tokens (`sqlparser`'s tokenizer, SQLite dialect); everything
/// but the rewritten words — whitespace, comments, strings, operators —
/// is kept byte for byte. A column reference that the syntax tree
/// resolves to one column of one table — through its qualifier (a table
/// name, or the alias of a table, a subquery or a common table
/// expression), or, bare, as the one FROM item of its query (or, failing
/// that, of an enclosing query) that has it — is quoted as that table
/// spells it. Any other word is rewritten when it is an identifier —
/// unquoted, or quoted with `"…"`, `` `…` `` or `[…]` — whose lower case
/// equals the lower case of exactly one spelling among the tables and
/// columns (several tables may share the spelling, e.g. `Name`), except:
/// * a word followed (after optional whitespace) by `(`: a function call;
/// * an unquoted structural keyword (`SELECT`, `FROM`, `WHERE`, `GROUP`,
///   `BY`, `ORDER`, `AS`, `AND`, `IN`, `LIKE`, `NULL`, `UNION`, `CASE`,
///   `END` … see `STRUCTURAL_KEYWORDS`);
/// * the type name of `CAST(x AS type)`.
///
/// Single-quoted strings are never touched. A quoted word that matches no
/// name stays as written (on PostgreSQL a double-quoted word is an
/// identifier, so the query fails with the honest error SQLite's
/// "double-quoted string" leniency hides; on MySQL double quotes are a
/// string). A word that matches several spellings (`name` in one table,
/// `Name` in another) and that no table of its scope resolves (an
/// ambiguous bare name, SQL that does not parse) is left unchanged. SQL
/// that does not tokenize comes back unchanged.
pub fn resolve_identifiers(sql: &str, names: &NameSet, target: EngineKind) -> String {
    let identifiers = &sqlwitness_dialect::shipped(target).identifiers;
    if !identifiers.rewrite {
        return sql.to_string();
    }
    let quote = |n: &str| identifiers.quote(n);
    let Ok(tokens) = tokenize(&SQLiteDialect {}, sql) else {
        return sql.to_string();
    };
    let aliases = declared_aliases(&tokens, names);
    let columns = scope::column_spellings(sql, names);
    let mut out = String::with_capacity(sql.len() + 16);
    // For each open parenthesis: is it CAST's?
    let mut parens: Vec<bool> = Vec::new();
    // The last clause keyword at each parenthesis depth (index 0: top).
    let mut clause: Vec<&str> = vec![""];
    let mut prev: Option<&Token> = None;
    for (i, t) in tokens.iter().enumerate() {
        let mut text = None;
        match &t.token {
            Token::LParen => {
                let is_cast = matches!(prev, Some(Token::Word(w))
                    if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("CAST"));
                parens.push(is_cast);
                clause.push("");
            }
            Token::RParen => {
                parens.pop();
                if clause.len() > 1 {
                    clause.pop();
                }
            }
            Token::Word(w) => {
                let unquoted = w.quote_style.is_none();
                let structural = unquoted
                    && STRUCTURAL_KEYWORDS
                        .iter()
                        .any(|k| w.value.eq_ignore_ascii_case(k));
                let next_is_paren = matches!(
                    tokens[i + 1..].iter().find(|n| !is_blank(&n.token)),
                    Some(n) if n.token == Token::LParen
                );
                let cast_type = parens.last() == Some(&true)
                    && matches!(prev, Some(Token::Word(p))
                        if p.quote_style.is_none() && p.value.eq_ignore_ascii_case("AS"));
                if structural {
                    if let Some(k) = CLAUSE_KEYWORDS
                        .iter()
                        .find(|k| w.value.eq_ignore_ascii_case(k))
                    {
                        *clause.last_mut().expect("never empty") = k;
                    }
                } else if !next_is_paren && !cast_type {
                    let next_is_dot = matches!(
                        tokens[i + 1..].iter().find(|n| !is_blank(&n.token)),
                        Some(n) if n.token == Token::Period
                    );
                    let in_from = matches!(clause.last(), Some(&"FROM") | Some(&"JOIN"));
                    let pos = if next_is_dot || in_from {
                        Position::Table
                    } else {
                        Position::Column
                    };
                    if let Some(exact) = columns.get(&t.start) {
                        text = Some(quote(exact));
                    } else if let Some(exact) = names.resolve_at(&w.value, pos) {
                        text = Some(quote(exact));
                    } else if next_is_dot {
                        // A qualifier spelled otherwise than its alias was
                        // declared (`FROM ship AS t2 … T2.id`): MySQL's
                        // aliases are case-sensitive.
                        if let Some(declared) = aliases.get(&w.value.to_ascii_lowercase()) {
                            if *declared != w.value {
                                text = Some(quote(declared));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        match text {
            Some(s) => out.push_str(&s),
            None => out.push_str(t.text),
        }
        if !is_blank(&t.token) {
            prev = Some(&t.token);
        }
    }
    out
}

/// Aliases the query declares (`… AS t2`, or a table followed by a name:
/// `FROM ship t2`), lower case → the spelling declared.
fn declared_aliases(
    tokens: &[crate::text::SourceToken],
    names: &NameSet,
) -> HashMap<String, String> {
    let solid: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !is_blank(t))
        .collect();
    let keyword = |w: &sqlparser::tokenizer::Word| {
        w.quote_style.is_none()
            && STRUCTURAL_KEYWORDS
                .iter()
                .any(|k| w.value.eq_ignore_ascii_case(k))
    };
    let mut out = HashMap::new();
    for win in solid.windows(2) {
        let (Token::Word(a), Token::Word(b)) = (win[0], win[1]) else {
            continue;
        };
        let after_as = a.quote_style.is_none() && a.value.eq_ignore_ascii_case("AS");
        let after_table = !keyword(a) && names.resolve_at(&a.value, Position::Table).is_some();
        if (after_as || after_table) && !keyword(b) {
            out.entry(b.value.to_ascii_lowercase())
                .or_insert_with(|| b.value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualifiers_take_the_spelling_their_alias_was_declared_with() {
        let names = NameSet::new(&[(
            "ship".to_string(),
            vec!["id".to_string(), "Name".to_string()],
        )]);
        let sql = "SELECT T2.Name FROM ship AS t2 JOIN ship T3 ON t2.id = t3.id";
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Mysql),
            "SELECT `t2`.`Name` FROM `ship` AS t2 JOIN `ship` T3 ON t2.`id` = `T3`.`id`"
        );
    }

    /// concert_singer's `table_names_original` / `column_names_original`
    /// from Spider's tables.json.
    fn concert_singer() -> NameSet {
        let t = |name: &str, cols: &[&str]| {
            (
                name.to_string(),
                cols.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            )
        };
        NameSet::new(&[
            t(
                "stadium",
                &[
                    "Stadium_ID",
                    "Location",
                    "Name",
                    "Capacity",
                    "Highest",
                    "Lowest",
                    "Average",
                ],
            ),
            t(
                "singer",
                &[
                    "Singer_ID",
                    "Name",
                    "Country",
                    "Song_Name",
                    "Song_release_year",
                    "Age",
                    "Is_male",
                ],
            ),
            t(
                "concert",
                &["concert_ID", "concert_Name", "Theme", "Stadium_ID", "Year"],
            ),
            t("singer_in_concert", &["concert_ID", "Singer_ID"]),
        ])
    }

    #[test]
    fn a_table_and_a_column_spelled_alike_each_get_their_own_spelling() {
        // orchestra_1: table `orchestra` has a column `Orchestra`.
        let names = NameSet::new(&[(
            "orchestra".to_string(),
            vec!["Orchestra_ID".to_string(), "Orchestra".to_string()],
        )]);
        assert_eq!(
            resolve_identifiers(
                "SELECT Orchestra FROM orchestra WHERE orchestra.Orchestra_ID > 1",
                &names,
                EngineKind::Postgres
            ),
            r#"SELECT "Orchestra" FROM "orchestra" WHERE "orchestra"."Orchestra_ID" > 1"#
        );
        assert_eq!(
            resolve_identifiers(
                "SELECT count(*) FROM (SELECT orchestra FROM Orchestra) AS t JOIN orchestra ON 1",
                &names,
                EngineKind::Postgres
            ),
            r#"SELECT count(*) FROM (SELECT "Orchestra" FROM "orchestra") AS t JOIN "orchestra" ON 1"#
        );
    }

    #[test]
    fn a_table_named_cast_is_quoted_and_the_function_is_not() {
        let names = NameSet::new(&[(
            "cast".to_string(),
            vec!["aid".to_string(), "role".to_string()],
        )]);
        assert_eq!(
            resolve_identifiers(
                "SELECT CAST(aid AS TEXT) FROM cast WHERE role = 'x'",
                &names,
                EngineKind::Mysql
            ),
            "SELECT CAST(`aid` AS TEXT) FROM `cast` WHERE `role` = 'x'"
        );
    }

    #[test]
    fn mixed_case_names_resolve_for_postgres_and_mysql() {
        let names = concert_singer();
        let sql = "SELECT song_name FROM Singer WHERE age > 20";
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Postgres),
            r#"SELECT "Song_Name" FROM "singer" WHERE "Age" > 20"#
        );
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Mysql),
            "SELECT `Song_Name` FROM `singer` WHERE `Age` > 20"
        );
        assert_eq!(resolve_identifiers(sql, &names, EngineKind::Sqlite), sql);
    }

    #[test]
    fn aliases_keywords_and_quoted_forms() {
        let names = concert_singer();
        let sql = "SELECT T2.name ,  count(*) FROM singer_in_concert AS T1 JOIN singer AS T2 \
                   ON T1.singer_id  =  T2.singer_id GROUP BY T2.singer_id";
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Postgres),
            "SELECT T2.\"Name\" ,  count(*) FROM \"singer_in_concert\" AS T1 JOIN \"singer\" AS T2 \
             ON T1.\"Singer_ID\"  =  T2.\"Singer_ID\" GROUP BY T2.\"Singer_ID\""
        );
        // YEAR is a column here (not structural); quoted forms resolve too.
        let sql = "SELECT YEAR, \"theme\", [CONCERT_NAME], `stadium_id` FROM concert GROUP BY YEAR";
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Postgres),
            r#"SELECT "Year", "Theme", "concert_Name", "Stadium_ID" FROM "concert" GROUP BY "Year""#
        );
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Mysql),
            "SELECT `Year`, `Theme`, `concert_Name`, `Stadium_ID` FROM `concert` GROUP BY `Year`"
        );
    }

    #[test]
    fn strings_functions_and_unknown_words_are_untouched() {
        let names = NameSet::new(&[(
            "T".to_string(),
            vec![
                "Name".into(),
                "Age".into(),
                "Count".into(),
                "Upper".into(),
                "Date".into(),
            ],
        )]);
        let sql = "SELECT upper(name), COUNT (*), 'name' , \"nobody\" , x -- name\n\
                   FROM t WHERE name LIKE '%Name%' AND CAST(age AS date) IS NOT NULL";
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Postgres),
            "SELECT upper(\"Name\"), COUNT (*), 'name' , \"nobody\" , x -- name\n\
             FROM \"T\" WHERE \"Name\" LIKE '%Name%' AND CAST(\"Age\" AS date) IS NOT NULL"
        );
    }

    #[test]
    fn ambiguous_spellings_are_left_alone() {
        let names = NameSet::new(&[
            ("a".to_string(), vec!["name".into(), "Id".into()]),
            ("b".to_string(), vec!["Name".into(), "Id".into()]),
        ]);
        assert_eq!(names.resolve("NAME"), None);
        assert_eq!(names.resolve("id"), Some("Id"));
        // Bare, in a join of both tables: SQLite calls it ambiguous.
        assert_eq!(
            resolve_identifiers(
                "SELECT NAME, a.ID FROM A JOIN b ON 1",
                &names,
                EngineKind::Postgres
            ),
            r#"SELECT NAME, "a"."Id" FROM "a" JOIN "b" ON 1"#
        );
        // Not a query: no scope to resolve it in.
        assert_eq!(
            resolve_identifiers("SELECT NAME FROM", &names, EngineKind::Postgres),
            "SELECT NAME FROM"
        );
    }

    /// Northwind's spellings: `orders.shipperId` and `shippers.shipperid`
    /// (and `shipperName`, one spelling), besides `Customers.CustomerID`
    /// and `orders.customerid`.
    fn northwind() -> NameSet {
        let t = |name: &str, cols: &[&str]| {
            (
                name.to_string(),
                cols.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            )
        };
        NameSet::new(&[
            t("orders", &["orderId", "shipperId", "customerid"]),
            t("shippers", &["shipperid", "shipperName"]),
            t("Customers", &["CustomerID", "City"]),
        ])
    }

    fn pg(sql: &str, names: &NameSet) -> String {
        resolve_identifiers(sql, names, EngineKind::Postgres)
    }

    #[test]
    fn a_qualified_column_takes_the_spelling_of_its_alias_table() {
        let names = northwind();
        assert_eq!(
            pg(
                "SELECT s.SHIPPERID FROM shippers AS s WHERE s.shipperId > 1",
                &names
            ),
            r#"SELECT s."shipperid" FROM "shippers" AS s WHERE s."shipperid" > 1"#
        );
        assert_eq!(
            pg("SELECT o.shipperid FROM orders o", &names),
            r#"SELECT o."shipperId" FROM "orders" o"#
        );
    }

    #[test]
    fn a_qualified_column_takes_the_spelling_of_its_named_table() {
        let names = northwind();
        assert_eq!(
            pg(
                "SELECT orders.SHIPPERID FROM orders JOIN shippers \
                 ON orders.shipperid = Shippers.shipperId",
                &names
            ),
            r#"SELECT "orders"."shipperId" FROM "orders" JOIN "shippers" ON "orders"."shipperId" = "shippers"."shipperid""#
        );
    }

    #[test]
    fn a_bare_column_takes_the_spelling_of_the_one_table_of_its_scope() {
        let names = northwind();
        assert_eq!(
            pg("SELECT shipperid FROM orders WHERE SHIPPERID = 2", &names),
            r#"SELECT "shipperId" FROM "orders" WHERE "shipperId" = 2"#
        );
        assert_eq!(
            pg("SELECT shipperId FROM shippers ORDER BY shipperID", &names),
            r#"SELECT "shipperid" FROM "shippers" ORDER BY "shipperid""#
        );
        // In a join, the one table that has it.
        assert_eq!(
            pg(
                "SELECT shipperName, orderid FROM orders JOIN shippers USING (shipperid)",
                &names
            ),
            r#"SELECT "shipperName", "orderId" FROM "orders" JOIN "shippers" USING (shipperid)"#
        );
    }

    #[test]
    fn a_subquery_resolves_in_its_own_scope_then_outwards() {
        let names = northwind();
        assert_eq!(
            pg(
                "SELECT shipperid FROM shippers WHERE shipperid IN \
                 (SELECT shipperid FROM orders)",
                &names
            ),
            r#"SELECT "shipperid" FROM "shippers" WHERE "shipperid" IN (SELECT "shipperId" FROM "orders")"#
        );
        // A correlated reference reaches the enclosing query's table.
        assert_eq!(
            pg(
                "SELECT shipperName FROM shippers AS s WHERE EXISTS \
                 (SELECT 1 FROM Customers WHERE s.SHIPPERID = 1 AND shipperid > 0)",
                &names
            ),
            r#"SELECT "shipperName" FROM "shippers" AS s WHERE EXISTS (SELECT 1 FROM "Customers" WHERE s."shipperid" = 1 AND "shipperid" > 0)"#
        );
    }

    #[test]
    fn derived_tables_and_ctes_pass_their_columns_spellings_on() {
        let names = northwind();
        assert_eq!(
            pg(
                "SELECT t.SHIPPERID, u.shipperid FROM (SELECT shipperid FROM orders) AS t \
                 JOIN (SELECT * FROM shippers) u ON t.shipperid = u.SHIPPERID",
                &names
            ),
            r#"SELECT t."shipperId", u."shipperid" FROM (SELECT "shipperId" FROM "orders") AS t JOIN (SELECT * FROM "shippers") u ON t."shipperId" = u."shipperid""#
        );
        assert_eq!(
            pg(
                "WITH o AS (SELECT o.shipperid FROM orders AS o) \
                 SELECT shipperid FROM o UNION SELECT shipperid FROM shippers ORDER BY shipperid",
                &names
            ),
            r#"WITH o AS (SELECT o."shipperId" FROM "orders" AS o) SELECT "shipperId" FROM o UNION SELECT "shipperid" FROM "shippers" ORDER BY "shipperId""#
        );
        // An alias of an output is no column: the rule for other words.
        assert_eq!(
            pg(
                "SELECT x.n FROM (SELECT shipperid AS n FROM orders) x ORDER BY x.n",
                &names
            ),
            r#"SELECT x.n FROM (SELECT "shipperId" AS n FROM "orders") x ORDER BY x.n"#
        );
    }

    #[test]
    fn both_spellings_in_one_query_each_as_its_table_spells_it() {
        let names = northwind();
        let sql = "SELECT o.shipperId, s.shipperid FROM orders o JOIN shippers s \
                   ON o.shipperId = s.shipperid";
        assert_eq!(
            pg(sql, &names),
            r#"SELECT o."shipperId", s."shipperid" FROM "orders" o JOIN "shippers" s ON o."shipperId" = s."shipperid""#
        );
        // Each written in the other table's spelling.
        let sql = "SELECT o.shipperid, s.shipperId, c.customerid, o.CustomerID \
                   FROM orders o JOIN shippers s ON o.shipperid = s.shipperId \
                   JOIN customers c ON c.CUSTOMERID = o.CUSTOMERID";
        assert_eq!(
            pg(sql, &names),
            r#"SELECT o."shipperId", s."shipperid", c."CustomerID", o."customerid" FROM "orders" o JOIN "shippers" s ON o."shipperId" = s."shipperid" JOIN "Customers" c ON c."CustomerID" = o."customerid""#
        );
        assert_eq!(
            resolve_identifiers(sql, &names, EngineKind::Mysql),
            "SELECT o.`shipperId`, s.`shipperid`, c.`CustomerID`, o.`customerid` FROM `orders` o \
             JOIN `shippers` s ON o.`shipperId` = s.`shipperid` JOIN `Customers` c \
             ON c.`CustomerID` = o.`customerid`"
        );
    }

    #[test]
    fn names_from_tables_json() {
        // The same check with the names read from Spider's tables.json
        // (the shipped example's).
        let path = sqlwitness_testkit::example_spider().join("tables.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let dbs: serde_json::Value = serde_json::from_str(&text).unwrap();
        let db = dbs
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["db_id"] == "concert_singer")
            .unwrap();
        let tables: Vec<String> = db["table_names_original"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        let mut pairs: Vec<(String, Vec<String>)> =
            tables.iter().map(|t| (t.clone(), Vec::new())).collect();
        for c in db["column_names_original"].as_array().unwrap() {
            let idx = c[0].as_i64().unwrap();
            if idx >= 0 {
                pairs[idx as usize]
                    .1
                    .push(c[1].as_str().unwrap().to_string());
            }
        }
        let names = NameSet::new(&pairs);
        assert_eq!(
            resolve_identifiers(
                "SELECT song_name FROM Singer WHERE is_male = 'T'",
                &names,
                EngineKind::Postgres
            ),
            r#"SELECT "Song_Name" FROM "singer" WHERE "Is_male" = 'T'"#
        );
    }
}
