//! Rewriting a query for a changed schema, on its syntax tree: columns
//! renamed (Dr.Spider's schema-synonym and schema-abbreviation) or replaced
//! by an expression over new columns of the same table
//! (DBcontent-equivalence: `age` → `(2024 - birth_year)`).
//!
//! Every column reference is resolved the way SQLite resolves it — a
//! qualifier names a table or alias of an enclosing query, a bare name is
//! looked up in the innermost query whose FROM has it, then outwards — and
//! only references that resolve to a changed `table.column` are rewritten.
//! A derived table that outputs a changed column keeps the name the outer
//! query uses. What cannot be rewritten with certainty is refused with the
//! reason (`SELECT *` over a table whose column was replaced, `USING` or
//! `NATURAL` on a changed column, `WITH`, an ambiguous bare name).

use std::collections::HashMap;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, Ident, Join, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart,
    OrderByKind, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr, Statement,
    TableFactor, TableWithJoins, Value, VisitMut, VisitorMut,
};
use sqlparser::dialect::SQLiteDialect;

use crate::parse::parse_bounded;

/// A literal a changed column is compared with (`sex = 'F'`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Literal {
    Text(String),
    Int(i64),
}

/// What became of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnChange {
    /// The column has a new name; its values are unchanged.
    Rename { to: String },
    /// The column is gone; `template` computes its old value from new
    /// columns of the same table, each written `{t}name` (`{t}` becomes the
    /// table's qualifier and a dot). `equal` gives, for some literals, a
    /// simpler condition equivalent to `column = literal` and one
    /// equivalent to `column <> literal` (the same `{t}` convention), NULLs
    /// included.
    Replace {
        template: String,
        equal: Vec<(Literal, String, Option<String>)>,
    },
}

/// The original schema (exact names, in order) and its changes, keyed by
/// lower-case `(table, column)`.
#[derive(Debug, Clone, Default)]
pub struct SchemaChange {
    tables: Vec<(String, Vec<String>)>,
    changes: HashMap<(String, String), ColumnChange>,
}

/// Why a query was not rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    #[error("does not parse: {0}")]
    Parse(String),
    #[error("not a single query")]
    NotAQuery,
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("ambiguous column reference `{0}`")]
    Ambiguous(String),
}

/// A rewritten query and the changed columns it mentions (`table.column`,
/// exact names, in order of first mention).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    pub sql: String,
    pub touched: Vec<String>,
}

impl SchemaChange {
    /// `tables`: every table with its columns, exact original names.
    pub fn new(tables: Vec<(String, Vec<String>)>) -> SchemaChange {
        SchemaChange {
            tables,
            changes: HashMap::new(),
        }
    }

    /// Records a change of `table.column` (exact or any ASCII case).
    pub fn change(&mut self, table: &str, column: &str, change: ColumnChange) {
        self.changes.insert((lower(table), lower(column)), change);
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    fn table(&self, name: &str) -> Option<&(String, Vec<String>)> {
        self.tables
            .iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(name))
    }

    fn get(&self, table: &str, column: &str) -> Option<&ColumnChange> {
        self.changes.get(&(lower(table), lower(column)))
    }

    /// The column names of `table` after the change (renames applied;
    /// replaced columns keep their old name here — they are not selectable
    /// by name, and a name clash with them is checked by the caller).
    fn new_names(&self, table: &str) -> Vec<String> {
        let Some((t, cols)) = self.table(table) else {
            return Vec::new();
        };
        cols.iter()
            .map(|c| match self.get(t, c) {
                Some(ColumnChange::Rename { to }) => to.clone(),
                _ => c.clone(),
            })
            .collect()
    }

    /// Rewrites `sql`, written in `dialect`'s SQL, for the changed schema:
    /// parsed in that dialect alone, a name it adds quoted with its quote
    /// (a backtick on MySQL) when it is not a plain word — on a server
    /// that folds unquoted names to lower case (PostgreSQL), also when it
    /// holds an upper-case letter, since the migrated column keeps its
    /// name exactly — and a qualifier it adds written as the FROM item
    /// that it names is written. A replacement (content-equivalence) is an
    /// expression in SQLite's SQL: refused in another dialect.
    pub fn rewrite(
        &self,
        sql: &str,
        dialect: &sqlwitness_dialect::Dialect,
    ) -> Result<Rewritten, RewriteError> {
        if dialect.grammar == sqlwitness_dialect::Grammar::Sqlite {
            return self.rewrite_with(sql, &SQLiteDialect {}, Style::SQLITE);
        }
        if self
            .changes
            .values()
            .any(|c| matches!(c, ColumnChange::Replace { .. }))
        {
            return Err(RewriteError::Unsupported(format!(
                "replacement expressions in {}'s SQL",
                dialect.name
            )));
        }
        let style = Style {
            quote: dialect.identifiers.quote,
            fold_lower: dialect.identifiers.case == sqlwitness_dialect::NameCase::FoldLower,
            as_written: true,
        };
        self.rewrite_with(sql, crate::parser_dialect(dialect.grammar).as_ref(), style)
    }

