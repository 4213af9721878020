//! The parsed statement: one query, and nothing inside it that writes,
//! locks, builds an oversized value or reads outside its namespace.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, Query,
    Select, SetExpr, Statement, TableFactor, Value as SqlValue, Visit, Visitor,
};
use sqlparser::keywords::Keyword;
use sqlwitness_dialect::Dialect;

use crate::calls::check_call;
use crate::guard::{GuardOptions, Refusal};
use crate::names::Name;
use crate::relations::check_relation;

/// Exactly one statement, a query, that passes [`Checker`] everywhere
/// inside it.
pub(crate) fn check(
    statements: &[Statement],
    dialect: &Dialect,
    options: &GuardOptions,
) -> Result<(), Refusal> {
    let statement = match statements {
        [] => return Err(Refusal("no statement".into())),
        [s] => s,
        _ => {
            return Err(Refusal(format!(
                "{} statements ({})",
                statements.len(),
                statements
                    .iter()
                    .map(statement_kind)
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
        }
    };
    if !matches!(statement, Statement::Query(_)) {
        return Err(Refusal(format!("{} statement", statement_kind(statement))));
    }
    let mut checker = Checker {
        dialect,
        options,
        statements_seen: 0,
    };
    match statement.visit(&mut checker) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(r) => Err(r),
    }
}

/// The first word of a statement as SQL (`DROP`, `PRAGMA`, `ATTACH` …).
fn statement_kind(s: &Statement) -> String {
    let text = s.to_string();
    let first = text.split_whitespace().next().unwrap_or("?");
    format!("`{}`", first.to_ascii_uppercase())
}

/// A parsed name as [`Name`]s (the parser removed quotes and doubled
/// quotes already); refused when a part is not a plain identifier.
fn parts(name: &ObjectName) -> Result<Vec<Name<'_>>, Refusal> {
    name.0
        .iter()
        .map(|p| {
            p.as_ident()
                .map(ident_name)
                .ok_or_else(|| Refusal(format!("the name `{name}` (a part the guard cannot read)")))
        })
        .collect()
}

fn ident_name(i: &Ident) -> Name<'_> {
    Name {
        value: i.value.clone(),
        quoted: i.quote_style.is_some(),
        keyword: Keyword::NoKeyword,
        text: &i.value,
    }
}

struct Checker<'a> {
    dialect: &'a Dialect,
    options: &'a GuardOptions,
    statements_seen: usize,
}

impl Checker<'_> {
    fn function(&self, name: &ObjectName) -> Result<(), Refusal> {
        let parts = parts(name)?;
        check_call(
            &parts.iter().collect::<Vec<_>>(),
            self.dialect,
            self.options,
        )
    }

    fn relation(&self, name: &ObjectName) -> Result<(), Refusal> {
        let parts = parts(name)?;
        check_relation(
            &parts.iter().collect::<Vec<_>>(),
            self.dialect,
            self.options,
        )
    }

    /// A sized function called with a literal length over the limit.
    fn size(&self, f: &Function) -> Result<(), Refusal> {
        let Some(name) = f.name.0.last().and_then(|p| p.as_ident()) else {
            return Ok(());
        };
        let lower = name.value.to_ascii_lowercase();
        let Some(&position) = self.dialect.sized_functions.get(&lower) else {
            return Ok(());
        };
        let FunctionArguments::List(list) = &f.args else {
            return Ok(());
        };
        let arg = position.checked_sub(1).and_then(|i| list.args.get(i));
        if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))) = arg {
            if let SqlValue::Number(n, _) = &v.value {
                let size: f64 = n.parse().unwrap_or(0.0);
                if size > self.options.max_value_bytes as f64 {
                    return Err(Refusal(format!(
                        "`{}` building a value of {n} bytes (the result limit is {})",
                        name.value, self.options.max_value_bytes
                    )));
                }
            }
        }
        Ok(())
    }

    /// `TABLE t` anywhere in a set operation.
    fn table_queries(&self, body: &SetExpr) -> Result<(), Refusal> {
        match body {
            SetExpr::Table(t) => {
                let name: Vec<Ident> = t
                    .schema_name
                    .iter()
                    .chain(&t.table_name)
                    .map(|s| Ident::new(s.as_str()))
                    .collect();
                let parts: Vec<Name<'_>> = name.iter().map(ident_name).collect();
                check_relation(
                    &parts.iter().collect::<Vec<_>>(),
                    self.dialect,
                    self.options,
                )
            }
            SetExpr::SetOperation { left, right, .. } => {
                self.table_queries(left)?;
                self.table_queries(right)
            }
            _ => Ok(()),
        }
    }
}

fn flow(r: Result<(), Refusal>) -> ControlFlow<Refusal> {
    match r {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => ControlFlow::Break(e),
    }
}

impl Visitor for Checker<'_> {
    type Break = Refusal;

    fn pre_visit_statement(&mut self, s: &Statement) -> ControlFlow<Refusal> {
        self.statements_seen += 1;
        if self.statements_seen > 1 {
            return ControlFlow::Break(Refusal(format!(
                "a data-modifying {} statement inside the query",
                statement_kind(s)
            )));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<Refusal> {
        if let Some(lock) = q.locks.first() {
            return ControlFlow::Break(Refusal(format!("a locking clause `{lock}`")));
        }
        if modifies_data(&q.body) {
            return ControlFlow::Break(Refusal(
                "a data-modifying statement inside the query".into(),
            ));
        }
        flow(self.table_queries(&q.body))
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<Refusal> {
        if let Some(into) = &s.into {
            return ControlFlow::Break(Refusal(format!("`SELECT … {into}`")));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<Refusal> {
        if let Expr::Function(f) = e {
            flow(self.function(&f.name).and_then(|()| self.size(f)))?;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<Refusal> {
        flow(match t {
            TableFactor::Table {
                name, args: None, ..
            } => self.relation(name),
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.function(name),
            _ => Ok(()),
        })
    }
}

fn modifies_data(body: &SetExpr) -> bool {
    match body {
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => true,
        SetExpr::SetOperation { left, right, .. } => modifies_data(left) || modifies_data(right),
        _ => false,
    }
}
