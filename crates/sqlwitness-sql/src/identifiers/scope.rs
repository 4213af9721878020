//! Which table each column reference of a query names, read on its syntax
//! tree, so that a column takes the spelling of that table and not of the
//! whole database (`orders.shipperId` beside `shippers.shipperid`).
//!
//! A reference is resolved the way SQLite resolves it: a qualifier names
//! a FROM item (its alias, or the table's name when it has none) of the
//! query or of an enclosing one, innermost first; a bare name is looked up
//! in the innermost query whose FROM has it, then outwards. A derived
//! table or a common table expression outputs the columns its query
//! selects, each with the spelling it was resolved to. A reference that
//! does not resolve to exactly one column of a known spelling is not
//! reported, and the caller keeps its own rule for it.

use std::collections::HashMap;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Ident, Join, JoinConstraint, JoinOperator, OrderByKind, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, TableFactor, TableWithJoins, Visit,
    Visitor,
};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::tokenizer::Location;

use super::{NameSet, Spellings};
use crate::columns::{is_output_alias, last_part};
use crate::parse::parse_bounded;

/// The exact spelling of each column reference of `sql` (SQLite syntax)
/// that resolves to one column, by the byte offset of its column word.
/// Empty when `sql` does not parse.
pub(super) fn column_spellings(sql: &str, names: &NameSet) -> HashMap<usize, String> {
    let Ok(stmts) = parse_bounded(&SQLiteDialect {}, sql) else {
        return HashMap::new();
    };
    let mut walker = Walker {
        names,
        found: Vec::new(),
    };
    for stmt in &stmts {
        if let Statement::Query(q) = stmt {
            walker.query(q, &Scope::default());
        }
    }
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(sql.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    walker
        .found
        .into_iter()
        .filter_map(|(loc, exact)| Some((byte_offset(sql, &line_starts, loc)?, exact)))
        .collect()
}

/// The byte offset of a 1-based (line, column in characters) location.
fn byte_offset(sql: &str, line_starts: &[usize], loc: Location) -> Option<usize> {
    let start = *line_starts.get(usize::try_from(loc.line).ok()?.checked_sub(1)?)?;
    let column = usize::try_from(loc.column).ok()?.checked_sub(1)?;
    sql[start..]
        .char_indices()
        .nth(column)
        .map(|(i, _)| start + i)
}

/// What a query sees: the FROM items of it and of its enclosing queries,
/// and the common table expressions in reach.
#[derive(Debug, Clone, Default)]
struct Scope<'n> {
    /// One level per query, innermost last.
    levels: Vec<Level<'n>>,
    /// Common table expressions by name, latest last.
    ctes: Vec<(String, Vec<Output>)>,
}

type Level<'n> = Vec<Source<'n>>;

impl<'n> Scope<'n> {
    fn with_level(&self, level: Level<'n>) -> Scope<'n> {
        let mut s = self.clone();
        s.levels.push(level);
        s
    }
}

/// One FROM item.
#[derive(Debug, Clone)]
struct Source<'n> {
    /// Its alias, or the table's name as written ("" for neither).
    name: String,
    kind: Kind<'n>,
}

#[derive(Debug, Clone)]
enum Kind<'n> {
    /// A table of the database: its columns.
    Table(&'n Spellings),
    /// A derived table or a common table expression: its outputs.
    Derived(Vec<Output>),
    /// Anything else (a table the database lacks, a table function): its
    /// columns are unknown.
    Unknown,
}

/// An output column of a query.
#[derive(Debug, Clone)]
struct Output {
    /// The name an enclosing query refers to it by.
    name: String,
    /// Its exact spelling, when it is a column reference resolved to one.
    spelling: Option<String>,
}

impl Source<'_> {
    /// `None` when the source has no column `name`; else the spelling it
    /// gives it, if known.
    fn column(&self, name: &str) -> Option<Option<&str>> {
        match &self.kind {
            Kind::Table(cols) => cols
                .get(&name.to_ascii_lowercase())
                .map(|exact| exact.as_deref()),
            Kind::Derived(outputs) => {
                let mut hits = outputs
                    .iter()
                    .filter(|o| o.name.eq_ignore_ascii_case(name))
                    .map(|o| o.spelling.as_deref());
                let first = hits.next()?;
                Some(if hits.all(|h| h == first) {
                    first
                } else {
                    None
                })
            }
            Kind::Unknown => None,
        }
    }

    /// The outputs of `*` over this source.
    fn star(&self) -> Vec<Output> {
        match &self.kind {
            Kind::Table(cols) => cols
                .iter()
                .map(|(lower, exact)| Output {
                    name: exact.clone().unwrap_or_else(|| lower.clone()),
                    spelling: exact.clone(),
                })
                .collect(),
            Kind::Derived(outputs) => outputs.clone(),
            Kind::Unknown => Vec::new(),
        }
    }
}

