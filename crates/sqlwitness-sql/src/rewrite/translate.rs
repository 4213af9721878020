//! SQLite SQL translated for PostgreSQL or MySQL, driven by the
//! `translations` section of `dialects/<engine>.yaml`.
//!
//! Each step is a syntax change that keeps SQLite's meaning where the data
//! allows it; whether it does is decided on data by the caller (`sqlwitness
//! audit` runs the translation and compares with SQLite's answer), never
//! here. Steps (names as reported):
//! `double_quoted_strings`, `text_comparisons`, `numeric_aggregate_cast`,
//! `complete_group_by`, `alias_case`, `derived_table_alias`,
//! `join_without_constraint_is_cross`, `iif_to_case`, `concat_function`,
//! `functions`, `strftime`, `casts`, `reprint`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use sqlparser::ast::{
    BinaryOperator, DataType, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    Ident, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, Query, SelectItem, SetExpr,
    Statement, TableAlias, TableFactor, TableWithJoins, Value, VisitMut, VisitorMut,
};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::parser::Parser;
use sqlwitness_dialect::{FunctionRename, StrftimeRule, Translations};

use crate::exprs::{as_col_ref, bare_columns, order_exprs};
use crate::schema::SchemaInfo;

/// A translated query and the steps that changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Translation {
    pub sql: String,
    pub steps: Vec<String>,
}

/// Translates `sql` (SQLite) with the rules `t`. `None` when it does not
/// parse or no step applies.
pub fn translate(sql: &str, t: &Translations, schema: &SchemaInfo) -> Option<Translation> {
    let mut statements = crate::parse_bounded(&SQLiteDialect {}, sql).ok()?;
    let [Statement::Query(_)] = statements.as_slice() else {
        return None;
    };
    let mut tr = Translator {
        t,
        schema,
        scopes: Vec::new(),
        steps: BTreeSet::new(),
        derived: 0,
    };
    let _ = statements[0].visit(&mut tr);
    if t.reprint && statements[0].to_string() != sql.trim().trim_end_matches(';').trim() {
        tr.steps.insert("reprint");
    }
    if tr.steps.is_empty() {
        return None;
    }
    Some(Translation {
        sql: statements[0].to_string(),
        steps: tr.steps.into_iter().map(String::from).collect(),
    })
}

struct Scope {
    /// (name used in the query, lower case; declared spelling; table name)
    tables: Vec<(String, String, String)>,
    /// Select-list aliases, lower case.
    aliases: Vec<String>,
}

struct Translator<'a> {
    t: &'a Translations,
    schema: &'a SchemaInfo,
    scopes: Vec<Scope>,
    steps: BTreeSet<&'static str>,
    derived: usize,
}

fn parse_expr(text: &str) -> Option<Expr> {
    Parser::new(&SQLiteDialect {})
        .try_with_sql(text)
        .ok()?
        .parse_expr()
        .ok()
}

fn collect_from(
    body: &SetExpr,
    out: &mut Vec<(String, String, String)>,
    aliases: &mut Vec<String>,
) {
    match body {
        SetExpr::Select(s) => {
            for twj in &s.from {
                collect_factor(&twj.relation, out);
                for j in &twj.joins {
                    collect_factor(&j.relation, out);
                }
            }
            for p in &s.projection {
                if let SelectItem::ExprWithAlias { alias, .. } = p {
                    aliases.push(alias.value.to_ascii_lowercase());
                }
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            collect_from(left, out, aliases);
            collect_from(right, out, aliases);
        }
        SetExpr::Query(q) => collect_from(&q.body, out, aliases),
        _ => {}
    }
}

fn collect_factor(f: &TableFactor, out: &mut Vec<(String, String, String)>) {
    match f {
        TableFactor::Table { name, alias, .. } => {
            let tname = name
                .0
                .last()
                .and_then(ObjectNamePart::as_ident)
                .map(|i| i.value.clone())
                .unwrap_or_default();
            let used = alias
                .as_ref()
                .map_or(tname.clone(), |a| a.name.value.clone());
            out.push((used.to_ascii_lowercase(), used, tname));
        }
        TableFactor::Derived { alias: Some(a), .. } => out.push((
            a.name.value.to_ascii_lowercase(),
            a.name.value.clone(),
            String::new(),
        )),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            collect_factor(&table_with_joins.relation, out);
            for j in &table_with_joins.joins {
                collect_factor(&j.relation, out);
            }
        }
        _ => {}
    }
}

