//! The compare stage: a prediction's answer against the gold's, when one
//! of them is held as row keys ([`crate::answer::Digest`]) — decided by the
//! keys ([`compare_keys`]), or by reading again, on both sides, only the
//! rows the keys could not pair ([`Residue`], [`Keep`],
//! [`decide_residue`]); and two answers across engines ([`same_answer`],
//! [`same_answer_keys`]: the reference judgment's comparison). Answers
//! that hold their rows are compared by `sqlwitness_core::compare`.
//!
//! Two rows with one canonical hash are equal under the strict rules (their
//! numbers agree to 12 significant digits, inside any tolerance of at least
//! 1e-11); two rows with different coarse keys are not. Between the two —
//! rows whose floats or decimals differ in their last digits, or whose
//! dates are text on one side — the keys cannot decide: the rows the
//! canonical hashes left unpaired are read again, and only they are held
//! and compared by the strict rules.
//!
//! Across engines, results compare as multisets of rows (row order follows
//! each engine's collation; the same-engine verdict judges order), after a
//! documented normalisation of each cell ([`crate::answer::cell`]):
//! * numbers of every type, and text that reads as a number, compare as
//!   numbers rounded to 4 decimal places (MariaDB's `AVG` keeps 4);
//! * dates and times compare as text with `T` read as a space and a zero
//!   fraction dropped (`2020-01-02T10:00:00.000` = `2020-01-02 10:00:00`);
//! * booleans as 0/1, `NULL` as itself, bytes as hex.

use std::collections::{BTreeMap, HashMap};

use sqlwitness_core::compare::{
    compare, defog_compare, soft_f1, CompareMode, CompareOptions, Comparison, MismatchReason,
};
use sqlwitness_core::{row_hash, Column, DbError, QueryLimits, ResultSet, RowSink, Value};
use sqlwitness_nondet::in_some_column_order;

use crate::answer::{cell, Answer, Digest, RowKeys};

/// What the keys say of a prediction against the gold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyVerdict {
    Decided(Comparison),
    /// Only the values of the rows the canonical hashes left unpaired can
    /// tell (floats or decimals that differ in their last digits, or a
    /// column permutation to search).
    Residue(Residue),
}

/// The rows to read again on each side to decide: by position (an ordered
/// comparison) or by canonical hash with its count (a multiset one).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Residue {
    Positions(Vec<usize>),
    Hashes {
        gold: HashMap<u128, usize>,
        pred: HashMap<u128, usize>,
    },
    /// Nothing to read again would settle it: a column order to search.
    Undecidable(&'static str),
}

fn sorted<T: Ord + Copy>(keys: &[RowKeys], f: impl Fn(&RowKeys) -> T) -> Vec<T> {
    let mut v: Vec<T> = keys.iter().map(f).collect();
    v.sort_unstable();
    v
}

