//! The tables of one SELECT block, column resolution, and functional
//! dependencies: which columns a set of columns determines.
//!
//! The closure is the textbook one (Armstrong's axioms restricted to what
//! the schema states): start from the given columns and every column equated
//! with a constant in WHERE/ON; add a column equated with a determined one
//! (`a = b` conjuncts of WHERE and inner-join ON); when a table's primary
//! key or a unique constraint is determined, all of its columns are.

use std::collections::BTreeSet;

use sqlparser::ast::{
    BinaryOperator, Expr, JoinConstraint, JoinOperator, Select, TableFactor, TableWithJoins,
};

use sqlwitness_sql::{as_col_ref, conjuncts, is_constant, ColRef, SchemaInfo, TableInfo};

/// A resolved column: the index of its table in the scope and its name
/// (lower case).
pub(crate) type Col = (usize, String);

pub(crate) struct ScopeTable<'s> {
    /// The name the block uses for it (alias or table name), lower case.
    pub name: String,
    pub info: Option<&'s TableInfo>,
}

pub(crate) struct Scope<'s> {
    pub tables: Vec<ScopeTable<'s>>,
    /// Column pairs equated by WHERE or inner-join ON conjuncts.
    pub equalities: Vec<(Col, Col)>,
    /// Columns equated with a constant.
    pub constants: BTreeSet<Col>,
    /// True when some FROM item is not a plain table (derived table,
    /// function): its keys are unknown.
    pub has_opaque: bool,
}

/// Resolution of a column reference.
pub(crate) enum Resolved {
    Col(Col),
    /// Not a column of this block: an outer (correlated) reference, constant
    /// for the block.
    Outer,
    /// Ambiguous or unknown within the block.
    Unknown,
}

impl<'s> Scope<'s> {
    pub fn new(select: &Select, schema: &'s SchemaInfo) -> Scope<'s> {
        let mut scope = Scope {
            tables: Vec::new(),
            equalities: Vec::new(),
            constants: BTreeSet::new(),
            has_opaque: false,
        };
        let mut predicates: Vec<&Expr> = Vec::new();
        for twj in &select.from {
            scope.add_twj(twj, schema, &mut predicates);
        }
        if let Some(w) = &select.selection {
            conjuncts(w, &mut predicates);
        }
        for p in predicates {
            if let Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } = p
            {
                let l = as_col_ref(left).map(|c| scope.resolve(&c));
                let r = as_col_ref(right).map(|c| scope.resolve(&c));
                match (l, r) {
                    (Some(Resolved::Col(a)), Some(Resolved::Col(b))) => {
                        scope.equalities.push((a, b))
                    }
                    (Some(Resolved::Col(a)), Some(Resolved::Outer))
                    | (Some(Resolved::Outer), Some(Resolved::Col(a))) => {
                        scope.constants.insert(a);
                    }
                    (Some(Resolved::Col(a)), None) if is_constant(right) => {
                        scope.constants.insert(a);
                    }
                    (None, Some(Resolved::Col(b))) if is_constant(left) => {
                        scope.constants.insert(b);
                    }
                    _ => {}
                }
            }
        }
        scope
    }

    fn add_twj<'a>(
        &mut self,
        twj: &'a TableWithJoins,
        schema: &'s SchemaInfo,
        predicates: &mut Vec<&'a Expr>,
    ) {
        self.add_factor(&twj.relation, schema);
        for j in &twj.joins {
            self.add_factor(&j.relation, schema);
            // Only inner joins' ON conditions filter the result as WHERE does.
            let c = match &j.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => {
                    Some(c)
                }
                _ => None,
            };
            if let Some(JoinConstraint::On(e)) = c {
                conjuncts(e, predicates);
            }
        }
    }

    fn add_factor(&mut self, f: &TableFactor, schema: &'s SchemaInfo) {
        match f {
            TableFactor::Table {
                name, alias, args, ..
            } if args.is_none() => {
                let tname = name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.clone())
                    .unwrap_or_default();
                let info = schema.table(&tname);
                let used = alias
                    .as_ref()
                    .map(|a| a.name.value.clone())
                    .unwrap_or(tname);
                self.tables.push(ScopeTable {
                    name: used.to_ascii_lowercase(),
                    info,
                });
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                let mut ignored = Vec::new();
                self.add_twj(table_with_joins, schema, &mut ignored);
            }
            other => {
                self.has_opaque = true;
                let name = match other {
                    TableFactor::Derived { alias: Some(a), .. } => {
                        a.name.value.to_ascii_lowercase()
                    }
                    _ => String::new(),
                };
                self.tables.push(ScopeTable { name, info: None });
            }
        }
    }

    pub fn resolve(&self, c: &ColRef) -> Resolved {
        let name = c.name.to_ascii_lowercase();
        match &c.qualifier {
            Some(q) => {
                let q = q.to_ascii_lowercase();
                match self.tables.iter().position(|t| t.name == q) {
                    Some(i) => Resolved::Col((i, name)),
                    None => Resolved::Outer,
                }
            }
            None => {
                let hits: Vec<usize> = self
                    .tables
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.info.is_some_and(|i| i.has_column(&name)))
                    .map(|(i, _)| i)
                    .collect();
                match hits.as_slice() {
                    [i] => Resolved::Col((*i, name)),
                    [] if self.has_opaque || self.tables.iter().any(|t| t.info.is_none()) => {
                        Resolved::Unknown
                    }
                    [] => Resolved::Outer,
                    _ => Resolved::Unknown,
                }
            }
        }
    }

    /// Every column the given columns determine (see the module comment).
    pub fn closure(&self, seed: impl IntoIterator<Item = Col>) -> BTreeSet<Col> {
        let mut d: BTreeSet<Col> = seed.into_iter().collect();
        d.extend(self.constants.iter().cloned());
        loop {
            let before = d.len();
            for (a, b) in &self.equalities {
                if d.contains(a) {
                    d.insert(b.clone());
                }
                if d.contains(b) {
                    d.insert(a.clone());
                }
            }
            for (i, t) in self.tables.iter().enumerate() {
                let Some(info) = t.info else { continue };
                let keyed = info
                    .keys()
                    .any(|k| k.iter().all(|c| d.contains(&(i, c.to_ascii_lowercase()))));
                if keyed {
                    for c in &info.columns {
                        d.insert((i, c.to_ascii_lowercase()));
                    }
                }
            }
            if d.len() == before {
                return d;
            }
        }
    }

    /// Is the column reference determined by `d`? Outer references are
    /// constants of the block; unknown ones are not determined.
    pub fn determined(&self, c: &ColRef, d: &BTreeSet<Col>) -> bool {
        match self.resolve(c) {
            Resolved::Col(col) => d.contains(&col),
            Resolved::Outer => true,
            Resolved::Unknown => false,
        }
    }
}
