//! Sub-clauses of a query and the Q-MATCH of the SCF calibration paper
//! (Appendix B, Algorithms 2 and 3), from which `sqlwitness-score` computes
//! sub-clause frequencies.
//!
//! A query is read as a tree (Figure 5): its top-level set operation
//! (`NONE`, `UNION`, `INTERSECT`, `EXCEPT`) and the two sub-queries below it
//! (for a query without a set operation: the query itself and `NONE`). Each
//! sub-query is the list of `SELECT` blocks at the leaves of its own tree,
//! each cut into the nine sub-clauses of the paper: DISTINCT, SELECT, FROM,
//! ON, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT. A sub-clause of two
//! sub-queries matches when its text (sqlparser's normalised rendering) is
//! the same at every corresponding leaf.
//!
//! Where the paper's SQLGlot tree and sqlparser's differ: `ORDER BY` and
//! `LIMIT` of a whole set operation (`… UNION … ORDER BY x`) belong to the
//! set-operation node, so they are part of the set-operation signal here.

use sqlparser::ast::{
    Distinct, GroupByExpr, JoinConstraint, JoinOperator, Query, Select, SetExpr, SetOperator,
    SetQuantifier, Statement,
};
use sqlparser::dialect::SQLiteDialect;

/// The sub-clause types of the SCF calibration paper, Appendix B, in order.
pub const CLAUSE_TYPES: [&str; 9] = [
    "DISTINCT", "SELECT", "FROM", "ON", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT",
];

/// Q-MATCH indicators: set operation, then nine a sub-query.
pub const QMATCH_SIGNALS: usize = 19;

/// One `SELECT` block: the text of each of the nine sub-clauses (empty when
/// absent).
pub type Leaf = [String; 9];

/// The parsed tree of one query at the depth the paper matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryClauses {
    /// `NONE`, `UNION`, `UNION ALL`, `INTERSECT`, `EXCEPT`, plus the
    /// set operation's own ORDER BY/LIMIT.
    pub set_op: String,
    /// Sub-queries 1 and 2; `None` is the paper's `NONE`.
    pub sub: [Option<Vec<Leaf>>; 2],
}

/// The clauses of `sql` (SQLite dialect); `None` when it does not parse as
/// one query.
pub fn query_clauses(sql: &str) -> Option<QueryClauses> {
    let stmts = crate::parse_bounded(&SQLiteDialect {}, sql).ok()?;
    let [Statement::Query(q)] = stmts.as_slice() else {
        return None;
    };
    let tail = order_limit(q);
    match q.body.as_ref() {
        SetExpr::SetOperation {
            op,
            set_quantifier,
            left,
            right,
        } => {
            let mut set_op = set_op_name(*op, *set_quantifier);
            if !tail.0.is_empty() {
                set_op.push_str(&format!(" {}", tail.0));
            }
            if !tail.1.is_empty() {
                set_op.push_str(&format!(" {}", tail.1));
            }
            Some(QueryClauses {
                set_op,
                sub: [Some(leaves(left)), Some(leaves(right))],
            })
        }
        body => {
            let mut l = leaves(body);
            if let [only] = l.as_mut_slice() {
                if only[7].is_empty() {
                    only[7] = tail.0;
                }
                if only[8].is_empty() {
                    only[8] = tail.1;
                }
            }
            Some(QueryClauses {
                set_op: "NONE".into(),
                sub: [Some(l), None],
            })
        }
    }
}

fn set_op_name(op: SetOperator, q: SetQuantifier) -> String {
    let name = match op {
        SetOperator::Union => "UNION",
        SetOperator::Intersect => "INTERSECT",
        SetOperator::Except | SetOperator::Minus => "EXCEPT",
    };
    match q {
        SetQuantifier::All => format!("{name} ALL"),
        _ => name.to_string(),
    }
}

fn order_limit(q: &Query) -> (String, String) {
    (
        q.order_by
            .as_ref()
            .map(|o| o.to_string())
            .unwrap_or_default(),
        q.limit_clause
            .as_ref()
            .map(|l| l.to_string().trim().to_string())
            .unwrap_or_default(),
    )
}

