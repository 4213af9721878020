//! Test support for the writers' unit tests: small hand-made reports, the
//! expected-file comparison, and checkers of the outputs' structure (an
//! XML well-formedness reader for `junit.xml`, a Markdown table reader).
//!
//! Expected files live in `tests/expected/`; a writer's output is compared
//! with its file byte for byte. After a deliberate change of a writer,
//! `SQLWITNESS_BLESS=1 cargo test -p sqlwitness-report --lib` rewrites the
//! files; review their diff before committing it.

use std::collections::BTreeMap;
use std::path::Path;

use sqlwitness_core::compare::MismatchReason;
use sqlwitness_core::{EngineInfo, EngineKind, ErrorClass, TimingMethod};
use sqlwitness_score::{compute_scores, QuestionInput, ScoreOptions};

use crate::{
    summarize, EngineOutcome, Execution, ExecutionStatus, QuestionReport, Report, RunInfo,
    SuiteOutcome, ToolInfo, Verdict, VesOutcome, WitnessReport, FORMAT_VERSION,
};

/// Text a page must never carry unescaped: in a question, SQL, a database
/// name, a sample cell, an error message and a witness row.
pub(crate) const HOSTILE: &str = "<script>alert(1)</script>";

// ---------------------------------------------------------------------------
// Expected files.

/// Compares `actual` with `tests/expected/<name>` byte for byte, or writes
/// it there under `SQLWITNESS_BLESS=1`.
pub(crate) fn assert_expected(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected")
        .join(name);
    if std::env::var("SQLWITNESS_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create tests/expected");
        std::fs::write(&path, actual).expect("write the expected file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("tests/expected/{name}: {e} (SQLWITNESS_BLESS=1 cargo test -p sqlwitness-report --lib writes it)")
    });
    if expected == actual {
        return;
    }
    let (mut e, mut a) = (expected.split('\n'), actual.split('\n'));
    let mut line = 1;
    loop {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => panic!(
                "the output differs from tests/expected/{name} at line {line}:\n\
                 expected: {}\n  actual: {}\n\
                 If the change is deliberate, SQLWITNESS_BLESS=1 cargo test -p sqlwitness-report \
                 --lib rewrites the expected files (review their diff).",
                x.map_or("(end of file)".into(), |s| format!("{s:?}")),
                y.map_or("(end of output)".into(), |s| format!("{s:?}")),
            ),
        }
    }
}

// ---------------------------------------------------------------------------
// Small reports.

pub(crate) fn ok(rows: &[&[&str]], ms: f64) -> Execution {
    Execution {
        status: ExecutionStatus::Ok,
        sql_run: None,
        error_class: None,
        error_code: None,
        error: None,
        row_count: Some(rows.len()),
        result_hash: Some(format!("h{}", rows.len())),
        sample: rows
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect(),
        columns: Vec::new(),
        truncated: false,
        duration_ms: ms,
    }
}

pub(crate) fn failed(class: ErrorClass, code: &str, message: &str, ms: f64) -> Execution {
    Execution {
        status: ExecutionStatus::Error,
        error_class: Some(class),
        error_code: Some(code.into()),
        error: Some(message.into()),
        row_count: None,
        result_hash: None,
        ..ok(&[], ms)
    }
}

/// An outcome with its verdict and executions.
pub(crate) fn outcome(
    verdict: Verdict,
    gold: Option<Execution>,
    pred: Option<Execution>,
) -> EngineOutcome {
    EngineOutcome {
        gold,
        pred,
        ..EngineOutcome::new(verdict)
    }
}

pub(crate) fn question(
    id: usize,
    db_id: &str,
    text: &str,
    gold_sql: &str,
    pred_sql: Option<&str>,
    engines: Vec<(&str, EngineOutcome)>,
) -> QuestionReport {
    QuestionReport {
        id,
        db_id: db_id.into(),
        question: text.into(),
        gold_sql: gold_sql.into(),
        pred_sql: pred_sql.map(Into::into),
        hardness: None,
        hardness_error: None,
        exact_match: None,
        exact_match_error: None,
        difficulty: None,
        engines: engines
            .into_iter()
            .map(|(e, o)| (e.to_string(), o))
            .collect(),
    }
}