/// The strict comparison on keys (see the module documentation). Column
/// order: columns compare as given; where another order could matter (the
/// columns' coarse contents are a permutation of each other), a mismatch
/// reports `values`, and with `column_order_any` the keys cannot decide.
pub(crate) fn compare_keys(gold: &Digest, pred: &Digest, opts: &CompareOptions) -> KeyVerdict {
    if gold.width() != pred.width() {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::ColumnCount));
    }
    if gold.keys.len() != pred.keys.len() {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::RowCount));
    }
    let same_in_order = gold
        .keys
        .iter()
        .zip(&pred.keys)
        .all(|(g, p)| g.canonical == p.canonical);
    if same_in_order {
        return KeyVerdict::Decided(Comparison::EQUAL);
    }
    let same_multiset = sorted(&gold.keys, |k| k.canonical) == sorted(&pred.keys, |k| k.canonical);
    if same_multiset {
        // Equal as multisets; in order, the same rows in another order
        // (two rows that the canonical rounding tells apart but the
        // tolerance does not, and that swapped places, would be equal:
        // the one case the keys get wrong).
        return KeyVerdict::Decided(if opts.ordered {
            Comparison::differ(MismatchReason::Order)
        } else {
            Comparison::EQUAL
        });
    }
    // Without loose cells a canonical hash is the row under the strict
    // rules: the keys decide.
    let exact = !(gold.loose || pred.loose);
    if opts.column_order_any && gold.width() > 1 {
        let mut g = gold.columns_coarse.clone();
        let mut p = pred.columns_coarse.clone();
        g.sort_unstable();
        p.sort_unstable();
        if g != p {
            // No column order gives the predicted columns the gold's
            // contents.
            return KeyVerdict::Decided(Comparison::differ(MismatchReason::Values));
        }
        return KeyVerdict::Residue(Residue::Undecidable(
            "another column order may match, and keys of whole rows cannot search one",
        ));
    }
    if exact || sorted(&gold.keys, |k| k.coarse) != sorted(&pred.keys, |k| k.coarse) {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::Values));
    }
    if opts.ordered {
        let at: Vec<usize> = (0..gold.keys.len())
            .filter(|&i| gold.keys[i].canonical != pred.keys[i].canonical)
            .collect();
        return KeyVerdict::Residue(Residue::Positions(at));
    }
    let mut left: HashMap<u128, isize> = HashMap::new();
    for k in &gold.keys {
        *left.entry(k.canonical).or_default() += 1;
    }
    for k in &pred.keys {
        *left.entry(k.canonical).or_default() -= 1;
    }
    let (mut g, mut p) = (HashMap::new(), HashMap::new());
    for (h, n) in left {
        if n > 0 {
            g.insert(h, n as usize);
        } else if n < 0 {
            p.insert(h, n.unsigned_abs());
        }
    }
    KeyVerdict::Residue(Residue::Hashes { gold: g, pred: p })
}

/// Whether `b` answers as `a` across engines (the reference judgment's
/// multiset of normalised rows), columns as given.
pub(crate) fn same_answer_keys(a: &Digest, b: &Digest) -> bool {
    a.keys.len() == b.keys.len()
        && (a.keys.is_empty()
            || a.width() == b.width()
                && sorted(&a.keys, |k| k.cross) == sorted(&b.keys, |k| k.cross))
}

/// The sink of a second reading: keeps the rows a [`Residue`] names (by
/// position, or by canonical hash up to its count), within `max_bytes`.
pub(crate) struct Keep<'a> {
    limits: QueryLimits,
    positions: Option<&'a [usize]>,
    hashes: Option<HashMap<u128, usize>>,
    index: usize,
    bytes: usize,
    pub columns: Vec<Column>,
    /// (position, row) in the order read.
    pub kept: Vec<(usize, Vec<Value>)>,
}

impl<'a> Keep<'a> {
    pub fn at(limits: &QueryLimits, positions: &'a [usize]) -> Keep<'a> {
        Keep::new(limits, Some(positions), None)
    }

    pub fn with_hashes(limits: &QueryLimits, hashes: HashMap<u128, usize>) -> Keep<'a> {
        Keep::new(limits, None, Some(hashes))
    }

    /// The rows kept, in the order read.
    fn into_rows(self) -> ResultSet {
        ResultSet::new(
            self.columns,
            self.kept.into_iter().map(|(_, r)| r).collect(),
        )
    }

    fn new(
        limits: &QueryLimits,
        positions: Option<&'a [usize]>,
        hashes: Option<HashMap<u128, usize>>,
    ) -> Keep<'a> {
        Keep {
            limits: *limits,
            positions,
            hashes,
            index: 0,
            bytes: 0,
            columns: Vec::new(),
            kept: Vec::new(),
        }
    }
}