    fn rewrite_with(
        &self,
        sql: &str,
        dialect: &dyn sqlparser::dialect::Dialect,
        style: Style,
    ) -> Result<Rewritten, RewriteError> {
        let mut stmts =
            parse_bounded(dialect, sql).map_err(|e| RewriteError::Parse(e.to_string()))?;
        if stmts.len() != 1 {
            return Err(RewriteError::NotAQuery);
        }
        let Statement::Query(query) = &mut stmts[0] else {
            return Err(RewriteError::NotAQuery);
        };
        let mut w = Walker {
            schema: self,
            touched: Vec::new(),
            style,
        };
        w.query(query, &[], false)?;
        Ok(Rewritten {
            sql: stmts[0].to_string(),
            touched: w.touched,
        })
    }
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// How a rewritten query writes the names it adds.
#[derive(Debug, Clone, Copy)]
struct Style {
    /// The identifier quote.
    quote: char,
    /// Unquoted names fold to lower case: a name with an upper-case
    /// letter is quoted.
    fold_lower: bool,
    /// A qualifier is written as its FROM item writes it (else it is
    /// quoted when it is not a plain word).
    as_written: bool,
}

impl Style {
    const SQLITE: Style = Style {
        quote: '"',
        fold_lower: false,
        as_written: false,
    };

    /// An identifier for `name`, quoted when it is not a plain word.
    fn ident(&self, name: &str) -> Ident {
        let plain = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !(self.fold_lower && name.chars().any(|c| c.is_ascii_uppercase()));
        if plain {
            Ident::new(name)
        } else {
            Ident::with_quote(self.quote, name)
        }
    }

    /// The qualifier naming FROM item `written`.
    fn qualifier(&self, written: &Ident) -> Ident {
        if self.as_written {
            written.clone()
        } else {
            self.ident(&written.value)
        }
    }
}

/// One FROM item of a query level.
#[derive(Debug, Clone)]
struct Source {
    /// The alias, or the table name as written.
    name: String,
    /// The same, with its quotes.
    written: Ident,
    kind: SourceKind,
}

#[derive(Debug, Clone)]
enum SourceKind {
    /// A table of the schema (exact name).
    Base(String),
    /// A derived table: its output names, before → after.
    Derived(Outputs),
    /// Anything else (a table not in the schema): never rewritten.
    Opaque,
}

type Level = Vec<Source>;

/// Output names of a query, before → after.
type Outputs = Vec<(String, String)>;

struct Walker<'a> {
    schema: &'a SchemaChange,
    touched: Vec<String>,
    style: Style,
}

/// A resolved reference to a changed column.
struct Hit {
    /// The source's name (its qualifier).
    qualifier: String,
    /// The same, with its quotes.
    written: Ident,
    table: String,
    column: String,
    change: ColumnChange,
    /// Another source of the same query level has a column of the new
    /// name: the rewritten reference must be qualified.
    clash: bool,
}

impl<'a> Walker<'a> {
    /// Rewrites `q` in the scope `outer` (innermost level last); returns
    /// its output names before → after. `keep_names`: the query is a
    /// derived table, whose outputs must keep the names the outer query uses.
    fn query(
        &mut self,
        q: &mut Query,
        outer: &[Level],
        keep_names: bool,
    ) -> Result<Outputs, RewriteError> {
        if q.with.is_some() {
            return Err(RewriteError::Unsupported("WITH".into()));
        }
        let (outputs, level) = self.set_expr(&mut q.body, outer, keep_names)?;
        if let Some(ob) = &mut q.order_by {
            if let OrderByKind::Expressions(items) = &mut ob.kind {
                // A SELECT: its FROM and its output aliases; a compound
                // query: ORDER BY names its outputs.
                let scopes = level.map(|l| with_level(outer, l));
                for item in items {
                    match &scopes {
                        Some(scopes) => {
                            if !is_output_alias(&item.expr, &q.body) {
                                self.expr(&mut item.expr, scopes)?;
                            }
                        }
                        None => rename_output_ref(&mut item.expr, &outputs, self.style),
                    }
                }
            }
        }
        Ok(outputs)
    }

    /// Returns the outputs and, for a plain SELECT, its FROM level.
    fn set_expr(
        &mut self,
        body: &mut SetExpr,
        outer: &[Level],
        keep_names: bool,
    ) -> Result<(Outputs, Option<Level>), RewriteError> {
        match body {
            SetExpr::Select(s) => {
                let (out, level) = self.select(s, outer, keep_names)?;
                Ok((out, Some(level)))
            }
            SetExpr::Query(q) => Ok((self.query(q, outer, keep_names)?, None)),
            SetExpr::SetOperation { left, right, .. } => {
                let (out, _) = self.set_expr(left, outer, keep_names)?;
                self.set_expr(right, outer, keep_names)?;
                Ok((out, None))
            }
            SetExpr::Values(v) => {
                for row in &mut v.rows {
                    let row = &mut row.content;
                    for e in row {
                        self.expr(e, outer)?;
                    }
                }
                Ok((Vec::new(), None))
            }
            _ => Err(RewriteError::NotAQuery),
        }
    }