impl Translator<'_> {
    /// The SQLite affinity of a column reference, looked up innermost scope first.
    fn affinity(&self, e: &Expr) -> Option<&'static str> {
        let c = as_col_ref(e)?;
        for scope in self.scopes.iter().rev() {
            for (used, _, table) in &scope.tables {
                if c.qualifier
                    .as_ref()
                    .is_some_and(|q| !q.eq_ignore_ascii_case(used))
                {
                    continue;
                }
                if let Some(a) = self.schema.table(table).and_then(|t| t.affinity(&c.name)) {
                    return Some(a);
                }
            }
        }
        None
    }

    fn names_something(&self, word: &str) -> bool {
        let w = word.to_ascii_lowercase();
        self.schema
            .tables
            .iter()
            .any(|t| t.name.eq_ignore_ascii_case(&w) || t.has_column(&w))
            || self
                .scopes
                .iter()
                .any(|s| s.tables.iter().any(|(u, _, _)| *u == w) || s.aliases.contains(&w))
    }

    fn fix_query(&mut self, q: &mut Query) {
        let t = self.t;
        let order: Vec<Expr> = order_exprs(q);
        if let SetExpr::Select(s) = q.body.as_mut() {
            for twj in &mut s.from {
                self.fix_twj(twj);
            }
            if t.complete_group_by {
                if let GroupByExpr::Expressions(g, _) = &mut s.group_by {
                    if !g.is_empty() {
                        let known: BTreeSet<String> = g
                            .iter()
                            .map(|e| e.to_string().to_ascii_lowercase())
                            .collect();
                        let aliases: Vec<String> = s
                            .projection
                            .iter()
                            .filter_map(|p| match p {
                                SelectItem::ExprWithAlias { alias, .. } => {
                                    Some(alias.value.to_ascii_lowercase())
                                }
                                _ => None,
                            })
                            .collect();
                        let mut exprs: Vec<&Expr> = s
                            .projection
                            .iter()
                            .filter_map(|p| match p {
                                SelectItem::UnnamedExpr(e)
                                | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
                                _ => None,
                            })
                            .collect();
                        exprs.extend(s.having.iter());
                        exprs.extend(order.iter());
                        let mut add: Vec<Expr> = Vec::new();
                        for e in exprs {
                            if known.contains(&e.to_string().to_ascii_lowercase()) {
                                continue;
                            }
                            for c in bare_columns(e) {
                                let text = c.to_string().to_ascii_lowercase();
                                let is_alias = matches!(&c, Expr::Identifier(i) if aliases.contains(&i.value.to_ascii_lowercase()));
                                if !is_alias && !known.contains(&text) && !add.contains(&c) {
                                    add.push(c);
                                }
                            }
                        }
                        if !add.is_empty() {
                            g.extend(add);
                            self.steps.insert("complete_group_by");
                        }
                    }
                }
            }
        }
    }

    fn fix_twj(&mut self, twj: &mut TableWithJoins) {
        self.fix_factor(&mut twj.relation);
        for j in &mut twj.joins {
            self.fix_factor(&mut j.relation);
            if self.t.join_without_constraint_is_cross {
                if let JoinOperator::Join(JoinConstraint::None)
                | JoinOperator::Inner(JoinConstraint::None) = j.join_operator
                {
                    j.join_operator = JoinOperator::CrossJoin(JoinConstraint::None);
                    self.steps.insert("join_without_constraint_is_cross");
                }
            }
        }
    }

    fn fix_factor(&mut self, f: &mut TableFactor) {
        if let TableFactor::Derived { alias, .. } = f {
            if alias.is_none() && self.t.derived_table_alias {
                self.derived += 1;
                *alias = Some(TableAlias {
                    explicit: true,
                    name: Ident::new(format!("__sw_d{}", self.derived)),
                    columns: vec![],
                    at: None,
                });
                self.steps.insert("derived_table_alias");
            }
        }
    }

    fn fix_expr(&mut self, e: &mut Expr) {
        let t = self.t;
        match e {
            Expr::Identifier(i)
                if t.double_quoted_strings
                    && i.quote_style == Some('"')
                    && !self.names_something(&i.value) =>
            {
                *e = Expr::value(Value::SingleQuotedString(i.value.clone()));
                self.steps.insert("double_quoted_strings");
            }
            Expr::CompoundIdentifier(parts) if t.alias_case && parts.len() >= 2 => {
                self.fix_alias_case(parts);
            }
            Expr::BinaryOp { .. } => self.fix_binary_op(e),
            Expr::Cast { data_type, .. } if !t.casts.is_empty() => {
                if let Some(to) = cast_target(&t.casts, &data_type.to_string()) {
                    *data_type =
                        DataType::Custom(ObjectName::from(vec![Ident::new(to)]), Vec::new());
                    self.steps.insert("casts");
                }
            }
            Expr::InList { expr, list, .. }
                if t.text_comparisons && self.affinity(expr) == Some("text") =>
            {
                for item in list.iter_mut() {
                    if let Expr::Value(v) = item {
                        if let Value::Number(n, _) = &v.value {
                            *item = Expr::value(Value::SingleQuotedString(n.clone()));
                            self.steps.insert("text_comparisons");
                        }
                    }
                }
            }
            Expr::Function(_) => self.fix_function(e),
            _ => {}
        }
    }

    /// `alias_case`: a qualifier spelled as the table or alias it names is
    /// declared (case-sensitive on the target).
    fn fix_alias_case(&mut self, parts: &mut [Ident]) {
        let n = parts.len() - 2;
        let q = &parts[n].value;
        let declared = self.scopes.iter().rev().find_map(|s| {
            s.tables
                .iter()
                .find(|(u, _, _)| u.eq_ignore_ascii_case(q))
                .map(|(_, d, _)| d.clone())
        });
        if let Some(d) = declared {
            if &d != q {
                parts[n].value = d;
                self.steps.insert("alias_case");
            }
        }
    }

    /// Comparisons of text columns with numbers (`text_comparisons`), and
    /// `a || b` as the engine's concatenation function.
    fn fix_binary_op(&mut self, e: &mut Expr) {
        let t = self.t;
        let Expr::BinaryOp { left, op, right } = e else {
            return;
        };
        if t.text_comparisons && crate::temporal::is_comparison(op) {
            self.fix_comparison(left, right);
            self.fix_comparison(right, left);
        }
        if *op == BinaryOperator::StringConcat {
            if let Some(f) = &t.concat_function {
                let call = format!("{f}({left}, {right})");
                self.replace(e, &call, "concat_function");
            }
        }
    }

    /// Function calls: `iif`, `strftime`, renamed functions, and `avg`/`sum`
    /// of a text column cast to a number first.
    fn fix_function(&mut self, e: &mut Expr) {
        let t = self.t;
        let Expr::Function(f) = e else {
            return;
        };
        let name = f
            .name
            .0
            .last()
            .and_then(ObjectNamePart::as_ident)
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        let FunctionArguments::List(list) = &mut f.args else {
            return;
        };
        let args: Vec<String> = list.args.iter().map(|a| a.to_string()).collect();
        if name == "iif" && t.iif_to_case && args.len() == 3 {
            let case = iif_case(&args);
            self.replace(e, &case, "iif_to_case");
            return;
        }
        if name == "strftime" && args.len() == 2 {
            let call = t
                .strftime
                .as_ref()
                .zip(string_literal(list.args.first()))
                .map(|(rule, fmt)| strftime_call(rule, fmt, &args[1]));
            if let Some(call) = call {
                self.replace(e, &call, "strftime");
            }
            return;
        }
        if let Some(rn) = t.functions.get(&name) {
            let call = renamed_call(rn, &args);
            self.replace(e, &call, "functions");
            return;
        }
        if let Some(ty) = &t.numeric_aggregate_cast {
            if matches!(name.as_str(), "avg" | "sum") && list.args.len() == 1 {
                if let FunctionArg::Unnamed(FunctionArgExpr::Expr(a)) = &list.args[0] {
                    if self.affinity(a) == Some("text") {
                        if let Some(n) = parse_expr(&format!("CAST({a} AS {ty})")) {
                            list.args[0] = FunctionArg::Unnamed(FunctionArgExpr::Expr(n));
                            self.steps.insert("numeric_aggregate_cast");
                        }
                    }
                }
            }
        }
    }

    /// `e` replaced by the expression `text`, counted as `step`, when the
    /// text parses.
    fn replace(&mut self, e: &mut Expr, text: &str, step: &'static str) {
        if let Some(n) = parse_expr(text) {
            *e = n;
            self.steps.insert(step);
        }
    }

    /// `text_col <op> number`: the number is compared as text, as SQLite's
    /// affinity rules do (a literal becomes a string, a column is cast).
    fn fix_comparison(&mut self, col: &mut Expr, other: &mut Expr) {
        if self.affinity(col) != Some("text") {
            return;
        }
        match other {
            Expr::Value(v) => {
                if let Value::Number(n, _) = &v.value {
                    *other = Expr::value(Value::SingleQuotedString(n.clone()));
                    self.steps.insert("text_comparisons");
                }
            }
            o if matches!(self.affinity(o), Some("integer" | "real" | "numeric")) => {
                if let Some(n) = parse_expr(&format!("CAST({o} AS TEXT)")) {
                    *o = n;
                    self.steps.insert("text_comparisons");
                }
            }
            _ => {}
        }
    }
}