impl RowSink for Keep<'_> {
    fn columns(&mut self, columns: Vec<Column>) {
        // A reading started over forgets what it kept (hashes are counted
        // down as rows are kept, so only a first reading may keep them).
        self.columns = columns;
        self.index = 0;
        self.bytes = 0;
        if !self.kept.is_empty() {
            if let Some(h) = &mut self.hashes {
                for (_, row) in self.kept.drain(..) {
                    *h.entry(row_hash(&row)).or_default() += 1;
                }
            }
            self.kept.clear();
        }
    }

    fn row(&mut self, row: Vec<Value>, bytes: usize) -> Result<(), DbError> {
        let i = self.index;
        self.index += 1;
        let wanted = match (&self.positions, &mut self.hashes) {
            (Some(at), _) => at.binary_search(&i).is_ok(),
            (None, Some(h)) => match h.get_mut(&row_hash(&row)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            },
            (None, None) => false,
        };
        if wanted {
            self.bytes += bytes;
            if let Some(e) = self.limits.exceeded(self.kept.len() + 1, self.bytes) {
                return Err(e);
            }
            self.kept.push((i, row));
        }
        Ok(())
    }
}

/// Decides a [`Residue`] from the two second readings: the kept rows
/// compared by the strict rules (`opts.ordered`: pairwise by position, an
/// order mismatch when they are the same multiset). `None` when a reading
/// did not return what the first did (the result changed between runs).
pub(crate) fn decide_residue(
    residue: &Residue,
    gold: Keep,
    pred: Keep,
    gold_keys: &Digest,
    pred_keys: &Digest,
    opts: &CompareOptions,
) -> Option<Comparison> {
    let same_rows = |keep: &Keep, digest: &Digest| {
        keep.index == digest.keys.len()
            && keep
                .kept
                .iter()
                .all(|(i, row)| digest.keys[*i].canonical == row_hash(row))
    };
    match residue {
        Residue::Undecidable(_) => None,
        Residue::Positions(at) => {
            if !same_rows(&gold, gold_keys) || !same_rows(&pred, pred_keys) {
                return None;
            }
            if gold.kept.len() != at.len() || pred.kept.len() != at.len() {
                return None;
            }
            let (g, p) = (gold.into_rows(), pred.into_rows());
            let pairwise = sqlwitness_core::compare(&g, &p, &opts.ordered(true));
            if pairwise.equal {
                return Some(Comparison::EQUAL);
            }
            let as_multiset = sqlwitness_core::compare(&g, &p, &opts.ordered(false));
            Some(Comparison::differ(if as_multiset.equal {
                MismatchReason::Order
            } else {
                MismatchReason::Values
            }))
        }
        Residue::Hashes {
            gold: want_g,
            pred: want_p,
        } => {
            let complete = |keep: &Keep, want: &HashMap<u128, usize>| {
                keep.kept.len() == want.values().sum::<usize>()
                    && keep
                        .hashes
                        .as_ref()
                        .is_some_and(|h| h.values().all(|n| *n == 0))
            };
            if !complete(&gold, want_g) || !complete(&pred, want_p) {
                return None;
            }
            let (g, p) = (gold.into_rows(), pred.into_rows());
            let cmp = sqlwitness_core::compare(&g, &p, &opts.ordered(false));
            Some(if cmp.equal {
                Comparison::EQUAL
            } else {
                Comparison::differ(MismatchReason::Values)
            })
        }
    }
}

/// What the compare stage found of a prediction's answer against the
/// gold's.
pub(crate) enum Compared {
    /// Both held their rows: compared by value; the rows go on to the
    /// judges (ties, the official verdicts, the reference).
    Rows {
        cmp: Comparison,
        soft_f1: f64,
        gold: ResultSet,
        pred: ResultSet,
    },
    /// One was held as row keys: compared on keys and second readings (no
    /// tie probe or official verdicts: they need the values), or `Err`:
    /// why the comparison could not be decided within the limits.
    Keys {
        cmp: Result<Comparison, DbError>,
        soft_f1: f64,
        gold: Answer,
        pred: Answer,
    },
}

/// The texts a comparison may need: the gold and the prediction as given
/// (defog's runner hands its comparison both) and as the engine ran them
/// (a second reading runs those).
pub(crate) struct Texts<'a> {
    pub gold: &'a str,
    pub pred: &'a str,
    pub gold_run: &'a str,
    pub pred_run: &'a str,
}

