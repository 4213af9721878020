//! `evaluate()`'s sums by hardness and the averages `print_scores` prints:
//! exact match over every question of a level; each component's accuracy
//! over the questions whose prediction has the component, its recall over
//! those whose gold has it, and F1 from the two averages (1 when both are
//! 0). A level without questions keeps its zeros.

use super::compare::PartialScore;
use super::SpiderMatch;
use crate::Hardness;

/// The columns: the four levels and `all`.
pub const MATCH_LEVELS: [&str; 5] = ["easy", "medium", "hard", "extra", "all"];

#[derive(Debug, Clone, Copy, Default)]
struct Component {
    acc: f64,
    rec: f64,
    f1: f64,
    acc_count: usize,
    rec_count: usize,
}

#[derive(Debug, Clone, Copy, Default)]
struct Level {
    count: usize,
    exact: f64,
    partial: [Component; 10],
}

/// Exact match and partial matching, summed question by question.
#[derive(Debug, Clone, Default)]
pub struct MatchTally {
    levels: [Level; 5],
}

/// What `print_scores` prints for `--etype match`, by [`MATCH_LEVELS`]:
/// `partial[type][level]` is `(accuracy, recall, F1)`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchTable {
    pub count: [usize; 5],
    pub exact: [f64; 5],
    pub partial: [[(f64, f64, f64); 5]; 10],
}

fn column(h: Hardness) -> usize {
    match h {
        Hardness::Easy => 0,
        Hardness::Medium => 1,
        Hardness::Hard => 2,
        Hardness::Extra => 3,
    }
}

impl MatchTally {
    pub fn add(&mut self, m: &SpiderMatch) {
        for at in [column(m.hardness), 4] {
            let level = &mut self.levels[at];
            level.count += 1;
            level.exact += f64::from(u8::from(m.exact));
            for (c, s) in level.partial.iter_mut().zip(&m.partial) {
                add_component(c, s);
            }
        }
    }

    pub fn table(&self) -> MatchTable {
        let mut t = MatchTable {
            count: [0; 5],
            exact: [0.0; 5],
            partial: [[(0.0, 0.0, 0.0); 5]; 10],
        };
        for (at, level) in self.levels.iter().enumerate() {
            t.count[at] = level.count;
            for (k, c) in level.partial.iter().enumerate() {
                t.partial[k][at] = (c.acc, c.rec, c.f1);
            }
            if level.count == 0 {
                continue;
            }
            t.exact[at] = level.exact / level.count as f64;
            for (k, c) in level.partial.iter().enumerate() {
                t.partial[k][at] = averages(c);
            }
        }
        t
    }
}

fn add_component(c: &mut Component, s: &PartialScore) {
    if s.pred_total > 0 {
        c.acc += f64::from(s.acc);
        c.acc_count += 1;
    }
    if s.label_total > 0 {
        c.rec += f64::from(s.rec);
        c.rec_count += 1;
    }
    c.f1 += f64::from(s.f1);
}

/// Accuracy, recall and F1 of one component of one level, computed in the
/// evaluator's order of operations.
fn averages(c: &Component) -> (f64, f64, f64) {
    let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 * 1.0 };
    let acc = mean(c.acc, c.acc_count);
    let rec = mean(c.rec, c.rec_count);
    let f1 = if acc == 0.0 && rec == 0.0 {
        1.0
    } else {
        2.0 * acc * rec / (rec + acc)
    };
    (acc, rec, f1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(h: Hardness, exact: bool, hit: u8, pred_total: usize, label_total: usize) -> SpiderMatch {
        let s = PartialScore {
            acc: hit,
            rec: hit,
            f1: hit,
            label_total,
            pred_total,
        };
        SpiderMatch {
            hardness: h,
            exact,
            partial: [s; 10],
            pred_parsed: true,
        }
    }

    #[test]
    fn averages_follow_print_scores() {
        let mut t = MatchTally::default();
        t.add(&q(Hardness::Easy, true, 1, 1, 1));
        t.add(&q(Hardness::Easy, false, 0, 1, 0));
        t.add(&q(Hardness::Medium, false, 0, 0, 0));
        let table = t.table();
        assert_eq!(table.count, [2, 1, 0, 0, 3]);
        assert_eq!(table.exact, [0.5, 0.0, 0.0, 0.0, 1.0 / 3.0]);
        // easy: acc 1/2, rec 1/1.
        let (a, r, f) = table.partial[0][0];
        assert_eq!((a, r), (0.5, 1.0));
        assert!((f - 2.0 / 3.0).abs() < 1e-12);
        // medium: nothing counted, acc and rec 0, so F1 is 1.
        assert_eq!(table.partial[0][1], (0.0, 0.0, 1.0));
        // hard: no question, the sums stay (F1 0).
        assert_eq!(table.partial[0][2], (0.0, 0.0, 0.0));
    }
}