/// The type a cast written `written` becomes: the rule for its name (the
/// text before any `(`, lower case), unless that is what is written.
fn cast_target<'t>(casts: &'t BTreeMap<String, String>, written: &str) -> Option<&'t str> {
    let name = written
        .split('(')
        .next()
        .unwrap_or(written)
        .trim()
        .to_ascii_lowercase();
    casts
        .get(&name)
        .filter(|to| !to.eq_ignore_ascii_case(written))
        .map(String::as_str)
}

/// `iif(c, a, b)` as a `CASE`.
fn iif_case(args: &[String]) -> String {
    format!(
        "CASE WHEN {} THEN {} ELSE {} END",
        args[0], args[1], args[2]
    )
}

/// The text of a single-quoted string literal argument.
fn string_literal(arg: Option<&FunctionArg>) -> Option<&str> {
    let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))) = arg else {
        return None;
    };
    match &v.value {
        Value::SingleQuotedString(s) => Some(s),
        _ => None,
    }
}

/// `strftime(fmt, value)` as the engine's call: each SQLite conversion
/// replaced by the engine's, the value cast first when the rule says so.
fn strftime_call(rule: &StrftimeRule, fmt: &str, value: &str) -> String {
    let mut out = fmt.to_string();
    for (from, to) in &rule.formats {
        out = out.replace(from.as_str(), to);
    }
    let value = match &rule.cast {
        Some(c) => format!("CAST({value} AS {c})"),
        None => value.to_string(),
    };
    format!("{}({value}, '{}')", rule.function, out.replace('\'', "''"))
}