/// The compare stage: `pred` against `gold` under `opts`. Answers held as
/// keys are compared by [`compare_large`], its second readings made by
/// `read_again(sql, keep)` (the SQL as the engine ran it).
pub(crate) fn compare_answers(
    gold: Answer,
    pred: Answer,
    opts: &CompareOptions,
    texts: &Texts,
    limits: &QueryLimits,
    mut read_again: impl FnMut(&str, &mut Keep) -> Result<(), DbError>,
) -> Compared {
    match (gold, pred) {
        (Answer::Rows(g), Answer::Rows(p)) => {
            let cmp = match opts.mode {
                CompareMode::Defog => {
                    defog_compare(&g, &p, opts.ordered, Some(texts.gold), Some(texts.pred))
                }
                _ => compare(&g, &p, opts),
            };
            Compared::Rows {
                cmp,
                soft_f1: soft_f1(&g, &p),
                gold: g,
                pred: p,
            }
        }
        (g, p) => {
            let (gd, pd) = (g.to_digest(), p.to_digest());
            let cmp = compare_large(&gd, &pd, opts, limits, |side, keep| {
                let sql = if side == "gold" {
                    texts.gold_run
                } else {
                    texts.pred_run
                };
                read_again(sql, keep)
            });
            let soft_f1 = gd.soft_f1(&pd);
            drop((gd, pd));
            Compared::Keys {
                cmp,
                soft_f1,
                gold: g,
                pred: p,
            }
        }
    }
}