/// A report of `questions` with fixed run details (no time, path or
/// version that changes), its summary computed, without scores.
pub(crate) fn report_of(questions: Vec<QuestionReport>) -> Report {
    Report {
        format_version: FORMAT_VERSION,
        tool: ToolInfo {
            name: "sqlwitness".into(),
            version: "0.0.0-test".into(),
        },
        run: RunInfo {
            bench: "bench/spider".into(),
            split: "dev".into(),
            predictions: Some("pred.sql".into()),
            golds: BTreeMap::new(),
            collations: BTreeMap::new(),
            engine_predictions: BTreeMap::new(),
            compare: "strict".into(),
            column_order: "exact".into(),
            keep_distinct: false,
            float_tolerance: 1e-9,
            timeout_ms: 30_000,
            ves_runs: 0,
            identifiers: "sqlite".into(),
            engines: vec![
                EngineInfo {
                    kind: EngineKind::Sqlite,
                    version: "3.45.0".into(),
                    login: None,
                },
                EngineInfo {
                    kind: EngineKind::Postgres,
                    version: "PostgreSQL 15.4 (Debian 15.4-1) on x86_64-pc-linux-gnu".into(),
                    login: Some("sqlwitness_reader: least privilege".into()),
                },
            ],
            duration_ms: 1500,
            peak_rss_bytes: Some(64 << 20),
        },
        summary: summarize(&questions),
        questions,
    }
}

/// Six questions on SQLite and PostgreSQL: a match (that fails its test
/// suite on SQLite, with a witness), a `LIMIT` through ties (a
/// tie-dependent mismatch on SQLite, `match_tie` on PostgreSQL), a gold
/// error, a prediction error and a timeout, an abstention, and a mismatch
/// on a database whose name holds a pipe. Hostile text (`<script>`, `|`,
/// `&`, quotes) sits in a question, the SQL, sample cells, an error
/// message and a witness row. With scores (TrustSQL RS, consistency,
/// calibration, a dialect feature spelled `||`).
pub(crate) fn small_report() -> Report {
    let mut questions = vec![
        counted_question(),
        tied_question(),
        hostile_question(),
        failing_question(),
        abstained_question(),
        piped_question(),
    ];
    // Spider hardness; the last gold unreadable by the official parser.
    for (q, h) in questions
        .iter_mut()
        .zip(["easy", "medium", "hard", "extra", "medium"])
    {
        q.hardness = Some(h.into());
    }
    questions[5].hardness = None;
    questions[5].hardness_error = Some("a column alias (`AS` in SELECT)".into());
    let mut report = report_of(questions);
    report.summary.scores = Some(scores_of(&report.questions));
    report
}

/// Question 0: a match on both engines, whose suite fails on SQLite with a witness holding hostile text.
fn counted_question() -> QuestionReport {
    let suite = SuiteOutcome {
        passed: false,
        instances: 4,
        checked: 2,
        failed_instance: Some("concert_singer/i2.sqlite".into()),
        reason: Some("values".into()),
        witness: Some(WitnessReport {
            rows: 2,
            rows_before: 9,
            inserts: vec!["INSERT INTO singer VALUES (1, 'A&B')".into()],
            gold: vec![vec![HOSTILE.into()]],
            pred: vec![vec!["2".into()]],
            pred_error: None,
        }),
    };
    let mut q0_sqlite = outcome(
        Verdict::Match,
        Some(ok(&[&["6"]], 0.5)),
        Some(ok(&[&["6"]], 0.25)),
    );
    q0_sqlite.suite = Some(suite);
    let mut q0_pg = outcome(
        Verdict::Match,
        Some(ok(&[&["6"]], 1.0)),
        Some(ok(&[&["6"]], 1.5)),
    );
    q0_pg.soft_f1 = Some(1.0);
    q0_sqlite.soft_f1 = Some(1.0);
    question(
        0,
        "concert_singer",
        "How many singers are there?",
        "SELECT count(*) FROM singer",
        Some("SELECT count(*) FROM singer"),
        vec![("sqlite", q0_sqlite), ("postgres", q0_pg)],
    )
}