/// The SELECT blocks at the leaves of `body`, left to right.
fn leaves(body: &SetExpr) -> Vec<Leaf> {
    match body {
        SetExpr::Select(s) => vec![leaf(s, ("".into(), "".into()))],
        SetExpr::Query(q) => match q.body.as_ref() {
            SetExpr::Select(s) => vec![leaf(s, order_limit(q))],
            other => leaves(other),
        },
        SetExpr::SetOperation { left, right, .. } => {
            let mut v = leaves(left);
            v.extend(leaves(right));
            v
        }
        other => vec![std::array::from_fn(|i| {
            if i == 1 {
                other.to_string()
            } else {
                String::new()
            }
        })],
    }
}

fn join<T: ToString>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items
        .into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

fn leaf(s: &Select, (order_by, limit): (String, String)) -> Leaf {
    let distinct = match &s.distinct {
        Some(Distinct::Distinct) => "DISTINCT".to_string(),
        Some(d @ Distinct::On(_)) => d.to_string(),
        _ => String::new(),
    };
    let mut from = Vec::new();
    let mut on = Vec::new();
    for twj in &s.from {
        from.push(twj.relation.to_string());
        for j in &twj.joins {
            from.push(j.relation.to_string());
            let c = match &j.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c)
                | JoinOperator::CrossJoin(c) => Some(c),
                _ => None,
            };
            match c {
                Some(JoinConstraint::On(e)) => on.push(e.to_string()),
                Some(JoinConstraint::Using(cols)) => {
                    on.push(format!("USING({})", join(cols, ", ")))
                }
                Some(JoinConstraint::Natural) => on.push("NATURAL".into()),
                _ => {}
            }
        }
    }
    let group_by = match &s.group_by {
        GroupByExpr::Expressions(e, _) => join(e, ", "),
        GroupByExpr::All(_) => "ALL".into(),
    };
    [
        distinct,
        join(&s.projection, ", "),
        from.join(", "),
        on.join(" AND "),
        s.selection
            .as_ref()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        group_by,
        s.having.as_ref().map(|e| e.to_string()).unwrap_or_default(),
        order_by,
        limit,
    ]
}

/// Algorithm 3, SQ-MATCH: nine indicators for two sub-queries.
fn sq_match(a: &Option<Vec<Leaf>>, b: &Option<Vec<Leaf>>) -> [bool; 9] {
    match (a, b) {
        (None, None) => [true; 9],
        (None, Some(_)) | (Some(_), None) => [false; 9],
        (Some(a), Some(b)) => std::array::from_fn(|c| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x[c] == y[c])
        }),
    }
}