/// The strict comparison of two answers, one of which is held as row keys
/// only: decided by the keys, or by reading again (`read_again(side, keep)`
/// runs the gold's or the prediction's SQL again into `keep`, `side` being
/// `"gold"` or `"prediction"`), on both sides, only the rows the keys could
/// not pair. `Err` (of class `resource_limit`): why it could not be decided
/// within the limits.
pub(crate) fn compare_large(
    gold: &Digest,
    pred: &Digest,
    opts: &CompareOptions,
    limits: &QueryLimits,
    mut read_again: impl FnMut(&'static str, &mut Keep) -> Result<(), DbError>,
) -> Result<Comparison, DbError> {
    let residue = match compare_keys(gold, pred, opts) {
        KeyVerdict::Decided(c) => return Ok(c),
        KeyVerdict::Residue(r) => r,
    };
    let (mut gk, mut pk) = match &residue {
        Residue::Undecidable(why) => return Err(DbError::resource_limit(*why)),
        Residue::Positions(at) => (Keep::at(limits, at), Keep::at(limits, at)),
        Residue::Hashes { gold, pred } => (
            Keep::with_hashes(limits, gold.clone()),
            Keep::with_hashes(limits, pred.clone()),
        ),
    };
    for (side, keep) in [("gold", &mut gk), ("prediction", &mut pk)] {
        read_again(side, keep).map_err(|e| {
            DbError::resource_limit(format!(
                "the {side}'s rows that differ only in their numbers or dates could not be read again ({})",
                e.message
            ))
        })?;
    }
    decide_residue(&residue, gk, pk, gold, pred, opts).ok_or_else(|| {
        DbError::resource_limit("a second reading returned other rows than the first")
    })
}

/// True when `b` answers as `a` across engines (see the module
/// documentation), columns as given or, with `any_column_order`, in some
/// order.
pub fn same_answer(a: &ResultSet, b: &ResultSet, any_column_order: bool) -> bool {
    let width = |rs: &ResultSet| rs.rows.first().map_or(rs.columns.len(), Vec::len);
    if a.rows.len() != b.rows.len() {
        return false;
    }
    if a.rows.is_empty() {
        return true;
    }
    let (wa, wb) = (width(a), width(b));
    if wa != wb {
        return false;
    }
    let want = bag(&a.rows, &(0..wa).collect::<Vec<_>>());
    in_some_column_order(wb, any_column_order, |order| bag(&b.rows, order) == want)
}

fn bag(rows: &[Vec<Value>], cols: &[usize]) -> BTreeMap<Vec<String>, usize> {
    let mut m = BTreeMap::new();
    for r in rows {
        let key = cols
            .iter()
            .map(|&c| r.get(c).map_or_else(|| "NULL".to_string(), cell))
            .collect();
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::compare::compare;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let n = rows.first().map_or(2, Vec::len);
        let columns = (0..n).map(|i| Column::new(format!("c{i}"), None)).collect();
        ResultSet::new(columns, rows)
    }

    fn table(n: i64, f: impl Fn(i64) -> Vec<Value>) -> ResultSet {
        rs((0..n).map(f).collect())
    }

    fn row(i: i64) -> Vec<Value> {
        vec![Value::Int(i), Value::Text(format!("name{}", i % 7))]
    }

    fn float_row(i: i64) -> Vec<Value> {
        vec![Value::Int(i), Value::Float(i as f64 / 3.0)]
    }

    fn opts(ordered: bool) -> CompareOptions {
        CompareOptions::default().ordered(ordered)
    }

    fn keys(a: &ResultSet, b: &ResultSet, ordered: bool) -> KeyVerdict {
        compare_keys(&Digest::of(a), &Digest::of(b), &opts(ordered))
    }

    fn decided(v: KeyVerdict) -> Comparison {
        match v {
            KeyVerdict::Decided(c) => c,
            other => panic!("not decided: {other:?}"),
        }
    }

    /// Reads `rows` into a [`Keep`] as an engine would.
    fn read_again<'a>(mut keep: Keep<'a>, rows: &ResultSet) -> Keep<'a> {
        keep.columns(rows.columns.clone());
        for r in &rows.rows {
            keep.row(r.clone(), 10).unwrap();
        }
        keep
    }

    /// The keys' verdict, settled by reading the residue again, as the
    /// evaluation does.
    fn by_keys(g: &ResultSet, p: &ResultSet, ordered: bool) -> Option<Comparison> {
        let limits = QueryLimits::default();
        let (gd, pd) = (Digest::of(g), Digest::of(p));
        match compare_keys(&gd, &pd, &opts(ordered)) {
            KeyVerdict::Decided(c) => Some(c),
            KeyVerdict::Residue(r) => {
                let (gk, pk) = match &r {
                    Residue::Positions(at) => (Keep::at(&limits, at), Keep::at(&limits, at)),
                    Residue::Hashes { gold, pred } => (
                        Keep::with_hashes(&limits, gold.clone()),
                        Keep::with_hashes(&limits, pred.clone()),
                    ),
                    Residue::Undecidable(_) => return None,
                };
                let (gk, pk) = (read_again(gk, g), read_again(pk, p));
                decide_residue(&r, gk, pk, &gd, &pd, &opts(ordered))
            }
        }
    }

    #[test]
    fn exact_rows_are_decided_by_their_keys_as_by_their_values() {
        let gold = table(500, row);
        let mut reversed = gold.clone();
        reversed.rows.reverse();
        let mut renamed = gold.clone();
        renamed.rows[250][1] = Value::Text("other".into());
        let mut shorter = gold.clone();
        shorter.rows.pop();
        let narrower = table(500, |i| vec![Value::Int(i)]);
        // An integer equals the same number as a decimal with no fraction.
        let as_decimal = table(500, |i| {
            vec![
                Value::Decimal(format!("{i}.00")),
                Value::Text(format!("name{}", i % 7)),
            ]
        });
        for (pred, ordered) in [
            (&gold, true),
            (&reversed, false),
            (&reversed, true),
            (&renamed, false),
            (&renamed, true),
            (&shorter, false),
            (&narrower, false),
            (&as_decimal, false),
            (&as_decimal, true),
        ] {
            let by_values = compare(&gold, pred, &opts(ordered));
            assert_eq!(
                by_keys(&gold, pred, ordered),
                Some(by_values),
                "ordered {ordered}"
            );
        }
        assert_eq!(
            decided(keys(&gold, &reversed, true)).reason,
            Some(MismatchReason::Order)
        );
        assert_eq!(
            decided(keys(&gold, &renamed, false)).reason,
            Some(MismatchReason::Values)
        );
    }

    #[test]
    fn floats_within_the_tolerance_are_read_again_and_only_they() {
        let gold = table(1000, float_row);
        // Three rows off in the 10th significant digit: equal within 1e-9,
        // but not to 12 digits.
        let mut noisy = gold.clone();
        for i in [3, 500, 999] {
            noisy.rows[i][1] = Value::Float((i as f64 / 3.0) * (1.0 + 1e-10));
        }
        let mut wrong = gold.clone();
        wrong.rows[500][1] = Value::Float(1e6);
        for ordered in [false, true] {
            match keys(&gold, &noisy, ordered) {
                KeyVerdict::Residue(Residue::Hashes { gold, pred }) => {
                    assert_eq!(gold.values().sum::<usize>(), 3);
                    assert_eq!(pred.values().sum::<usize>(), 3);
                }
                KeyVerdict::Residue(Residue::Positions(at)) => assert_eq!(at, [3, 500, 999]),
                other => panic!("{other:?}"),
            }
            for pred in [&noisy, &wrong] {
                assert_eq!(
                    by_keys(&gold, pred, ordered),
                    Some(compare(&gold, pred, &opts(ordered))),
                    "ordered {ordered}"
                );
            }
        }
        assert!(by_keys(&gold, &noisy, false).unwrap().equal);
        for pred in [&noisy, &wrong, &gold] {
            let by_values = sqlwitness_core::compare::soft_f1(&gold, pred);
            let keyed = Digest::of(&gold).soft_f1(&Digest::of(pred));
            assert!((by_values - keyed).abs() < 1e-12, "{by_values} {keyed}");
        }
        assert!(!by_keys(&gold, &wrong, false).unwrap().equal);
        // A text that differs is decided by the coarse keys, unread.
        let mut text = gold.clone();
        text.rows[7][1] = Value::Text("7".into());
        assert_eq!(
            decided(keys(&gold, &text, false)).reason,
            Some(MismatchReason::Values)
        );
    }

    #[test]
    fn a_second_reading_that_differs_from_the_first_decides_nothing() {
        let gold = table(100, float_row);
        let mut noisy = gold.clone();
        noisy.rows[10][1] = Value::Float((10.0 / 3.0) * (1.0 + 1e-10));
        let (gd, pd) = (Digest::of(&gold), Digest::of(&noisy));
        let KeyVerdict::Residue(r @ Residue::Hashes { .. }) = compare_keys(&gd, &pd, &opts(false))
        else {
            panic!("expected a residue");
        };
        let Residue::Hashes { gold: g, pred: p } = &r else {
            unreachable!()
        };
        let limits = QueryLimits::default();
        // The prediction's second reading lost the row that differed.
        let mut changed = noisy.clone();
        changed.rows[10][1] = Value::Float(10.0 / 3.0);
        let gk = read_again(Keep::with_hashes(&limits, g.clone()), &gold);
        let pk = read_again(Keep::with_hashes(&limits, p.clone()), &changed);
        assert_eq!(decide_residue(&r, gk, pk, &gd, &pd, &opts(false)), None);
    }

    #[test]
    fn across_engines_keys_compare_normalised_rows() {
        let sqlite = table(50, |i| {
            vec![
                Value::Int(i),
                Value::Text(format!("2020-01-{:02}", 1 + i % 28)),
            ]
        });
        let server = table(50, |i| {
            vec![
                Value::Decimal(format!("{i}.0000")),
                Value::Date(format!("2020-01-{:02}", 1 + i % 28)),
            ]
        });
        assert!(same_answer_keys(&Digest::of(&sqlite), &Digest::of(&server)));
        let mut other = server.clone();
        other.rows[3][0] = Value::Int(1000);
        assert!(!same_answer_keys(&Digest::of(&sqlite), &Digest::of(&other)));
        assert_eq!(
            same_answer_keys(&Digest::of(&sqlite), &Digest::of(&server)),
            same_answer(&sqlite, &server, false)
        );
    }

    /// On real data: three models' Spider dev predictions against the
    /// golds on SQLite. The keys' verdict, settled by reading again, is the
    /// values' verdict, pair for pair (a mismatch a column permutation
    /// would repair being `values` by the keys).
    #[test]
    fn on_spider_dev_the_keys_judge_as_the_values() {
        use rayon::prelude::*;
        use sqlwitness_core::Database;
        let Some(spider) = sqlwitness_testkit::shared_data("spider") else {
            return;
        };
        let dev: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(spider.join("dev.json")).unwrap())
                .unwrap();
        // Spider's files, read in place.
        let engine = sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap();
        let limits = QueryLimits {
            timeout: std::time::Duration::from_secs(5),
            ..QueryLimits::default()
        };
        let dialects = sqlwitness_sql::sqlite_first(engine.kind());
        let run = |db: &Database, sql: &str| engine.execute(db, sql, &limits).ok();
        let (mut pairs, mut again) = (0, 0);
        for model in ["c3sql_gpt35", "dts_sql_deepseek7b", "resdsql_natsql_3b"] {
            let file = spider.join(format!("predictions/{model}.sql"));
            let preds: Vec<String> = std::fs::read_to_string(file)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
            let checked: Vec<Option<String>> = dev
                .par_iter()
                .zip(&preds)
                .enumerate()
                .map(|(i, (q, pred))| {
                    let (db_id, gold) = (q["db_id"].as_str()?, q["query"].as_str()?);
                    let path = spider.join(format!("database/{db_id}/{db_id}.sqlite"));
                    let db = Database::new(db_id, path);
                    let (g, p) = (run(&db, gold)?, run(&db, pred)?);
                    let ordered =
                        sqlwitness_sql::has_top_level_order_by(gold, &dialects).unwrap_or(false);
                    let mut by_values = compare(&g, &p, &opts(ordered));
                    if by_values.reason == Some(MismatchReason::ColumnOrder) {
                        by_values.reason = Some(MismatchReason::Values);
                    }
                    let keyed = by_keys(&g, &p, ordered);
                    let (gd, pd) = (Digest::of(&g), Digest::of(&p));
                    let read_again = matches!(
                        compare_keys(&gd, &pd, &opts(ordered)),
                        KeyVerdict::Residue(_)
                    );
                    Some(if keyed == Some(by_values) {
                        if read_again {
                            "read again".into()
                        } else {
                            String::new()
                        }
                    } else {
                        format!("{model} {i}: values {by_values:?}, keys {keyed:?}")
                    })
                })
                .collect();
            let ran: Vec<String> = checked.into_iter().flatten().collect();
            pairs += ran.len();
            again += ran.iter().filter(|d| *d == "read again").count();
            let differ: Vec<&String> = ran
                .iter()
                .filter(|d| !d.is_empty() && *d != "read again")
                .collect();
            assert!(differ.is_empty(), "{differ:#?}");
        }
        eprintln!("{pairs} pairs judged alike by keys and values, {again} of them read again");
        assert!(pairs > 2500, "only {pairs} pairs ran");
    }

    #[test]
    fn another_column_order_is_left_to_the_values() {
        let gold = table(100, row);
        let swapped = table(100, |i| {
            let mut r = row(i);
            r.swap(0, 1);
            r
        });
        let any = CompareOptions {
            column_order_any: true,
            ..CompareOptions::default()
        };
        let v = compare_keys(&Digest::of(&gold), &Digest::of(&swapped), &any);
        assert!(matches!(v, KeyVerdict::Residue(Residue::Undecidable(_))));
        // A column no order can match is decided.
        let mut other = swapped.clone();
        other.rows[0][0] = Value::Text("no such name".into());
        let v = compare_keys(&Digest::of(&gold), &Digest::of(&other), &any);
        assert_eq!(decided(v).reason, Some(MismatchReason::Values));
    }

    #[test]
    fn numbers_dates_and_text_numbers_compare_across_engines() {
        use Value::*;
        // SQLite's AVG against MariaDB's 4-decimal DECIMAL; integers as
        // decimals; numeric text as its number; dates as text.
        let sqlite = rs(vec![
            vec![
                Float(2.0 / 3.0),
                Text("7".into()),
                Text("2020-01-02 10:00:00".into()),
            ],
            vec![Int(3), Int(1), Null],
        ]);
        let mariadb = rs(vec![
            vec![Decimal("3.0000".into()), Bool(true), Null],
            vec![
                Decimal("0.6667".into()),
                Int(7),
                Timestamp("2020-01-02T10:00:00.000".into()),
            ],
        ]);
        assert!(same_answer(&sqlite, &mariadb, false));
        let other = rs(vec![
            vec![Decimal("3.0000".into()), Bool(true), Null],
            vec![
                Decimal("0.6668".into()),
                Int(7),
                Timestamp("2020-01-02T10:00:00".into()),
            ],
        ]);
        assert!(!same_answer(&sqlite, &other, false));
        // Case is not folded: a collation difference is a difference.
        assert!(!same_answer(
            &rs(vec![vec![Text("Ann".into())]]),
            &rs(vec![vec![Text("ann".into())]]),
            false
        ));
        // Multiplicity counts.
        assert!(!same_answer(
            &rs(vec![vec![Int(1)], vec![Int(1)]]),
            &rs(vec![vec![Int(1)], vec![Int(2)]]),
            false
        ));
    }

    #[test]
    fn columns_in_another_order_where_the_comparison_allows() {
        use Value::*;
        let a = rs(vec![vec![Text("x".into()), Int(1)]]);
        let b = rs(vec![vec![Int(1), Text("x".into())]]);
        assert!(!same_answer(&a, &b, false));
        assert!(same_answer(&a, &b, true));
        assert!(same_answer(&rs(vec![]), &rs(vec![]), false));
    }

    /// Feeds `rows` into a second reading's sink, as an engine would.
    fn feed(rows: &ResultSet, keep: &mut Keep) -> Result<(), DbError> {
        keep.columns(rows.columns.clone());
        for r in &rows.rows {
            keep.row(r.clone(), 10)?;
        }
        Ok(())
    }

    #[test]
    fn the_compare_stage_compares_rows_by_value_and_keys_by_keys_then_second_readings() {
        let texts = Texts {
            gold: "g",
            pred: "p",
            gold_run: "g run",
            pred_run: "p run",
        };
        let limits = QueryLimits::default();
        let gold = table(100, float_row);
        let mut near = gold.clone();
        // Off in the 10th significant digit: equal within the tolerance,
        // not to the keys' 12 digits.
        near.rows[7][1] = Value::Float((7.0 / 3.0) * (1.0 + 1e-10));
        // Rows against rows: by value, no second reading.
        let c = compare_answers(
            Answer::Rows(gold.clone()),
            Answer::Rows(near.clone()),
            &opts(false),
            &texts,
            &limits,
            |_, _| panic!("rows need no second reading"),
        );
        let Compared::Rows { cmp, soft_f1, .. } = c else {
            panic!("compared by rows");
        };
        assert!(cmp.equal);
        assert!(soft_f1 > 0.98, "{soft_f1}");
        // Keys against rows: the keys leave the near row, read again on
        // both sides, by the text each side ran.
        let mut read = Vec::new();
        let c = compare_answers(
            Answer::Digest(Box::new(Digest::of(&gold))),
            Answer::Rows(near.clone()),
            &opts(false),
            &texts,
            &limits,
            |sql, keep| {
                read.push(sql.to_string());
                feed(if sql == "g run" { &gold } else { &near }, keep)
            },
        );
        let Compared::Keys { cmp, .. } = c else {
            panic!("compared by keys");
        };
        assert!(cmp.unwrap().equal);
        assert_eq!(read, ["g run", "p run"]);
        // A second reading that fails is why the comparison was not made.
        let c = compare_answers(
            Answer::Digest(Box::new(Digest::of(&gold))),
            Answer::Rows(near),
            &opts(false),
            &texts,
            &limits,
            |_, _| Err(DbError::resource_limit("too big")),
        );
        let Compared::Keys { cmp, .. } = c else {
            panic!("compared by keys");
        };
        let err = cmp.unwrap_err();
        assert!(
            err.message.contains("could not be read again"),
            "{}",
            err.message
        );
    }
}