/// Question 1: a `LIMIT` through ties: a tie-dependent mismatch on SQLite, `match_tie` on PostgreSQL.
fn tied_question() -> QuestionReport {
    let mut q1_sqlite = outcome(
        Verdict::Mismatch,
        Some(ok(&[&["Joe", "52"]], 0.5)),
        Some(ok(&[&["Ann", "52"]], 0.5)),
    );
    q1_sqlite.reason = Some(MismatchReason::Values);
    q1_sqlite.ordered = true;
    q1_sqlite.tie = true;
    q1_sqlite.soft_f1 = Some(0.5);
    let mut q1_pg = outcome(
        Verdict::MatchTie,
        Some(ok(&[&["Joe", "52"]], 1.0)),
        Some(ok(&[&["Ann", "52"]], 1.0)),
    );
    q1_pg.ordered = true;
    q1_pg.soft_f1 = Some(0.5);
    for o in [&mut q1_sqlite, &mut q1_pg] {
        for side in [o.gold.as_mut(), o.pred.as_mut()].into_iter().flatten() {
            side.columns = vec!["name".into(), "age".into()];
        }
    }
    question(
        1,
        "concert_singer",
        "Who is the oldest singer?",
        "SELECT name, age FROM singer ORDER BY age DESC LIMIT 1",
        Some("SELECT name, age FROM singer ORDER BY age DESC LIMIT 1"),
        vec![("sqlite", q1_sqlite), ("postgres", q1_pg)],
    )
}

/// Question 2: hostile text in the question, the SQL, the cells and the error; a match on SQLite, a gold error on PostgreSQL.
fn hostile_question() -> QuestionReport {
    let mut q2_sqlite = outcome(
        Verdict::Match,
        Some(ok(&[&["x <&> \"y\""], &[HOSTILE]], 0.75)),
        Some(ok(&[&["x <&> \"y\""], &[HOSTILE]], 0.75)),
    );
    q2_sqlite.soft_f1 = Some(1.0);
    let q2_pg = outcome(
        Verdict::GoldError,
        Some(failed(
            ErrorClass::UndefinedColumn,
            "42703",
            &format!("column \"Name\" does not exist near {HOSTILE}"),
            0.25,
        )),
        None,
    );
    question(
        2,
        "pets_1",
        &format!("Pets named {HOSTILE} & \"friends\" | others?"),
        "SELECT Name FROM pets WHERE name <> 'a|b'",
        Some(&format!(
            "SELECT name FROM pets WHERE name LIKE '{HOSTILE}%'"
        )),
        vec![("sqlite", q2_sqlite), ("postgres", q2_pg)],
    )
}

/// Question 3: a prediction error on SQLite, a timeout on PostgreSQL.
fn failing_question() -> QuestionReport {
    let mut q3_sqlite = outcome(
        Verdict::PredError,
        Some(ok(&[&["3"]], 0.5)),
        Some(failed(
            ErrorClass::Syntax,
            "1",
            "near \"|\": syntax error\nsecond line",
            0.125,
        )),
    );
    q3_sqlite.soft_f1 = Some(0.0);
    let mut q3_pg = outcome(
        Verdict::Timeout,
        Some(ok(&[&["3"]], 2.0)),
        Some(failed(
            ErrorClass::Timeout,
            "57014",
            "canceling statement due to statement timeout",
            30_000.0,
        )),
    );
    q3_pg.soft_f1 = Some(0.0);
    question(
        3,
        "pets_1",
        "How many dogs?",
        "SELECT count(*) FROM pets WHERE kind = 'dog'",
        Some("SELECT count(*) FROM pets WHERE kind = 'dog' ||"),
        vec![("sqlite", q3_sqlite), ("postgres", q3_pg)],
    )
}

/// Question 4: an abstention on both engines.
fn abstained_question() -> QuestionReport {
    let mut q4_sqlite = outcome(Verdict::Abstained, Some(ok(&[&["1"]], 0.5)), None);
    q4_sqlite.soft_f1 = Some(0.0);
    let mut q4_pg = outcome(Verdict::Abstained, Some(ok(&[&["1"]], 0.5)), None);
    q4_pg.soft_f1 = Some(0.0);
    question(
        4,
        "pets_1",
        "Is there a cat?",
        "SELECT 1 FROM pets WHERE kind = 'cat'",
        None,
        vec![("sqlite", q4_sqlite), ("postgres", q4_pg)],
    )
}