    fn select(
        &mut self,
        s: &mut Select,
        outer: &[Level],
        keep_names: bool,
    ) -> Result<(Outputs, Level), RewriteError> {
        let mut level = Level::new();
        for twj in &mut s.from {
            self.table_with_joins(twj, outer, &mut level)?;
        }
        for twj in &mut s.from {
            self.check_joins(&mut twj.joins, &level)?;
        }
        let scopes = with_level(outer, level.clone());
        let mut outputs = Vec::new();
        for item in &mut s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    let before = output_name(e);
                    self.expr(e, &scopes)?;
                    let after = output_name(e);
                    match (before, after) {
                        (Some(b), Some(a)) => outputs.push((b, a)),
                        (Some(b), None) => {
                            if keep_names {
                                *item = SelectItem::ExprWithAlias {
                                    expr: e.clone(),
                                    alias: Ident::new(b.clone()),
                                };
                            }
                            outputs.push((b.clone(), b));
                        }
                        _ => {
                            let text = e.to_string();
                            outputs.push((text.clone(), text));
                        }
                    }
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    self.expr(expr, &scopes)?;
                    outputs.push((alias.value.clone(), alias.value.clone()));
                }
                SelectItem::Wildcard(_) => {
                    for src in &level {
                        outputs.extend(self.star(src)?);
                    }
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    let SelectItemQualifiedWildcardKind::ObjectName(name) = kind else {
                        return Err(RewriteError::Unsupported("qualified wildcard".into()));
                    };
                    let q = last_part(name).unwrap_or_default();
                    if let Some(src) = level.iter().find(|s| s.name.eq_ignore_ascii_case(&q)) {
                        outputs.extend(self.star(src)?);
                    }
                }
                SelectItem::ExprWithAliases { .. } => {
                    return Err(RewriteError::Unsupported("multiple aliases".into()))
                }
            }
        }
        if let Some(e) = &mut s.selection {
            self.expr(e, &scopes)?;
        }
        if let sqlparser::ast::GroupByExpr::Expressions(exprs, _) = &mut s.group_by {
            for e in exprs {
                self.expr(e, &scopes)?;
            }
        }
        if let Some(e) = &mut s.having {
            self.expr(e, &scopes)?;
        }
        for twj in &mut s.from {
            self.on_conditions(&mut twj.joins, &scopes)?;
        }
        Ok((outputs, level))
    }

    fn table_with_joins(
        &mut self,
        twj: &mut TableWithJoins,
        outer: &[Level],
        level: &mut Level,
    ) -> Result<(), RewriteError> {
        self.factor(&mut twj.relation, outer, level)?;
        for j in &mut twj.joins {
            self.factor(&mut j.relation, outer, level)?;
        }
        Ok(())
    }

    fn factor(
        &mut self,
        f: &mut TableFactor,
        outer: &[Level],
        level: &mut Level,
    ) -> Result<(), RewriteError> {
        match f {
            TableFactor::Table { name, alias, .. } => {
                let table = last_part(name).unwrap_or_default();
                let written = match (alias, name.0.last()) {
                    (Some(a), _) => a.name.clone(),
                    (None, Some(ObjectNamePart::Identifier(i))) => i.clone(),
                    _ => Ident::new(table.clone()),
                };
                let kind = match self.schema.table(&table) {
                    Some((exact, _)) => SourceKind::Base(exact.clone()),
                    None => SourceKind::Opaque,
                };
                level.push(Source {
                    name: written.value.clone(),
                    written,
                    kind,
                });
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let outputs = self.query(subquery, outer, true)?;
                let written = alias
                    .as_ref()
                    .map(|a| a.name.clone())
                    .unwrap_or_else(|| Ident::new(""));
                level.push(Source {
                    name: written.value.clone(),
                    written,
                    kind: SourceKind::Derived(outputs),
                });
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                if alias.is_some() {
                    return Err(RewriteError::Unsupported("aliased nested join".into()));
                }
                self.table_with_joins(table_with_joins, outer, level)?;
                self.check_joins(&mut table_with_joins.joins, level)?;
                let scopes = with_level(outer, level.clone());
                self.on_conditions(&mut table_with_joins.joins, &scopes)?;
            }
            _ => return Err(RewriteError::Unsupported("table factor".into())),
        }
        Ok(())
    }

    /// `ON` conditions of `joins`, rewritten: they see the whole FROM
    /// level (the last of `scopes`).
    fn on_conditions(&mut self, joins: &mut [Join], scopes: &[Level]) -> Result<(), RewriteError> {
        for j in joins {
            if let Some(JoinConstraint::On(e)) = constraint_mut(&mut j.join_operator) {
                self.expr(e, scopes)?;
            }
        }
        Ok(())
    }

    /// `USING` / `NATURAL` over a changed column would change the join:
    /// refused. (`joins` is only read; the one constraint accessor takes
    /// it mutably.)
    fn check_joins(&self, joins: &mut [Join], level: &Level) -> Result<(), RewriteError> {
        for j in joins {
            if let Some(c) = constraint_mut(&mut j.join_operator) {
                self.check_join(c, level)?;
            }
        }
        Ok(())
    }

    fn check_join(&self, c: &JoinConstraint, level: &Level) -> Result<(), RewriteError> {
        match c {
            JoinConstraint::Using(cols) => {
                for c in cols {
                    let c = last_part(c).unwrap_or_default();
                    if level.iter().any(|s| self.changed_in(s, &c)) {
                        return Err(RewriteError::Unsupported(format!("USING ({c})")));
                    }
                }
                Ok(())
            }
            JoinConstraint::Natural => {
                let any_change = level.iter().any(|s| match &s.kind {
                    SourceKind::Base(t) => self.schema.table(t).is_some_and(|(_, cols)| {
                        cols.iter().any(|c| self.schema.get(t, c).is_some())
                    }),
                    _ => false,
                });
                if any_change {
                    return Err(RewriteError::Unsupported("NATURAL JOIN".into()));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn changed_in(&self, src: &Source, column: &str) -> bool {
        match &src.kind {
            SourceKind::Base(t) => self.schema.get(t, column).is_some(),
            _ => false,
        }
    }

    /// The outputs of `*` over one source.
    fn star(&self, src: &Source) -> Result<Outputs, RewriteError> {
        match &src.kind {
            SourceKind::Base(t) => {
                let (_, cols) = self
                    .schema
                    .table(t)
                    .expect("a base source is in the schema");
                if cols
                    .iter()
                    .any(|c| matches!(self.schema.get(t, c), Some(ColumnChange::Replace { .. })))
                {
                    return Err(RewriteError::Unsupported(format!(
                        "SELECT * over {t}, whose columns are replaced"
                    )));
                }
                Ok(cols.iter().cloned().zip(self.schema.new_names(t)).collect())
            }
            SourceKind::Derived(outs) => Ok(outs.clone()),
            SourceKind::Opaque => Ok(Vec::new()),
        }
    }

    /// Rewrites one expression in `scopes`; subqueries get their own level.
    fn expr(&mut self, e: &mut Expr, scopes: &[Level]) -> Result<(), RewriteError> {
        let mut v = ExprVisitor {
            walker: self,
            scopes,
            depth: 0,
        };
        match e.visit(&mut v) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(err) => Err(err),
        }
    }

    /// Resolves a column reference, `parts` = `[column]` or
    /// `[qualifier, column]`.
    fn resolve(&self, parts: &[Ident], scopes: &[Level]) -> Result<Option<Resolved>, RewriteError> {
        match parts {
            [col] => {
                for level in scopes.iter().rev() {
                    let hits: Vec<&Source> = level
                        .iter()
                        .filter(|s| self.has_column(s, &col.value))
                        .collect();
                    match hits.len() {
                        0 => continue,
                        1 => return Ok(Some(self.resolved(hits[0], &col.value, level))),
                        _ => {
                            if hits.iter().any(|s| self.changed_in(s, &col.value)) {
                                return Err(RewriteError::Ambiguous(col.value.clone()));
                            }
                            return Ok(None);
                        }
                    }
                }
                Ok(None)
            }
            [q, col] => {
                for level in scopes.iter().rev() {
                    if let Some(src) = level.iter().find(|s| s.name.eq_ignore_ascii_case(&q.value))
                    {
                        return Ok(Some(self.resolved(src, &col.value, level)));
                    }
                }
                Ok(None)
            }
            _ => {
                let mentioned = parts.last().is_some_and(|c| {
                    self.schema
                        .changes
                        .keys()
                        .any(|(_, col)| col.eq_ignore_ascii_case(&c.value))
                });
                if mentioned {
                    Err(RewriteError::Unsupported("three-part column name".into()))
                } else {
                    Ok(None)
                }
            }
        }
    }

    fn has_column(&self, src: &Source, column: &str) -> bool {
        match &src.kind {
            SourceKind::Base(t) => self
                .schema
                .table(t)
                .is_some_and(|(_, cols)| cols.iter().any(|c| c.eq_ignore_ascii_case(column))),
            SourceKind::Derived(outs) => outs.iter().any(|(b, _)| b.eq_ignore_ascii_case(column)),
            SourceKind::Opaque => false,
        }
    }

    fn resolved(&self, src: &Source, column: &str, level: &Level) -> Resolved {
        match &src.kind {
            SourceKind::Base(t) => match self.schema.get(t, column) {
                Some(change) => {
                    let (_, cols) = self.schema.table(t).expect("in the schema");
                    let exact = cols
                        .iter()
                        .find(|c| c.eq_ignore_ascii_case(column))
                        .cloned()
                        .unwrap_or_else(|| column.to_string());
                    let new_name = match change {
                        ColumnChange::Rename { to } => Some(to.as_str()),
                        ColumnChange::Replace { .. } => None,
                    };
                    let clash = new_name.is_some_and(|n| {
                        level.iter().any(|o| {
                            !std::ptr::eq(o, src)
                                && match &o.kind {
                                    SourceKind::Base(ot) => self
                                        .schema
                                        .new_names(ot)
                                        .iter()
                                        .chain(
                                            self.schema
                                                .table(ot)
                                                .map(|x| &x.1)
                                                .into_iter()
                                                .flatten(),
                                        )
                                        .any(|c| c.eq_ignore_ascii_case(n)),
                                    SourceKind::Derived(outs) => {
                                        outs.iter().any(|(_, a)| a.eq_ignore_ascii_case(n))
                                    }
                                    SourceKind::Opaque => true,
                                }
                        })
                    });
                    Resolved::Changed(Hit {
                        qualifier: src.name.clone(),
                        written: src.written.clone(),
                        table: t.clone(),
                        column: exact,
                        change: change.clone(),
                        clash,
                    })
                }
                // Unchanged, but another source of the level now has a
                // column of this name: a bare reference must be qualified.
                None => {
                    let now_clashes = level.iter().any(|o| {
                        !std::ptr::eq(o, src)
                            && match &o.kind {
                                SourceKind::Base(ot) => self
                                    .schema
                                    .new_names(ot)
                                    .iter()
                                    .any(|c| c.eq_ignore_ascii_case(column)),
                                _ => false,
                            }
                    });
                    if now_clashes {
                        Resolved::Qualify(src.written.clone())
                    } else {
                        Resolved::Unchanged
                    }
                }
            },
            SourceKind::Derived(outs) => {
                match outs.iter().find(|(b, _)| b.eq_ignore_ascii_case(column)) {
                    Some((b, a)) if b != a => Resolved::DerivedRename(a.clone()),
                    _ => Resolved::Unchanged,
                }
            }
            SourceKind::Opaque => Resolved::Unchanged,
        }
    }

    fn touch(&mut self, hit: &Hit) {
        let name = format!("{}.{}", hit.table, hit.column);
        if !self.touched.contains(&name) {
            self.touched.push(name);
        }
    }
}

enum Resolved {
    Unchanged,
    Changed(Hit),
    /// A derived table's output that was renamed inside it.
    DerivedRename(String),
    /// An unchanged column whose bare name a rename made ambiguous (its
    /// source as written).
    Qualify(Ident),
}

struct ExprVisitor<'w, 'a, 's> {
    walker: &'w mut Walker<'a>,
    scopes: &'s [Level],
    /// Inside a subquery already rewritten with its own scope.
    depth: usize,
}

impl VisitorMut for ExprVisitor<'_, '_, '_> {
    type Break = RewriteError;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<RewriteError> {
        if self.depth == 0 {
            if let Err(e) = self.walker.query(query, self.scopes, false) {
                return ControlFlow::Break(e);
            }
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<RewriteError> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<RewriteError> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        // `column = literal` / `column <> literal` with a simpler form.
        if let Expr::BinaryOp { left, op, right } = expr {
            let negated = match op {
                BinaryOperator::Eq => false,
                BinaryOperator::NotEq => true,
                _ => return ControlFlow::Continue(()),
            };
            let (col, lit) = match (column_parts(left), literal(right)) {
                (Some(c), Some(l)) => (c, l),
                _ => match (column_parts(right), literal(left)) {
                    (Some(c), Some(l)) => (c, l),
                    _ => return ControlFlow::Continue(()),
                },
            };
            let resolved = match self.walker.resolve(&col, self.scopes) {
                Ok(r) => r,
                Err(e) => return ControlFlow::Break(e),
            };
            if let Some(Resolved::Changed(hit)) = resolved {
                if let ColumnChange::Replace { equal, .. } = &hit.change {
                    let form = equal
                        .iter()
                        .find(|(l, _, _)| *l == lit)
                        .and_then(|(_, eq, ne)| {
                            if negated {
                                ne.clone()
                            } else {
                                Some(eq.clone())
                            }
                        });
                    if let Some(template) = form {
                        match instantiate(&template, &hit.qualifier) {
                            Ok(new) => {
                                self.walker.touch(&hit);
                                *expr = new;
                            }
                            Err(e) => return ControlFlow::Break(e),
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<RewriteError> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let Some(parts) = column_parts(expr) else {
            return ControlFlow::Continue(());
        };
        let resolved = match self.walker.resolve(&parts, self.scopes) {
            Ok(r) => r,
            Err(e) => return ControlFlow::Break(e),
        };
        match resolved {
            None | Some(Resolved::Unchanged) => {}
            Some(Resolved::Qualify(q)) => {
                if let [col] = parts.as_slice() {
                    let q = self.walker.style.qualifier(&q);
                    *expr = Expr::CompoundIdentifier(vec![q, col.clone()]);
                }
            }
            Some(Resolved::DerivedRename(to)) => set_last(expr, &to, self.walker.style),
            Some(Resolved::Changed(hit)) => {
                self.walker.touch(&hit);
                match &hit.change {
                    ColumnChange::Rename { to } => {
                        let style = self.walker.style;
                        if hit.clash && parts.len() == 1 {
                            let q = if style.as_written {
                                hit.written.clone()
                            } else {
                                Ident::new(hit.qualifier.clone())
                            };
                            *expr = Expr::CompoundIdentifier(vec![q, style.ident(to)]);
                        } else {
                            set_last(expr, to, style);
                        }
                    }
                    ColumnChange::Replace { template, .. } => {
                        match instantiate(template, &hit.qualifier) {
                            Ok(new) => *expr = new,
                            Err(e) => return ControlFlow::Break(e),
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// An identifier for `name`, quoted when it is not a plain word.
fn ident(name: &str) -> Ident {
    Style::SQLITE.ident(name)
}

fn set_last(expr: &mut Expr, to: &str, style: Style) {
    let target = match expr {
        Expr::Identifier(i) => i,
        Expr::CompoundIdentifier(parts) => match parts.last_mut() {
            Some(i) => i,
            None => return,
        },
        _ => return,
    };
    let quote = target.quote_style;
    *target = style.ident(to);
    if target.quote_style.is_none() && quote.is_some() {
        target.quote_style = quote;
    }
}

/// `template` with `{t}` replaced by the quoted qualifier and a dot, parsed.
fn instantiate(template: &str, qualifier: &str) -> Result<Expr, RewriteError> {
    let q = if qualifier.is_empty() {
        String::new()
    } else {
        format!("{}.", ident(qualifier))
    };
    let text = template.replace("{t}", &q);
    let sql = format!("SELECT ({text})");
    let mut stmts = parse_bounded(&SQLiteDialect {}, &sql)
        .map_err(|e| RewriteError::Unsupported(format!("replacement `{text}`: {e}")))?;
    if let Some(Statement::Query(q)) = stmts.pop() {
        if let SetExpr::Select(s) = *q.body {
            if let Some(SelectItem::UnnamedExpr(e)) = s.projection.into_iter().next() {
                // Parenthesised once, whatever the template holds.
                return Ok(match e {
                    Expr::Nested(inner) if matches!(*inner, Expr::Nested(_)) => *inner,
                    e => e,
                });
            }
        }
    }
    Err(RewriteError::Unsupported(format!("replacement `{text}`")))
}

fn column_parts(e: &Expr) -> Option<Vec<Ident>> {
    match e {
        Expr::Identifier(i) => Some(vec![i.clone()]),
        Expr::CompoundIdentifier(parts) => Some(parts.clone()),
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<Literal> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(Literal::Text(s.clone())),
            Value::Number(n, _) => n.to_string().parse().ok().map(Literal::Int),
            _ => None,
        },
        Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Int(i) => Some(Literal::Int(-i)),
            Literal::Text(_) => None,
        },
        _ => None,
    }
}

/// The name SQLite gives an unaliased output column that is a column
/// reference (its column name), `None` for other expressions.
fn output_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Identifier(i) => Some(i.value.clone()),
        Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.clone()),
        _ => None,
    }
}

/// The last part of a (possibly qualified) table name.
pub(crate) fn last_part(name: &ObjectName) -> Option<String> {
    match name.0.last()? {
        ObjectNamePart::Identifier(i) => Some(i.value.clone()),
        ObjectNamePart::Function(_) => None,
    }
}

/// `ORDER BY name` naming an output alias of a SELECT body (SQLite looks
/// for an alias first).
pub(crate) fn is_output_alias(e: &Expr, body: &SetExpr) -> bool {
    let (Expr::Identifier(i), SetExpr::Select(s)) = (e, body) else {
        return false;
    };
    s.projection.iter().any(|item| match item {
        SelectItem::ExprWithAlias { alias, .. } => alias.value.eq_ignore_ascii_case(&i.value),
        _ => false,
    })
}

/// `ORDER BY name` of a compound query: the renamed output's new name.
fn rename_output_ref(e: &mut Expr, outputs: &[(String, String)], style: Style) {
    if let Expr::Identifier(i) = e {
        if let Some((_, after)) = outputs
            .iter()
            .find(|(b, _)| b.eq_ignore_ascii_case(&i.value))
        {
            if after != &i.value {
                let to = after.clone();
                set_last(e, &to, style);
            }
        }
    }
}

/// `outer` with one more (innermost) level.
fn with_level(outer: &[Level], level: Level) -> Vec<Level> {
    let mut scopes = outer.to_vec();
    scopes.push(level);
    scopes
}

fn constraint_mut(op: &mut JoinOperator) -> Option<&mut JoinConstraint> {
    use JoinOperator::*;
    match op {
        Join(c) | Inner(c) | Left(c) | LeftOuter(c) | Right(c) | RightOuter(c) | FullOuter(c)
        | CrossJoin(c) | Semi(c) | LeftSemi(c) | RightSemi(c) | Anti(c) | LeftAnti(c)
        | RightAnti(c) | StraightJoin(c) => Some(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn singer() -> SchemaChange {
        SchemaChange::new(vec![
            (
                "singer".into(),
                vec![
                    "Singer_ID".into(),
                    "Name".into(),
                    "Country".into(),
                    "Age".into(),
                    "Is_male".into(),
                ],
            ),
            (
                "concert".into(),
                vec![
                    "concert_ID".into(),
                    "concert_Name".into(),
                    "Stadium_ID".into(),
                    "Year".into(),
                ],
            ),
            (
                "singer_in_concert".into(),
                vec!["concert_ID".into(), "Singer_ID".into()],
            ),
        ])
    }

    fn rename(s: &mut SchemaChange, t: &str, c: &str, to: &str) {
        s.change(t, c, ColumnChange::Rename { to: to.into() });
    }

    #[test]
    fn renames_bare_and_qualified_references() {
        let mut s = singer();
        rename(&mut s, "singer", "Country", "Nation");
        let r = s
            .rewrite("SELECT name, country FROM singer WHERE T.x = 1 OR country = 'France' ORDER BY country", &sqlite())
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT name, Nation FROM singer WHERE T.x = 1 OR Nation = 'France' ORDER BY Nation"
        );
        assert_eq!(r.touched, vec!["singer.Country"]);
        let r = s
            .rewrite("SELECT T1.Country FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id", &sqlite())
            .unwrap();
        assert!(r.sql.starts_with("SELECT T1.Nation FROM"), "{}", r.sql);
    }

    #[test]
    fn untouched_queries_report_nothing() {
        let mut s = singer();
        rename(&mut s, "singer", "Country", "Nation");
        let r = s
            .rewrite("SELECT count(*) FROM concert WHERE Year = 2014", &sqlite())
            .unwrap();
        assert!(r.touched.is_empty());
    }

    #[test]
    fn a_name_of_another_table_is_not_renamed() {
        let mut s = singer();
        rename(&mut s, "concert", "concert_ID", "show_id");
        let r = s
            .rewrite("SELECT T2.concert_ID FROM concert AS T1 JOIN singer_in_concert AS T2 ON T1.concert_ID = T2.concert_ID", &sqlite())
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT T2.concert_ID FROM concert AS T1 JOIN singer_in_concert AS T2 ON T1.show_id = T2.concert_ID"
        );
    }

    #[test]
    fn subqueries_resolve_in_their_own_scope_and_outwards() {
        let mut s = singer();
        rename(&mut s, "singer", "Age", "years");
        let r = s
            .rewrite(
                "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
                &sqlite(),
            )
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT name FROM singer WHERE years > (SELECT avg(years) FROM singer)"
        );
        // A correlated reference to the outer table.
        let r = s
            .rewrite("SELECT name FROM singer AS S WHERE EXISTS (SELECT 1 FROM concert WHERE Year > S.age)", &sqlite())
            .unwrap();
        assert!(r.sql.contains("Year > S.years"), "{}", r.sql);
    }

    #[test]
    fn derived_tables_keep_the_names_outer_queries_use() {
        let mut s = singer();
        rename(&mut s, "singer", "Country", "Nation");
        let r = s
            .rewrite(
                "SELECT T.country FROM (SELECT country FROM singer) AS T ORDER BY T.country",
                &sqlite(),
            )
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT T.Nation FROM (SELECT Nation FROM singer) AS T ORDER BY T.Nation"
        );
        s.change(
            "singer",
            "Age",
            ColumnChange::Replace {
                template: "(2024 - {t}birth_year)".into(),
                equal: vec![],
            },
        );
        let r = s
            .rewrite("SELECT T.age FROM (SELECT age FROM singer) AS T", &sqlite())
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT T.age FROM (SELECT (2024 - singer.birth_year) AS age FROM singer) AS T"
        );
    }

    #[test]
    fn compound_queries_and_their_order_by() {
        let mut s = singer();
        rename(&mut s, "singer", "Country", "Nation");
        let r = s
            .rewrite("SELECT country FROM singer UNION SELECT concert_name FROM concert ORDER BY country", &sqlite())
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT Nation FROM singer UNION SELECT concert_name FROM concert ORDER BY Nation"
        );
    }

    #[test]
    fn replacements_and_their_simple_comparisons() {
        let mut s = singer();
        s.change(
            "singer",
            "Is_male",
            ColumnChange::Replace {
                template: "CASE {t}male WHEN 'yes' THEN 'T' WHEN 'no' THEN 'F' END".into(),
                equal: vec![(
                    Literal::Text("T".into()),
                    "{t}male = 'yes'".into(),
                    Some("{t}male <> 'yes'".into()),
                )],
            },
        );
        let r = s
            .rewrite("SELECT name, is_male FROM singer AS T1 WHERE T1.is_male = 'T' OR is_male != 'T' OR is_male = 'X'", &sqlite())
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT name, (CASE T1.male WHEN 'yes' THEN 'T' WHEN 'no' THEN 'F' END) FROM singer AS T1 \
             WHERE (T1.male = 'yes') OR (T1.male <> 'yes') OR (CASE T1.male WHEN 'yes' THEN 'T' WHEN 'no' THEN 'F' END) = 'X'"
        );
    }

    #[test]
    fn refuses_what_it_cannot_rewrite_with_certainty() {
        let mut s = singer();
        s.change(
            "singer",
            "Age",
            ColumnChange::Replace {
                template: "(2024 - {t}birth_year)".into(),
                equal: vec![],
            },
        );
        assert!(matches!(
            s.rewrite("SELECT * FROM singer", &sqlite()),
            Err(RewriteError::Unsupported(_))
        ));
        // count(*) is not a star over the columns.
        assert!(s
            .rewrite("SELECT count(*) FROM singer WHERE age > 3", &sqlite())
            .is_ok());
        let mut s = singer();
        rename(&mut s, "singer", "Singer_ID", "sid");
        assert!(matches!(
            s.rewrite(
                "SELECT singer_id FROM singer JOIN singer_in_concert USING (singer_id)",
                &sqlite()
            ),
            Err(RewriteError::Unsupported(_))
        ));
        assert!(matches!(
            s.rewrite("SELECT singer_id FROM singer, singer_in_concert", &sqlite()),
            Err(RewriteError::Ambiguous(_))
        ));
    }

    #[test]
    fn an_unchanged_name_a_rename_made_ambiguous_is_qualified() {
        let mut s = singer();
        rename(&mut s, "concert", "concert_Name", "Name");
        let r = s
            .rewrite("SELECT name, concert_name FROM singer JOIN concert ON singer.singer_id = concert.concert_id", &sqlite())
            .unwrap();
        assert!(
            r.sql.starts_with("SELECT singer.name, concert.Name FROM"),
            "{}",
            r.sql
        );
    }

    #[test]
    fn a_new_name_that_clashes_in_the_join_is_qualified() {
        let mut s = singer();
        rename(&mut s, "singer", "Name", "concert_Name");
        let r = s
            .rewrite(
                "SELECT name FROM singer AS A JOIN concert AS B ON A.singer_id = B.concert_id",
                &sqlite(),
            )
            .unwrap();
        assert!(r.sql.starts_with("SELECT A.concert_Name FROM"), "{}", r.sql);
    }

    fn dialect(kind: sqlwitness_core::EngineKind) -> sqlwitness_dialect::Dialect {
        sqlwitness_dialect::builtin(kind)
    }

    fn sqlite() -> sqlwitness_dialect::Dialect {
        dialect(sqlwitness_core::EngineKind::Sqlite)
    }

    #[test]
    fn a_postgres_gold_is_read_in_its_dialect_and_quoted_for_it() {
        let mut s = singer();
        rename(&mut s, "singer", "Name", "FullName");
        rename(&mut s, "singer", "Age", "years");
        let pg = dialect(sqlwitness_core::EngineKind::Postgres);
        // `::` and `ILIKE` are PostgreSQL's; the new name with an upper-case
        // letter is quoted (the migrated column keeps its case).
        let r = s
            .rewrite(
                "SELECT \"Name\", age::text FROM singer WHERE country ILIKE 'f%'",
                &pg,
            )
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT \"FullName\", years::TEXT FROM singer WHERE country ILIKE 'f%'"
        );
        assert_eq!(r.touched, ["singer.Name", "singer.Age"]);
        // SQLite's reading is unchanged: the new name is a plain word.
        let r = s.rewrite("SELECT name FROM singer", &sqlite()).unwrap();
        assert_eq!(r.sql, "SELECT FullName FROM singer");
    }

    #[test]
    fn a_mysql_gold_keeps_its_backticks_and_quotes_with_them() {
        let mut s = singer();
        rename(&mut s, "singer", "Name", "full name");
        let my = dialect(sqlwitness_core::EngineKind::Mysql);
        let r = s
            .rewrite("SELECT `Name`, name FROM `singer` WHERE age > 20", &my)
            .unwrap();
        assert_eq!(
            r.sql,
            "SELECT `full name`, `full name` FROM `singer` WHERE age > 20"
        );
    }

    #[test]
    fn a_qualifier_added_on_a_server_is_written_as_its_from_item() {
        let mut s = singer();
        rename(&mut s, "concert", "concert_Name", "Name");
        let pg = dialect(sqlwitness_core::EngineKind::Postgres);
        let r = s
            .rewrite("SELECT name FROM Singer JOIN concert ON true", &pg)
            .unwrap();
        // `Singer` unquoted names the table `singer` there: not `"Singer"`.
        assert!(r.sql.starts_with("SELECT Singer.name FROM"), "{}", r.sql);
    }

    #[test]
    fn a_replacement_is_refused_outside_sqlite() {
        let mut s = singer();
        s.change(
            "singer",
            "Age",
            ColumnChange::Replace {
                template: "(2024 - {t}birth_year)".into(),
                equal: Vec::new(),
            },
        );
        let pg = dialect(sqlwitness_core::EngineKind::Postgres);
        let e = s.rewrite("SELECT age FROM singer", &pg).unwrap_err();
        assert!(matches!(e, RewriteError::Unsupported(_)), "{e}");
    }
}