/// A call of a renamed function: its first argument cast when the rule
/// says so, the rule's arguments appended.
fn renamed_call(rn: &FunctionRename, args: &[String]) -> String {
    let mut new_args = args.to_vec();
    if let (Some(c), Some(first)) = (&rn.cast_first, new_args.first_mut()) {
        *first = format!("CAST({first} AS {c})");
    }
    new_args.extend(rn.append_args.iter().cloned());
    format!("{}({})", rn.name, new_args.join(", "))
}

impl VisitorMut for Translator<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        let mut tables = Vec::new();
        let mut aliases = Vec::new();
        collect_from(&q.body, &mut tables, &mut aliases);
        self.scopes.push(Scope { tables, aliases });
        self.fix_query(q);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
        self.scopes.pop();
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        self.fix_expr(e);
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::TableInfo;
    use sqlwitness_core::EngineKind;

    fn schema() -> SchemaInfo {
        SchemaInfo::new(vec![
            TableInfo {
                name: "concert".into(),
                columns: vec!["concert_id".into(), "Year".into(), "Stadium_ID".into()],
                types: vec!["int".into(), "text".into(), "text".into()],
                ..Default::default()
            },
            TableInfo {
                name: "stadium".into(),
                columns: vec!["Stadium_ID".into(), "Name".into(), "Capacity".into()],
                types: vec!["int".into(), "text".into(), "int".into()],
                ..Default::default()
            },
        ])
    }

    fn tr(sql: &str, kind: EngineKind) -> String {
        let d = sqlwitness_dialect::builtin(kind);
        translate(sql, &d.translations, &schema()).map_or_else(|| "-".into(), |t| t.sql)
    }

    #[test]
    fn postgres_translations() {
        use sqlwitness_core::builtin_engines::Postgres as P;
        assert_eq!(
            tr(r#"SELECT Name FROM stadium WHERE Name = "Glebe Park""#, P),
            "SELECT Name FROM stadium WHERE Name = 'Glebe Park'"
        );
        assert_eq!(tr(r#"SELECT "Name" FROM stadium"#, P), "-");
        assert_eq!(
            tr(
                "SELECT count(*) FROM concert WHERE Year = 2014 OR YEAR IN (2015)",
                P
            ),
            "SELECT count(*) FROM concert WHERE Year = '2014' OR YEAR IN ('2015')"
        );
        assert_eq!(
            tr("SELECT T2.Name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.Stadium_ID = T2.Stadium_ID GROUP BY T1.Stadium_ID", P),
            "SELECT T2.Name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.Stadium_ID = CAST(T2.Stadium_ID AS TEXT) GROUP BY T1.Stadium_ID, T2.Name"
        );
        assert_eq!(
            tr("SELECT count(*) FROM (SELECT Name FROM stadium)", P),
            "SELECT count(*) FROM (SELECT Name FROM stadium) AS __sw_d1"
        );
        assert_eq!(
            tr("SELECT iif(Capacity > 5, 'big', 'small'), strftime('%Y', Name) FROM stadium", P),
            "SELECT CASE WHEN Capacity > 5 THEN 'big' ELSE 'small' END, to_char(CAST(Name AS TIMESTAMP), 'YYYY') FROM stadium"
        );
        assert_eq!(
            tr("SELECT avg(Year) FROM concert", P),
            "SELECT avg(CAST(Year AS DOUBLE PRECISION)) FROM concert"
        );
    }

    #[test]
    fn mysql_translations() {
        use sqlwitness_core::builtin_engines::Mysql as M;
        assert_eq!(
            tr("SELECT T2.Name FROM concert AS t1 JOIN stadium AS T2 ON T1.Stadium_ID = T2.Stadium_ID", M),
            "SELECT T2.Name FROM concert AS t1 JOIN stadium AS T2 ON t1.Stadium_ID = T2.Stadium_ID"
        );
        assert_eq!(
            tr("SELECT Name || 'x' FROM stadium", M),
            "SELECT concat(Name, 'x') FROM stadium"
        );
        assert_eq!(tr("SELECT Name FROM stadium", M), "-");
        assert_eq!(
            tr("SELECT MAX ( Capacity ) FROM stadium", M),
            "SELECT MAX(Capacity) FROM stadium"
        );
        // BIRD's SQLite golds: `CAST(… AS REAL)` (MariaDB has no REAL),
        // `AS INTEGER` and `AS TEXT` (MySQL has neither).
        assert_eq!(
            tr("SELECT CAST(count(*) AS REAL) * 100 / CAST(Capacity AS INTEGER), CAST(Name AS TEXT) FROM stadium", M),
            "SELECT CAST(count(*) AS DOUBLE) * 100 / CAST(Capacity AS SIGNED), CAST(Name AS CHAR) FROM stadium"
        );
        assert_eq!(
            tr("SELECT CAST(Capacity AS DECIMAL(10,2)) FROM stadium", M),
            "SELECT CAST(Capacity AS DECIMAL(65,30)) FROM stadium"
        );
        let maria = sqlwitness_core::builtin_engines::Mariadb;
        assert_eq!(
            tr("SELECT CAST(Capacity AS REAL) FROM stadium", maria),
            "SELECT CAST(Capacity AS DOUBLE) FROM stadium"
        );
    }

    #[test]
    fn a_cast_is_rewritten_only_to_another_spelling() {
        let casts: BTreeMap<String, String> = [
            ("real".to_string(), "DOUBLE".to_string()),
            ("text".to_string(), "TEXT".to_string()),
        ]
        .into();
        assert_eq!(cast_target(&casts, "REAL"), Some("DOUBLE"));
        assert_eq!(cast_target(&casts, "real(10)"), Some("DOUBLE"));
        assert_eq!(cast_target(&casts, "TEXT"), None);
        assert_eq!(cast_target(&casts, "INTEGER"), None);
    }

    #[test]
    fn function_calls_are_spelled_for_the_engine() {
        let args = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            iif_case(&args(&["a > 1", "'x'", "NULL"])),
            "CASE WHEN a > 1 THEN 'x' ELSE NULL END"
        );
        let rule = StrftimeRule {
            function: "to_char".into(),
            cast: Some("TIMESTAMP".into()),
            formats: [("%Y".to_string(), "YYYY".to_string())].into(),
        };
        assert_eq!(
            strftime_call(&rule, "%Y's", "d"),
            "to_char(CAST(d AS TIMESTAMP), 'YYYY''s')"
        );
        let rule = StrftimeRule { cast: None, ..rule };
        assert_eq!(strftime_call(&rule, "%m", "d"), "to_char(d, '%m')");
        let rn = FunctionRename {
            name: "string_agg".into(),
            append_args: vec!["','".into()],
            cast_first: Some("TEXT".into()),
        };
        assert_eq!(
            renamed_call(&rn, &args(&["x"])),
            "string_agg(CAST(x AS TEXT), ',')"
        );
        let rn = FunctionRename {
            name: "length".into(),
            append_args: Vec::new(),
            cast_first: Some("TEXT".into()),
        };
        assert_eq!(renamed_call(&rn, &[]), "length()");
    }

    #[test]
    fn postgres_casts_keep_sqlites_meaning() {
        use sqlwitness_core::builtin_engines::Postgres as P;
        assert_eq!(
            tr(
                "SELECT CAST(Capacity AS REAL) / 3, CAST(Name AS TEXT) FROM stadium",
                P
            ),
            "SELECT CAST(Capacity AS DOUBLE PRECISION) / 3, CAST(Name AS TEXT) FROM stadium"
        );
    }
}