/// Question 5: a mismatch on a database whose name holds a pipe.
fn piped_question() -> QuestionReport {
    let mut q5_sqlite = outcome(
        Verdict::Mismatch,
        Some(ok(&[&["a|b"], &["c"]], 0.5)),
        Some(ok(&[&["a|b"]], 0.5)),
    );
    q5_sqlite.reason = Some(MismatchReason::RowCount);
    q5_sqlite.soft_f1 = Some(0.5);
    let mut q5_pg = q5_sqlite.clone();
    q5_pg.reason = Some(MismatchReason::Values);
    question(
        5,
        "world|1",
        "Which cities?",
        "SELECT name FROM city",
        Some("SELECT DISTINCT name FROM city"),
        vec![("sqlite", q5_sqlite), ("postgres", q5_pg)],
    )
}

/// The scores of `questions`: fixed confidences, question 4 infeasible,
/// `||` a dialect feature of two predictions.
fn scores_of(questions: &[QuestionReport]) -> sqlwitness_score::Scores {
    let inputs: Vec<QuestionInput> = questions
        .iter()
        .map(|q| QuestionInput {
            id: q.id,
            abstained: q.engines.values().any(|o| o.verdict == Verdict::Abstained),
            feasible: q.id != 4,
            verdicts: q.verdicts(),
            confidence: Some([0.9, 0.6, 0.8, 0.2, 0.1, 0.4][q.id % 6]),
            scf: None,
            calibration: true,
            legacy: q.legacy_inputs(),
            suite_passed: q.suite_passed(),
            gold_features: Default::default(),
            pred_features: if q.id == 3 || q.id == 5 {
                ["||".to_string()].into()
            } else {
                Default::default()
            },
        })
        .collect();
    compute_scores(&inputs, &ScoreOptions::default())
}

/// A report with timed runs (`--ves-runs 3`) on SQLite (with the official
/// scripts' timing) and PostgreSQL, by BIRD difficulty: question 0 is
/// four times faster than its gold on SQLite and as fast on PostgreSQL
/// (a cross-engine contrast), question 1 equally efficient everywhere,
/// question 2's timing failed on PostgreSQL, question 3 is wrong.
pub(crate) fn ves_report() -> Report {
    let mut questions = ves_questions();
    for (q, d) in questions
        .iter_mut()
        .zip(["simple", "moderate", "challenging", "simple"])
    {
        q.difficulty = Some(d.into());
    }
    let mut r = report_of(questions);
    r.run.ves_runs = 3;
    r
}

/// The questions of [`ves_report`], each with its outcome on SQLite and
/// PostgreSQL.
fn ves_questions() -> Vec<QuestionReport> {
    let timed = |method, gold: [f64; 3], pred: [f64; 3], error: Option<&str>| {
        VesOutcome::new(method, gold.to_vec(), pred.to_vec(), error.map(Into::into))
    };
    let official = crate::OfficialTiming::new(
        (vec![8.0, 8.0, 8.0], vec![2.0, 2.0, 2.0]),
        (vec![9.0, 9.0, 9.0], vec![3.0, 3.0, 3.0]),
        false,
    );
    let matched = |ves: VesOutcome| {
        let mut o = outcome(
            Verdict::Match,
            Some(ok(&[&["1"]], 1.0)),
            Some(ok(&[&["1"]], 1.0)),
        );
        o.ves = Some(ves);
        o
    };
    let lite = TimingMethod::SqliteSteps;
    let pg = TimingMethod::PostgresExplainAnalyze;
    vec![
        question(
            0,
            "card_games",
            "q0",
            "SELECT 1",
            Some("SELECT 1"),
            vec![
                (
                    "sqlite",
                    matched(
                        timed(lite, [4.0, 4.4, 3.6], [1.0, 1.0, 1.0], None)
                            .with_official(Some(official)),
                    ),
                ),
                (
                    "postgres",
                    matched(timed(pg, [1.0, 1.1, 0.9], [1.0, 1.0, 1.0], None)),
                ),
            ],
        ),
        question(
            1,
            "card_games",
            "q1",
            "SELECT 2",
            Some("SELECT 2"),
            vec![
                (
                    "sqlite",
                    matched(timed(lite, [2.0, 2.0, 2.0], [2.0, 2.0, 2.0], None)),
                ),
                (
                    "postgres",
                    matched(timed(pg, [3.0, 3.0, 3.0], [3.0, 3.0, 3.0], None)),
                ),
            ],
        ),
        question(
            2,
            "superhero",
            "q2",
            "SELECT 3",
            Some("SELECT 3"),
            vec![
                (
                    "sqlite",
                    matched(timed(lite, [1.0, 1.0, 1.0], [4.0, 4.0, 4.0], None)),
                ),
                (
                    "postgres",
                    matched(timed(
                        pg,
                        [1.0, 1.0, 1.0],
                        [1.0, 1.0, 1.0],
                        Some("canceling statement due to statement timeout"),
                    )),
                ),
            ],
        ),
        question(
            3,
            "superhero",
            "q3",
            "SELECT 4",
            Some("SELECT 5"),
            vec![
                (
                    "sqlite",
                    outcome(
                        Verdict::Mismatch,
                        Some(ok(&[&["4"]], 1.0)),
                        Some(ok(&[&["5"]], 1.0)),
                    ),
                ),
                (
                    "postgres",
                    outcome(
                        Verdict::Mismatch,
                        Some(ok(&[&["4"]], 1.0)),
                        Some(ok(&[&["5"]], 1.0)),
                    ),
                ),
            ],
        ),
    ]
}