/// Algorithm 2, Q-MATCH: whether the set operations match, then the nine
/// sub-clause indicators of each sub-query — pairing sub-queries 1↔1 and
/// 2↔2, or crosswise when that matches more (the paper's line 7 compares
/// Σs₁ with Σs₂). A sample that does not parse matches nothing.
pub fn q_match(primary: &QueryClauses, sample: Option<&QueryClauses>) -> [bool; QMATCH_SIGNALS] {
    let Some(s) = sample else {
        return [false; QMATCH_SIGNALS];
    };
    let straight = [
        sq_match(&primary.sub[0], &s.sub[0]),
        sq_match(&primary.sub[1], &s.sub[1]),
    ];
    let crossed = [
        sq_match(&primary.sub[0], &s.sub[1]),
        sq_match(&primary.sub[1], &s.sub[0]),
    ];
    let count = |x: &[[bool; 9]; 2]| x.iter().flatten().filter(|b| **b).count();
    let best = if count(&straight) >= count(&crossed) {
        straight
    } else {
        crossed
    };
    let mut out = [false; QMATCH_SIGNALS];
    out[0] = primary.set_op == s.set_op;
    out[1..10].copy_from_slice(&best[0]);
    out[10..19].copy_from_slice(&best[1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qm(a: &str, b: &str) -> [bool; QMATCH_SIGNALS] {
        q_match(&query_clauses(a).unwrap(), query_clauses(b).as_ref())
    }

    #[test]
    fn nine_clauses_of_one_select() {
        let c = query_clauses(
            "SELECT DISTINCT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid \
             WHERE T1.age > 20 GROUP BY T1.name HAVING count(*) > 1 ORDER BY T1.name DESC LIMIT 3",
        )
        .unwrap();
        assert_eq!(c.set_op, "NONE");
        assert!(c.sub[1].is_none());
        let l = &c.sub[0].as_ref().unwrap()[0];
        assert_eq!(l[0], "DISTINCT");
        assert_eq!(l[1], "T1.name, count(*)");
        assert_eq!(l[2], "singer AS T1, concert AS T2");
        assert_eq!(l[3], "T1.id = T2.sid");
        assert_eq!(l[4], "T1.age > 20");
        assert_eq!(l[5], "T1.name");
        assert_eq!(l[6], "count(*) > 1");
        assert_eq!(l[7], "ORDER BY T1.name DESC");
        assert_eq!(l[8], "LIMIT 3");
    }

    /// Figure 2's idea: a sample differing only in the SELECT clause
    /// matches on everything else; sub-query 2 is NONE on both sides.
    #[test]
    fn q_match_single_select() {
        let m = qm(
            "SELECT invoice_number FROM invoices WHERE x = 1",
            "SELECT shipment_id FROM invoices WHERE x = 1",
        );
        assert!(m[0], "set op NONE = NONE");
        assert!(!m[2], "SELECT differs");
        assert!(m[1] && m[3] && m[4] && m[5]);
        assert!(m[10..19].iter().all(|b| *b), "NONE vs NONE matches");
        // Formatting and keyword case do not matter.
        let m = qm("select a from t where b=1", "SELECT a  FROM t WHERE b = 1");
        assert!(m.iter().all(|b| *b));
    }

    #[test]
    fn q_match_set_operations_and_swaps() {
        let p = "SELECT a FROM t WHERE x = 1 EXCEPT SELECT a FROM u";
        // Same branches in the other order: matched crosswise.
        let m = qm(p, "SELECT a FROM u EXCEPT SELECT a FROM t WHERE x = 1");
        assert!(m[0] && m[1..].iter().all(|b| *b));
        // Different set operation, same branches.
        let m = qm(p, "SELECT a FROM t WHERE x = 1 UNION SELECT a FROM u");
        assert!(!m[0] && m[1..].iter().all(|b| *b));
        // A set operation against a single SELECT: sub-query 2 is NONE on
        // one side only.
        let m = qm(p, "SELECT a FROM t WHERE x = 1");
        assert!(!m[0]);
        assert!(m[1..10].iter().all(|b| *b));
        assert!(m[10..19].iter().all(|b| !*b));
        // Unparseable sample: nothing matches.
        assert!(qm(p, "SELEC nonsense").iter().all(|b| !*b));
        assert!(query_clauses("DROP TABLE t").is_none());
    }

    /// Nested set operations: sub-query 1 is itself a UNION; its leaves
    /// are matched clause by clause (Figure 5, blue box).
    #[test]
    fn nested_tree() {
        let c =
            query_clauses("SELECT a FROM t UNION SELECT a FROM u EXCEPT SELECT a FROM v").unwrap();
        assert_eq!(c.set_op, "EXCEPT");
        assert_eq!(c.sub[0].as_ref().unwrap().len(), 2);
        let m = qm(
            "SELECT a FROM t UNION SELECT a FROM u EXCEPT SELECT a FROM v",
            "SELECT a FROM t UNION SELECT a FROM w EXCEPT SELECT a FROM v",
        );
        assert!(m[1] && m[2] && !m[3], "FROM differs at one leaf");
        let o = query_clauses("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 2").unwrap();
        assert_eq!(o.set_op, "UNION ORDER BY 1 LIMIT 2");
    }
}