struct Walker<'n> {
    names: &'n NameSet,
    /// Where each resolved column word starts, and its spelling.
    found: Vec<(Location, String)>,
}

impl<'n> Walker<'n> {
    /// Walks `q` inside `outer`; returns its outputs.
    fn query(&mut self, q: &Query, outer: &Scope<'n>) -> Vec<Output> {
        let mut scope = outer.clone();
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let outputs = self.query(&cte.query, &scope);
                let outputs = if cte.alias.columns.is_empty() {
                    outputs
                } else {
                    named(cte.alias.columns.iter().map(|c| &c.name))
                };
                scope.ctes.push((cte.alias.name.value.clone(), outputs));
            }
        }
        let (outputs, level) = self.set_expr(&q.body, &scope);
        if let Some(OrderByKind::Expressions(items)) = q.order_by.as_ref().map(|o| &o.kind) {
            // A SELECT sorts by its FROM (an output alias aside); a
            // compound query by its outputs.
            let sorted = match level {
                Some(level) => scope.with_level(level),
                None => scope.with_level(vec![Source {
                    name: String::new(),
                    kind: Kind::Derived(outputs.clone()),
                }]),
            };
            for item in items {
                if !is_output_alias(&item.expr, &q.body) {
                    self.expr(&item.expr, &sorted);
                }
            }
        }
        outputs
    }

    /// The outputs of `body` and, for a plain SELECT, its FROM level.
    fn set_expr(&mut self, body: &SetExpr, scope: &Scope<'n>) -> (Vec<Output>, Option<Level<'n>>) {
        match body {
            SetExpr::Select(s) => {
                let (outputs, level) = self.select(s, scope);
                (outputs, Some(level))
            }
            SetExpr::Query(q) => (self.query(q, scope), None),
            SetExpr::SetOperation { left, right, .. } => {
                let (outputs, _) = self.set_expr(left, scope);
                self.set_expr(right, scope);
                (outputs, None)
            }
            SetExpr::Values(v) => {
                for e in v.rows.iter().flat_map(|r| &r.content) {
                    self.expr(e, scope);
                }
                (Vec::new(), None)
            }
            _ => (Vec::new(), None),
        }
    }

    fn select(&mut self, s: &Select, outer: &Scope<'n>) -> (Vec<Output>, Level<'n>) {
        let mut level = Level::new();
        let mut ons = Vec::new();
        for twj in &s.from {
            self.table_with_joins(twj, outer, &mut level, &mut ons);
        }
        let scope = outer.with_level(level.clone());
        for e in ons {
            self.expr(e, &scope);
        }
        let mut outputs = Vec::new();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    self.expr(e, &scope);
                    let parts = column_parts(e);
                    outputs.push(Output {
                        name: parts
                            .and_then(|p| p.last())
                            .map_or_else(|| e.to_string(), |c| c.value.clone()),
                        spelling: parts.and_then(|p| self.resolve(p, &scope)),
                    });
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    self.expr(expr, &scope);
                    outputs.extend(named([alias]));
                }
                SelectItem::ExprWithAliases { expr, aliases } => {
                    self.expr(expr, &scope);
                    outputs.extend(named(aliases));
                }
                SelectItem::Wildcard(_) => outputs.extend(level.iter().flat_map(Source::star)),
                SelectItem::QualifiedWildcard(kind, _) => {
                    if let SelectItemQualifiedWildcardKind::ObjectName(name) = kind {
                        let q = last_part(name).unwrap_or_default();
                        if let Some(src) = level.iter().find(|s| s.name.eq_ignore_ascii_case(&q)) {
                            outputs.extend(src.star());
                        }
                    }
                }
            }
        }
        if let Some(e) = &s.selection {
            self.expr(e, &scope);
        }
        if let sqlparser::ast::GroupByExpr::Expressions(exprs, _) = &s.group_by {
            for e in exprs {
                self.expr(e, &scope);
            }
        }
        if let Some(e) = &s.having {
            self.expr(e, &scope);
        }
        (outputs, level)
    }

    /// Adds the FROM items of `twj` to `level`, and their ON conditions
    /// (which see the whole level) to `ons`.
    fn table_with_joins<'q>(
        &mut self,
        twj: &'q TableWithJoins,
        outer: &Scope<'n>,
        level: &mut Level<'n>,
        ons: &mut Vec<&'q Expr>,
    ) {
        self.factor(&twj.relation, outer, level, ons);
        for j in &twj.joins {
            self.factor(&j.relation, outer, level, ons);
            if let Some(JoinConstraint::On(e)) = constraint(j) {
                ons.push(e);
            }
        }
    }

    fn factor<'q>(
        &mut self,
        f: &'q TableFactor,
        outer: &Scope<'n>,
        level: &mut Level<'n>,
        ons: &mut Vec<&'q Expr>,
    ) {
        let source = match f {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                let table = last_part(name).unwrap_or_default();
                let cte = outer
                    .ctes
                    .iter()
                    .rev()
                    .find(|(n, _)| name.0.len() == 1 && n.eq_ignore_ascii_case(&table));
                let kind = match (args, cte) {
                    (Some(_), _) => Kind::Unknown,
                    (None, Some((_, outputs))) => Kind::Derived(outputs.clone()),
                    (None, None) => self
                        .names
                        .table_columns(&table)
                        .map_or(Kind::Unknown, Kind::Table),
                };
                let kind = match alias.as_ref().filter(|a| !a.columns.is_empty()) {
                    Some(a) => Kind::Derived(named(a.columns.iter().map(|c| &c.name))),
                    None => kind,
                };
                Source {
                    name: alias.as_ref().map_or(table, |a| a.name.value.clone()),
                    kind,
                }
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let outputs = self.query(subquery, outer);
                let outputs = match alias.as_ref().filter(|a| !a.columns.is_empty()) {
                    Some(a) => named(a.columns.iter().map(|c| &c.name)),
                    None => outputs,
                };
                Source {
                    name: alias
                        .as_ref()
                        .map_or_else(String::new, |a| a.name.value.clone()),
                    kind: Kind::Derived(outputs),
                }
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.table_with_joins(table_with_joins, outer, level, ons);
                return;
            }
            _ => Source {
                name: String::new(),
                kind: Kind::Unknown,
            },
        };
        level.push(source);
    }

    /// Records the column references of `e` resolved in `scope`; a
    /// subquery is walked in a scope of its own.
    fn expr(&mut self, e: &Expr, scope: &Scope<'n>) {
        let mut refs = Refs {
            walker: self,
            scope,
            depth: 0,
        };
        let _ = e.visit(&mut refs);
    }

    /// The spelling the column of `parts` (`[column]`, `[qualifier,
    /// column]` or `[schema, qualifier, column]`) takes in `scope`.
    fn resolve(&self, parts: &[Ident], scope: &Scope<'n>) -> Option<String> {
        match parts {
            [col] => {
                for level in scope.levels.iter().rev() {
                    let hits: Vec<Option<&str>> =
                        level.iter().filter_map(|s| s.column(&col.value)).collect();
                    match hits.as_slice() {
                        // A source of unknown columns may hold it.
                        [] if level.iter().any(|s| matches!(s.kind, Kind::Unknown)) => return None,
                        [] => continue,
                        // Were it in another source too, SQLite would call
                        // it ambiguous.
                        [one] => return one.map(str::to_string),
                        // Ambiguous, or a USING / NATURAL join column.
                        _ => return None,
                    }
                }
                None
            }
            [.., q, col] if parts.len() <= 3 => {
                let src = scope
                    .levels
                    .iter()
                    .rev()
                    .find_map(|l| l.iter().find(|s| s.name.eq_ignore_ascii_case(&q.value)))?;
                src.column(&col.value).flatten().map(str::to_string)
            }
            _ => None,
        }
    }
}