// ---------------------------------------------------------------------------
// Structure checkers.

/// An XML element as [`parse_xml`] reads it.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
    pub children: Vec<Element>,
    /// The element's own text, entities decoded.
    pub text: String,
}

impl Element {
    pub fn attr(&self, name: &str) -> &str {
        self.attrs
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("<{}> has no attribute {name}", self.name))
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// Why a text is not well-formed XML.
#[derive(Debug)]
pub(crate) struct NotXml(pub String);

impl std::fmt::Display for NotXml {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for NotXml {
    fn from(s: &str) -> NotXml {
        NotXml(s.to_string())
    }
}

impl From<String> for NotXml {
    fn from(s: String) -> NotXml {
        NotXml(s)
    }
}

/// Reads `text` as XML 1.0 (a prolog, then one root element), or says why
/// it is not well formed: tags nest and close, attribute values are
/// quoted, `<` and `&` appear only as markup or entity references, and
/// no character XML 1.0 forbids occurs. Enough for `junit.xml`.
pub(crate) fn parse_xml(text: &str) -> Result<Element, NotXml> {
    if let Some(c) = text
        .chars()
        .find(|&c| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}'))
    {
        return Err(NotXml(format!("character U+{:04X} is not allowed in XML", c as u32)));
    }
    let mut rest = text;
    if let Some(r) = rest.strip_prefix("<?xml") {
        let end = r.find("?>").ok_or("unterminated prolog")?;
        rest = &r[end + 2..];
    }
    let mut stack: Vec<Element> = vec![Element::default()];
    loop {
        let lt = rest.find('<').unwrap_or(rest.len());
        let chunk = decode(&rest[..lt])?;
        if stack.len() == 1 && !chunk.trim().is_empty() {
            return Err(NotXml(format!("text outside the root element: {chunk:?}")));
        }
        stack.last_mut().expect("document").text.push_str(&chunk);
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        if let Some(r) = rest.strip_prefix("</") {
            let end = r.find('>').ok_or("unterminated end tag")?;
            let name = r[..end].trim();
            let el = stack
                .pop()
                .filter(|_| !stack.is_empty())
                .ok_or("end tag without a start")?;
            if el.name != name {
                return Err(NotXml(format!("</{name}> closes <{}>", el.name)));
            }
            stack
                .last_mut()
                .ok_or_else(|| format!("</{name}> closes the document"))?
                .children
                .push(el);
            rest = &r[end + 1..];
            continue;
        }
        let (el, self_closing, r) = start_tag(&rest[1..])?;
        rest = r;
        if self_closing {
            stack.last_mut().expect("parent").children.push(el);
        } else {
            stack.push(el);
        }
    }
    if stack.len() != 1 {
        return Err(NotXml(format!(
            "<{}> is not closed",
            stack.last().expect("open").name
        )));
    }
    let mut doc = stack.pop().expect("document");
    match doc.children.len() {
        1 => Ok(doc.children.pop().expect("root")),
        n => Err(NotXml(format!("{n} root elements"))),
    }
}

/// A start tag read from just after its `<`: the element with its
/// attributes, whether it closes itself (`/>`), and the text after it.
fn start_tag(r: &str) -> Result<(Element, bool, &str), NotXml> {
    let name_end = r
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .ok_or("unterminated start tag")?;
    let mut el = Element {
        name: r[..name_end].to_string(),
        ..Element::default()
    };
    if el.name.is_empty() || !el.name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(NotXml(format!("bad element name {:?}", el.name)));
    }
    let mut r = &r[name_end..];
    loop {
        r = r.trim_start();
        if let Some(after) = r.strip_prefix("/>") {
            return Ok((el, true, after));
        }
        if let Some(after) = r.strip_prefix('>') {
            return Ok((el, false, after));
        }
        let eq = r.find('=').ok_or("attribute without a value")?;
        let key = r[..eq].trim().to_string();
        let quote = r[eq + 1..]
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .ok_or_else(|| format!("attribute {key} is not quoted"))?;
        let body = &r[eq + 2..];
        let close = body.find(quote).ok_or("unterminated attribute")?;
        let raw = &body[..close];
        if raw.contains('<') {
            return Err(NotXml(format!("`<` in attribute {key}")));
        }
        if el.attrs.insert(key.clone(), decode(raw)?).is_some() {
            return Err(NotXml(format!("attribute {key} twice")));
        }
        r = &body[close + 1..];
    }
}

/// `s` with its entity references decoded; a bare `&` is an error.
fn decode(s: &str) -> Result<String, NotXml> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let r = &rest[i + 1..];
        let end = r.find(';').ok_or_else(|| format!("bare & in {s:?}"))?;
        let ch = match &r[..end] {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with('#') => e[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("bad character reference &{e};"))?,
            e => return Err(NotXml(format!("unknown entity &{e};"))),
        };
        out.push(ch);
        rest = &r[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The cells of a Markdown table row: split at the pipes that are not
/// escaped (`\|`), without the outer ones.
pub(crate) fn md_cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut chars = line.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().expect("a cell").push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().expect("a cell").push(c),
        }
    }
    // `| a | b |` splits into "", " a ", " b ", "".
    cells.remove(0);
    cells.pop();
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// Every Markdown table of `md` (runs of lines starting with `|`), as its
/// rows of cells, the header first; panics when a row has another number
/// of cells than its header or the second line is not the delimiter row.
pub(crate) fn md_tables(md: &str) -> Vec<Vec<Vec<String>>> {
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut in_table = false;
    for line in md.lines() {
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if !in_table {
            tables.push(Vec::new());
            in_table = true;
        }
        tables.last_mut().expect("a table").push(md_cells(line));
    }
    for t in &tables {
        let width = t[0].len();
        assert!(
            t.len() >= 2 && t[1].iter().all(|c| c.trim_matches([':', '-']).is_empty()),
            "no delimiter row under {:?}",
            t[0]
        );
        for row in t {
            assert_eq!(row.len(), width, "{row:?} under the header {:?}", t[0]);
        }
    }
    tables
}

/// The table of `md` whose header starts with `first` cells.
pub(crate) fn md_table<'a>(
    tables: &'a [Vec<Vec<String>>],
    header: &[&str],
) -> &'a Vec<Vec<String>> {
    tables
        .iter()
        .find(|t| t[0].iter().zip(header).all(|(a, b)| a == b) && t[0].len() >= header.len())
        .unwrap_or_else(|| panic!("no table with the header {header:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_xml_reader_rejects_what_is_not_well_formed() {
        let root = parse_xml("<?xml version=\"1.0\"?>\n<a x=\"1 &lt; 2\"><b/>t&amp;u</a>\n")
            .expect("well formed");
        assert_eq!((root.name.as_str(), root.attr("x")), ("a", "1 < 2"));
        assert_eq!((root.children.len(), root.text.as_str()), (1, "t&u"));
        for bad in [
            "<a><b></a></b>",
            "<a x=1/>",
            "<a>1 < 2</a>",
            "<a>R&D</a>",
            "<a x=\"<\"/>",
            "<a>",
            "<a/><b/>",
            "<a>\u{1}</a>",
            "<a>\u{ffff}</a>",
        ] {
            assert!(parse_xml(bad).is_err(), "{bad:?} read as well formed");
        }
    }

    #[test]
    fn the_table_reader_splits_at_unescaped_pipes_only() {
        assert_eq!(md_cells("| a | `\\|\\|` | c |"), ["a", "`||`", "c"]);
        let t = md_tables("x\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |\n");
        assert_eq!(t.len(), 2);
        assert_eq!(t[0][2], ["1", "2"]);
        let uneven =
            std::panic::catch_unwind(|| md_tables("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n"));
        assert!(uneven.is_err());
    }
}