/// Outputs named by `names` (aliases), of no known spelling.
fn named<'a>(names: impl IntoIterator<Item = &'a Ident>) -> Vec<Output> {
    names
        .into_iter()
        .map(|n| Output {
            name: n.value.clone(),
            spelling: None,
        })
        .collect()
}

struct Refs<'w, 'n, 's> {
    walker: &'w mut Walker<'n>,
    scope: &'s Scope<'n>,
    /// Inside a subquery, which was walked in its own scope.
    depth: usize,
}

impl Visitor for Refs<'_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.depth == 0 {
            self.walker.query(query, self.scope);
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        if let Some(parts) = column_parts(expr) {
            if let (Some(exact), Some(col)) = (self.walker.resolve(parts, self.scope), parts.last())
            {
                if col.span.start.line > 0 {
                    self.walker.found.push((col.span.start, exact));
                }
            }
        }
        ControlFlow::Continue(())
    }
}

fn column_parts(e: &Expr) -> Option<&[Ident]> {
    match e {
        Expr::Identifier(i) => Some(std::slice::from_ref(i)),
        Expr::CompoundIdentifier(parts) => Some(parts),
        _ => None,
    }
}

fn constraint(j: &Join) -> Option<&JoinConstraint> {
    use JoinOperator::*;
    match &j.join_operator {
        Join(c) | Inner(c) | Left(c) | LeftOuter(c) | Right(c) | RightOuter(c) | FullOuter(c)
        | CrossJoin(c) | Semi(c) | LeftSemi(c) | RightSemi(c) | Anti(c) | LeftAnti(c)
        | RightAnti(c) | StraightJoin(c) => Some(c),
        _ => None,
    }
}
