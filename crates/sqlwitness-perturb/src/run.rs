//! Building a perturbed set: sampling, transforming copies of the
//! databases, rewriting and verifying golds, writing the benchmark.

use sqlwitness_migrate::Unplaced;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};
use sqlwitness_bench::{
    load_benchmark, load_tables_json, read_json_array, BenchmarkFormat, PredictedSql, TableSchema,
};
use sqlwitness_core::{
    compare, CompareMode, CompareOptions, Database, DbError, Engine, QueryLimits, ResultSet,
};
use sqlwitness_dialect::EngineFacts;
use sqlwitness_engines::sqlite_schema_names;
use sqlwitness_sql::{has_top_level_order_by, ColumnChange, RewriteError, SchemaChange};

use crate::content::{applicable, quote, sql_text, ContentChange, Rules};
use crate::dictionary::{load_renames, Dictionary};
use crate::names::{is_reserved, same_name};
use crate::output::{
    render_markdown, AppliedChange, DroppedQuestion, FailedChange, KindSummary, MappedQuestion,
    Mapping, PerturbedDatabase, PredictionSummary, SkippedDatabase, MAPPING_FORMAT,
};
use crate::rng::Rng;
use crate::{Kind, Options, PerturbError, ServerReference, SourceEntry};

/// How a skipped database's reason begins when its file cannot be used
/// (the CLI exits 3 for it).
pub const UNUSABLE: &str = "database unusable: ";

/// One planned change of a column.
#[derive(Debug, Clone)]
enum Planned {
    Rename {
        table: String,
        column: String,
        to: String,
    },
    Content(ContentChange),
}

impl Planned {
    fn key(&self) -> String {
        match self {
            Planned::Rename { table, column, to } => format!("{table}.{column}>{to}"),
            Planned::Content(c) => format!("{}.{}~{}", c.table, c.column, c.rule),
        }
    }

    fn column(&self) -> (&str, &str) {
        match self {
            Planned::Rename { table, column, .. } => (table, column),
            Planned::Content(c) => (&c.table, &c.column),
        }
    }

    fn sql(&self) -> Vec<String> {
        match self {
            Planned::Rename { table, column, to } => vec![format!(
                "ALTER TABLE {} RENAME COLUMN {} TO {}",
                quote(table),
                quote(column),
                quote(to)
            )],
            Planned::Content(c) => c.apply_sql(),
        }
    }

    fn change(&self) -> ColumnChange {
        match self {
            Planned::Rename { to, .. } => ColumnChange::Rename { to: to.clone() },
            Planned::Content(c) => c.change.clone(),
        }
    }

    fn applied(&self) -> AppliedChange {
        match self {
            Planned::Rename { table, column, to } => AppliedChange {
                table: table.clone(),
                column: column.clone(),
                change: "rename".into(),
                to: Some(to.clone()),
                rule: None,
                new_columns: Vec::new(),
                expression: None,
            },
            Planned::Content(c) => AppliedChange {
                table: c.table.clone(),
                column: c.column.clone(),
                change: "replace".into(),
                to: None,
                rule: Some(c.rule.clone()),
                new_columns: c.new_columns.iter().map(|n| n.0.clone()).collect(),
                expression: Some(c.expression()),
            },
        }
    }
}

/// What can change in one database: for renames, a column and its
/// candidate names; for content, one replacement.
#[derive(Debug, Clone)]
enum Candidate {
    Rename {
        table: String,
        column: String,
        names: Vec<String>,
        /// Key columns of the same name joined to this one by a foreign
        /// key: renamed with it, to the same name (a join reads `a.x = b.x`
        /// before and after).
        also: Vec<(String, String)>,
    },
    Content(ContentChange),
}

/// Builds the perturbed set described by `opts`; `progress` hears one line
/// per database. The stages: the options read into [`Inputs`] (every
/// input file read and checked before anything is written), each database
/// perturbed in turn ([`Perturber::database`], one sampled plan at a time
/// in [`Run::sample`]), then the set written ([`Perturber::finish`]).
pub fn perturb(opts: &Options, progress: &dyn Fn(&str)) -> Result<Mapping, PerturbError> {
    perturb_on(opts, None, progress)
}

/// [`perturb`] with the golds judged on a server engine
/// ([`ServerReference`]): a question is kept only if its gold in that
/// engine's dialect, rewritten, returns on the perturbed copy there what
/// the original returns on the original copy. Content-equivalence is
/// refused there: its replacements are SQLite expressions.
pub fn perturb_on(
    opts: &Options,
    reference: Option<&ServerReference<'_>>,
    progress: &dyn Fn(&str),
) -> Result<Mapping, PerturbError> {
    let perturber = Perturber::new(opts, reference)?;
    empty_output(&opts.out)?;
    let mut outcomes = Vec::new();
    for db in perturber.databases() {
        let outcome = perturber.database(&db, &|| false)?;
        if let Some(line) = outcome.progress_line() {
            progress(&line);
        }
        outcomes.push(outcome);
    }
    perturber.finish(&outcomes)
}

/// A perturbation run taken one database at a time: the inputs read and
/// checked once ([`Perturber::new`]), each database perturbed on its own
/// into a [`DatabaseOutcome`] ([`Perturber::database`]: the unit a journal
/// records), the set written from the outcomes in database order
/// ([`Perturber::finish`]). The outcome of a database depends only on the
/// inputs, the seed and the database, so the outcomes of an interrupted
/// run and of its continuation make the same set as one uninterrupted run.
pub struct Perturber<'a> {
    opts: &'a Options,
    inputs: Inputs,
    reference: Option<Reference<'a>>,
    /// Reads the original and perturbed files in place: the benchmark's
    /// golds are verified there.
    engine: std::sync::Arc<dyn Engine>,
}

/// What perturbing one database adds to the set: its perturbed databases
/// (their files are in the output's `database/` folder), their
/// `tables.json` entries, kept questions (numbered from 0 within the
/// database; [`Perturber::finish`] numbers them in the set), dropped
/// questions, carried predictions and counts; or why it was skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseOutcome {
    pub db_id: String,
    /// The counts of this database (`original_questions`, `dropped` and
    /// `predictions` are counted over the whole set).
    pub summary: KindSummary,
    pub databases: Vec<PerturbedDatabase>,
    pub skipped: Vec<SkippedDatabase>,
    pub questions: Vec<MappedQuestion>,
    pub dropped: Vec<DroppedQuestion>,
    /// The perturbed databases' `tables.json` entries.
    pub tables: Vec<Json>,
    /// The kept questions' entries of the split's file.
    pub entries: Vec<Json>,
    /// The kept questions' predictions, carried and unchanged.
    pub carried: Vec<String>,
    pub unchanged: Vec<String>,
    pub predictions: PredictionSummary,
    /// A perturbed copy on the reference took the types of the original
    /// copy there (a dump's own).
    pub typed_copies: bool,
}

impl DatabaseOutcome {
    /// The line `perturb` prints for it (none for a skipped database).
    pub fn progress_line(&self) -> Option<String> {
        self.skipped.is_empty().then(|| {
            format!(
                "{}: {} perturbed databases",
                self.db_id,
                self.databases.len()
            )
        })
    }
}

impl<'a> Perturber<'a> {
    /// Reads and checks every input of `opts` (nothing is written).
    pub fn new(
        opts: &'a Options,
        reference: Option<&'a ServerReference<'a>>,
    ) -> Result<Perturber<'a>, PerturbError> {
        if let Some(r) = reference {
            let kind = r.engine.kind();
            if opts.kind == Kind::Content {
                return Err(PerturbError::Input(format!(
                    "--kind content with --reference {kind}: its replacements are SQLite expressions (`||`, SQLite's functions) that cannot be carried into {kind}'s dialect with certainty; use --kind synonym, abbreviation or renames there"
                )));
            }
        }
        let inputs = Inputs::read(opts)?;
        if let Some(r) = reference {
            if r.golds.len() != inputs.bench.questions.len() {
                return Err(PerturbError::Input(format!(
                    "{}: {} golds for {} questions",
                    r.golds_from,
                    r.golds.len(),
                    inputs.bench.questions.len()
                )));
            }
        }
        let reference = reference.map(|server| {
            let kind = server.engine.kind();
            Reference {
                server,
                dialect: sqlwitness_dialect::builtin(kind),
                kind,
            }
        });
        Ok(Perturber {
            opts,
            inputs,
            reference,
            engine: sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None)?,
        })
    }

    /// The benchmark read.
    pub fn benchmark(&self) -> &sqlwitness_bench::Benchmark {
        &self.inputs.bench
    }

    /// The engine the benchmark's golds are verified on, reading the
    /// original and perturbed files in place
    /// ([`sqlwitness_engines::IN_PLACE`]): its queries in flight are
    /// interrupted by [`Engine::cancel_running`].
    pub fn sqlite(&self) -> std::sync::Arc<dyn Engine> {
        self.engine.clone()
    }

    /// The databases to perturb, in order: the benchmark's, or those of
    /// `Options::databases`.
    pub fn databases(&self) -> Vec<String> {
        let wanted: BTreeSet<&str> = self.opts.databases.iter().map(String::as_str).collect();
        self.inputs
            .bench
            .db_ids()
            .into_iter()
            .filter(|db| wanted.is_empty() || wanted.contains(db.as_str()))
            .collect()
    }

    /// The files of perturbed database `pid` (as [`PerturbedDatabase::db_id`]
    /// names it) in the output folder.
    pub fn database_dir(&self, pid: &str) -> std::path::PathBuf {
        self.opts.out.join("database").join(pid)
    }

    /// Perturbs database `db`, writing its perturbed copies into the
    /// output's `database/` folder. `stop` is asked before each sampled
    /// copy and each question: when it says so, the copies of `db` written
    /// so far are removed and the result is [`PerturbError::Interrupted`]
    /// (as on any other error).
    pub fn database(
        &self,
        db: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<DatabaseOutcome, PerturbError> {
        let mut run = Run::new(self, stop);
        let result = run.database(db);
        if result.is_err() {
            for dir in &run.created {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        result?;
        Ok(run.into_outcome(db))
    }

    /// Writes the set made of `outcomes` (in database order): tables.json,
    /// the split's questions and gold file, the predictions carried and
    /// unchanged, perturb.md and last mapping.json — each under a
    /// temporary name (`*.partial`) first, renamed once all are written, so
    /// that `mapping.json` is there only when the set is complete.
    pub fn finish(&self, outcomes: &[DatabaseOutcome]) -> Result<Mapping, PerturbError> {
        let opts = self.opts;
        let mut mapping = base_mapping(opts, &self.inputs, self.reference.as_ref());
        let mut tables = Vec::new();
        let mut entries = Vec::new();
        let (mut carried, mut unchanged) = (Vec::new(), Vec::new());
        let mut pred_summary = PredictionSummary::default();
        let mut original_kept = BTreeSet::new();
        for o in outcomes {
            let s = &mut mapping.summary;
            s.databases += o.summary.databases;
            s.perturbed_databases += o.summary.perturbed_databases;
            s.affected += o.summary.affected;
            s.rewritten += o.summary.rewritten;
            s.verified += o.summary.verified;
            mapping.databases.extend(o.databases.iter().cloned());
            mapping.skipped_databases.extend(o.skipped.iter().cloned());
            for q in &o.questions {
                original_kept.insert(q.original_id);
                let id = mapping.questions.len();
                mapping.questions.push(MappedQuestion { id, ..q.clone() });
            }
            mapping.dropped.extend(o.dropped.iter().cloned());
            tables.extend(o.tables.iter().cloned());
            entries.extend(o.entries.iter().cloned());
            carried.extend(o.carried.iter().cloned());
            unchanged.extend(o.unchanged.iter().cloned());
            pred_summary.rewritten += o.predictions.rewritten;
            pred_summary.unaffected += o.predictions.unaffected;
            pred_summary.not_rewritten += o.predictions.not_rewritten;
            if o.typed_copies {
                if let Some(r) = mapping.reference.as_mut() {
                    r.copies = TYPED_COPIES.into();
                }
            }
        }
        mapping.summary.original_questions = original_kept.len();
        for d in &mapping.dropped {
            *mapping.summary.dropped.entry(d.class.clone()).or_default() += 1;
        }
        let has_predictions = self.inputs.predictions.is_some();
        if has_predictions {
            mapping.summary.predictions = Some(pred_summary);
        }
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let pretty = |v: Json| serde_json::to_vec_pretty(&v).expect("JSON values serialise");
        files.push(("tables.json".into(), pretty(Json::Array(tables))));
        files.push((format!("{}.json", opts.split), pretty(Json::Array(entries))));
        let gold: String = mapping
            .questions
            .iter()
            .map(|q| format!("{}\t{}\n", q.gold, q.db_id))
            .collect();
        files.push((format!("{}_gold.sql", opts.split), gold.into_bytes()));
        if let Some(r) = &self.reference {
            let theirs: String = mapping
                .questions
                .iter()
                .map(|q| {
                    let sql = q.reference_gold.as_deref().unwrap_or_default();
                    format!("{}\t{}\n", sql.replace(['\n', '\r'], " "), q.db_id)
                })
                .collect();
            files.push((r.gold_file(&opts.split), theirs.into_bytes()));
        }
        if has_predictions {
            files.push(("pred_carried.sql".into(), lines(&carried).into_bytes()));
            files.push(("pred_unchanged.sql".into(), lines(&unchanged).into_bytes()));
        }
        files.push(("perturb.md".into(), render_markdown(&mapping).into_bytes()));
        files.push((
            "mapping.json".into(),
            serde_json::to_vec_pretty(&mapping).expect("the mapping serialises"),
        ));
        for (name, bytes) in &files {
            let p = opts.out.join(format!("{name}.partial"));
            std::fs::write(&p, bytes).map_err(|e| PerturbError::io(&p, e))?;
        }
        for (name, _) in &files {
            let (from, to) = (
                opts.out.join(format!("{name}.partial")),
                opts.out.join(name),
            );
            std::fs::rename(&from, &to).map_err(|e| PerturbError::io(&to, e))?;
        }
        Ok(mapping)
    }

    /// The names of the files [`Perturber::finish`] writes into the output
    /// folder (`mapping.json` last).
    pub fn output_files(&self) -> Vec<String> {
        let split = &self.opts.split;
        let mut names = vec![
            "tables.json".to_string(),
            format!("{split}.json"),
            format!("{split}_gold.sql"),
        ];
        if let Some(r) = &self.reference {
            names.push(r.gold_file(split));
        }
        if self.inputs.predictions.is_some() {
            names.extend(["pred_carried.sql".into(), "pred_unchanged.sql".into()]);
        }
        names.extend(["perturb.md".into(), "mapping.json".into()]);
        names
    }
}

/// The mapping of a set before any database is added: how it is made.
fn base_mapping(opts: &Options, inputs: &Inputs, reference: Option<&Reference<'_>>) -> Mapping {
    Mapping {
        format: MAPPING_FORMAT.into(),
        kind: opts.kind.as_str().into(),
        dr_spider_name: opts.kind.dr_spider_name().into(),
        split: opts.split.clone(),
        source: file_name(&opts.bench),
        seed: opts.seed,
        samples: opts.samples,
        reference: reference.map(|r| crate::ReferenceSummary {
            engine: r.kind.to_string(),
            golds: r.server.golds_from.clone(),
            gold_file: r.gold_file(&opts.split),
            copies:
                "migrated from the perturbed SQLite file (types inferred), verified, dropped after"
                    .into(),
        }),
        sources: inputs.sources.clone(),
        summary: KindSummary::default(),
        databases: Vec::new(),
        skipped_databases: Vec::new(),
        questions: Vec::new(),
        dropped: Vec::new(),
    }
}

/// What a perturbation kind changes columns with.
enum Perturbation {
    /// Synonyms or abbreviations.
    Dictionary(Dictionary),
    /// A user's exact renames, per database.
    Renames(crate::dictionary::Renames),
    /// Content-equivalence rules.
    Content(Rules),
}

/// Everything `perturb` reads, read and checked before anything is
/// written.
struct Inputs {
    bench: sqlwitness_bench::Benchmark,
    schemas: HashMap<String, TableSchema>,
    /// tables.json and the split's questions as written (entries are
    /// copied with only the changed fields replaced).
    raw_tables: Vec<Json>,
    raw_questions: Vec<Json>,
    /// The model's predictions by question, when given (empty: abstained).
    predictions: Option<Vec<String>>,
    perturbation: Perturbation,
    sources: Vec<SourceEntry>,
}

impl Inputs {
    fn read(opts: &Options) -> Result<Inputs, PerturbError> {
        if opts.samples == 0 {
            return Err(PerturbError::Input("--samples must be at least 1".into()));
        }
        let bench = load_benchmark(&opts.bench, &opts.split)?;
        if !matches!(
            bench.format,
            BenchmarkFormat::SpiderJson | BenchmarkFormat::SpiderGoldSql
        ) {
            return Err(PerturbError::Input(format!(
                "{}: perturb needs a benchmark in the Spider layout (tables.json, database/, {}.json or {}_gold.sql)",
                opts.bench.display(),
                opts.split,
                opts.split
            )));
        }
        let tables_path = opts.bench.join("tables.json");
        let schemas = load_tables_json(&tables_path)?;
        let raw_tables = read_json_array(&tables_path, "schemas")?;
        let raw_questions: Vec<Json> = match bench.format {
            BenchmarkFormat::SpiderJson => read_json_array(&bench.source_file, "questions")?,
            _ => Vec::new(),
        };
        // Read exactly as `eval --pred` reads them.
        let predictions: Option<Vec<String>> = match &opts.predictions {
            Some(p) => {
                let preds = sqlwitness_bench::load_predictions(p, &bench)?;
                let mut lines = vec![String::new(); bench.questions.len()];
                for pr in preds {
                    if let (Some(slot), PredictedSql::Sql(sql)) = (lines.get_mut(pr.id), pr.sql) {
                        *slot = sql;
                    }
                }
                Some(lines)
            }
            None => None,
        };
        let (perturbation, sources) = Inputs::perturbation(opts)?;
        Ok(Inputs {
            bench,
            schemas,
            raw_tables,
            raw_questions,
            predictions,
            perturbation,
            sources,
        })
    }

    /// The kind's dictionary, renames or rules, with their sources.
    fn perturbation(opts: &Options) -> Result<(Perturbation, Vec<SourceEntry>), PerturbError> {
        Ok(match opts.kind {
            Kind::Synonym | Kind::Abbreviation => {
                let mut d = Dictionary::shipped(opts.kind.as_str());
                if let Some(p) = &opts.dictionary {
                    d.extend(Dictionary::load(p)?);
                }
                let sources = d.sources.clone();
                (Perturbation::Dictionary(d), sources)
            }
            Kind::Renames => {
                let p = opts.renames.as_ref().ok_or_else(|| {
                    PerturbError::Input("--kind renames needs --renames FILE".into())
                })?;
                let src = SourceEntry {
                    name: format!("user renames file {}", file_name(p)),
                    license: None,
                    used_for: Some("exact renames".into()),
                };
                (Perturbation::Renames(load_renames(p)?), vec![src])
            }
            Kind::Content => {
                let rules = match &opts.content_rules {
                    Some(p) => Rules::with_user(p)?,
                    None => Rules::shipped(),
                };
                let sources = rules
                    .sources
                    .iter()
                    .map(|s| SourceEntry {
                        name: s.clone(),
                        license: None,
                        used_for: Some("content-equivalence rules".into()),
                    })
                    .collect();
                (Perturbation::Content(rules), sources)
            }
        })
    }
}

/// The output folder, which must not exist or be empty; its `database/`
/// folder, created.
pub fn empty_output(out: &Path) -> Result<std::path::PathBuf, PerturbError> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| PerturbError::io(out, e))?
            .next()
            .is_none();
        if !empty {
            return Err(PerturbError::Input(format!(
                "{}: the output folder exists and is not empty",
                out.display()
            )));
        }
    }
    let db_dir = out.join("database");
    std::fs::create_dir_all(&db_dir).map_err(|e| PerturbError::io(&db_dir, e))?;
    Ok(db_dir)
}

/// The column changes a database allows under `perturbation`.
fn candidates(
    perturbation: &Perturbation,
    db: &str,
    schema: &TableSchema,
    actual: &[(String, Vec<String>)],
    path: &Path,
) -> Result<Vec<Candidate>, PerturbError> {
    Ok(match perturbation {
        Perturbation::Dictionary(d) => rename_candidates(d, db, schema, actual),
        Perturbation::Renames(r) => match r.get(db) {
            Some(r) => exact_renames(r, actual),
            None => Vec::new(),
        },
        Perturbation::Content(rules) => content_candidates(rules, path, schema, actual)?,
    })
}

/// The plans to apply to copies of a database: every exact rename at
/// once, or `samples` sampled combinations of the candidates.
fn plans(opts: &Options, db: &str, candidates: &[Candidate]) -> Vec<Vec<Planned>> {
    if opts.kind == Kind::Renames {
        return vec![candidates
            .iter()
            .map(|c| match c {
                Candidate::Rename {
                    table,
                    column,
                    names,
                    ..
                } => Planned::Rename {
                    table: table.clone(),
                    column: column.clone(),
                    to: names[0].clone(),
                },
                Candidate::Content(c) => Planned::Content(c.clone()),
            })
            .collect()];
    }
    sample(
        candidates,
        opts.samples,
        &mut Rng::new(opts.seed, &format!("{}/{db}", opts.kind.as_str())),
    )
}

/// A prediction carried to the perturbed schema by the gold's rewrite: the
/// text written to `pred_carried.sql` and its status in the mapping,
/// counted in `summary`.
fn carry_prediction(
    pred: &str,
    change: &SchemaChange,
    summary: &mut PredictionSummary,
) -> (String, String) {
    if pred.is_empty() {
        summary.unaffected += 1;
        return (String::new(), "abstained".to_string());
    }
    match change.rewrite(
        pred,
        &sqlwitness_dialect::builtin(sqlwitness_core::EngineKind::Sqlite),
    ) {
        Ok(r) if r.touched.is_empty() => {
            summary.unaffected += 1;
            (pred.to_string(), "unaffected".to_string())
        }
        Ok(r) => {
            summary.rewritten += 1;
            (r.sql, "rewritten".to_string())
        }
        Err(e) => {
            summary.not_rewritten += 1;
            (pred.to_string(), format!("not rewritten: {e}"))
        }
    }
}

/// A gold rewritten for a perturbed database and verified there: the
/// question, the rewritten SQL, the columns it touches and, on a server
/// reference, that engine's gold rewritten.
type Kept<'q> = (
    &'q sqlwitness_bench::Question,
    String,
    Vec<String>,
    Option<String>,
);

/// What a gold became under a change.
enum Carried {
    /// It mentions no changed column.
    Untouched,
    /// Rewritten: the SQL and the changed columns it mentions.
    Rewritten(String, Vec<String>),
    /// Not rewritten, and it names a changed column (or none: `false`).
    Refused(RewriteError, bool),
}

impl Carried {
    /// Whether the gold counts as affected by the change: rewritten, or
    /// not rewritten while it names a changed column.
    fn affected(&self) -> bool {
        match self {
            Carried::Untouched => false,
            Carried::Rewritten(..) => true,
            Carried::Refused(_, mentions) => *mentions,
        }
    }
}

/// A perturbed copy being made: copy `k` of database `db` (its file
/// `path`), named `pid`, its file `ppath`, the changes applied to it and
/// the schema change they make.
struct PerturbedCopy<'c> {
    db: &'c str,
    path: &'c Path,
    k: usize,
    pid: &'c str,
    ppath: &'c Path,
    applied: &'c [Planned],
    change: &'c SchemaChange,
}

/// The schema change `applied` makes to the tables and columns `actual`.
fn schema_change(actual: &[(String, Vec<String>)], applied: &[Planned]) -> SchemaChange {
    let mut change = SchemaChange::new(actual.to_vec());
    for p in applied {
        let (t, c) = p.column();
        change.change(t, c, p.change());
    }
    change
}

/// The original golds' answers on the original database, by question: on
/// SQLite and on the server reference.
#[derive(Default)]
struct Originals {
    sqlite: HashMap<usize, Result<ResultSet, DbError>>,
    server: HashMap<usize, Result<ResultSet, DbError>>,
    /// The original's names, read once, for the server reference's golds
    /// ([`names_of`]).
    server_names: Option<Option<sqlwitness_sql::NameSet>>,
}

/// The perturbation of one database: the run's inputs, and what the
/// database adds to the set, collected as its copies are made.
struct Run<'a> {
    opts: &'a Options,
    inputs: &'a Inputs,
    db_dir: std::path::PathBuf,
    engine: &'a dyn Engine,
    limits: QueryLimits,
    /// Collects the database's part of the mapping.
    mapping: Mapping,
    out_tables: Vec<Json>,
    out_questions: Vec<Json>,
    carried: Vec<String>,
    unchanged: Vec<String>,
    pred_summary: PredictionSummary,
    reference: Option<&'a Reference<'a>>,
    /// Asked before each copy and each question.
    stop: &'a dyn Fn() -> bool,
    /// The folders of the copies written.
    created: Vec<std::path::PathBuf>,
}

/// The server reference of a run and its engine's dialect.
struct Reference<'a> {
    server: &'a ServerReference<'a>,
    dialect: sqlwitness_dialect::Dialect,
    kind: sqlwitness_core::EngineKind,
}

/// The names of the database in `file`, for queries run on `kind`'s copy
/// of it: `None` where the engine needs none (it does not fold names) or
/// the schema cannot be read (queries then run as written).
fn names_of(kind: sqlwitness_core::EngineKind, file: &Path) -> Option<sqlwitness_sql::NameSet> {
    if !kind.is_server() {
        return None;
    }
    let tables = sqlite_schema_names(file).ok()?;
    Some(sqlwitness_sql::NameSet::new(&tables))
}

impl Reference<'_> {
    /// `sql` with each identifier spelled as `names` spell it, quoted where
    /// the engine would fold it (as `eval` runs a query on a server's
    /// copy); as written without names.
    fn resolved(&self, sql: &str, names: Option<&sqlwitness_sql::NameSet>) -> String {
        match names {
            Some(names) => sqlwitness_sql::resolve_identifiers(sql, names, self.kind),
            None => sql.to_string(),
        }
    }

    /// The output file of its golds.
    fn gold_file(&self, split: &str) -> String {
        format!("{split}_gold_{}.sql", self.kind)
    }

    /// Whether `sql` (its dialect) orders its answer at the top level.
    fn ordered(&self, sql: &str) -> bool {
        let dialects = sqlwitness_sql::written_for(self.dialect.grammar);
        sqlwitness_sql::has_top_level_order_by(sql, &dialects).unwrap_or(true)
    }
}

/// How perturbed copies reach the reference when the original there is a
/// dump's own-typed copy (`reference.copies` in the mapping).
const TYPED_COPIES: &str = "migrated from the perturbed SQLite file with the original copy's \
column types (the dump's own; a renamed column its original name's, a replaced or new column \
inferred), read back in full, dropped after";

/// A perturbed copy migrated into a scratch namespace on the reference,
/// dropped when this drops.
struct Scratch<'a> {
    target: &'a sqlwitness_migrate::MigrationTarget,
    db: Database,
    /// Some column took the original copy's type.
    typed: bool,
    /// The copy's names, read once, for the golds run on it ([`names_of`]).
    names: Option<sqlwitness_sql::NameSet>,
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        // One that cannot be dropped is left stamped; the next run with
        // the same prefix replaces it.
        if sqlwitness_migrate::drop_namespace(self.target, &self.db.namespace).is_ok() {
            sqlwitness_engines::unlease_namespace(
                self.target.engine,
                &self.target.url,
                &self.db.namespace,
            );
        }
    }
}

impl<'a> Run<'a> {
    fn new(p: &'a Perturber<'a>, stop: &'a dyn Fn() -> bool) -> Run<'a> {
        let (opts, inputs) = (p.opts, &p.inputs);
        Run {
            opts,
            inputs,
            db_dir: opts.out.join("database"),
            engine: p.engine.as_ref(),
            limits: QueryLimits {
                timeout: opts.timeout,
                ..QueryLimits::default()
            },
            mapping: base_mapping(opts, inputs, p.reference.as_ref()),
            out_tables: Vec::new(),
            out_questions: Vec::new(),
            carried: Vec::new(),
            unchanged: Vec::new(),
            pred_summary: PredictionSummary::default(),
            reference: p.reference.as_ref(),
            stop,
            created: Vec::new(),
        }
    }

    /// What the database added, collected.
    fn into_outcome(self, db: &str) -> DatabaseOutcome {
        let typed_copies = self
            .mapping
            .reference
            .as_ref()
            .is_some_and(|r| r.copies == TYPED_COPIES);
        DatabaseOutcome {
            db_id: db.to_string(),
            summary: self.mapping.summary,
            databases: self.mapping.databases,
            skipped: self.mapping.skipped_databases,
            questions: self.mapping.questions,
            dropped: self.mapping.dropped,
            tables: self.out_tables,
            entries: self.out_questions,
            carried: self.carried,
            unchanged: self.unchanged,
            predictions: self.pred_summary,
            typed_copies,
        }
    }

    fn stopped(&self) -> Result<(), PerturbError> {
        if (self.stop)() {
            Err(PerturbError::Interrupted)
        } else {
            Ok(())
        }
    }

    fn skip(&mut self, db: &str, reason: String) -> Result<Option<usize>, PerturbError> {
        self.mapping.skipped_databases.push(SkippedDatabase {
            db_id: db.to_string(),
            reason,
        });
        Ok(None)
    }

    /// Perturbs database `db`: the number of perturbed databases written,
    /// or `None` when it is skipped (the reason is in the mapping).
    fn database(&mut self, db: &str) -> Result<Option<usize>, PerturbError> {
        let inputs = self.inputs;
        let path = inputs.bench.sqlite_path(db);
        if !path.is_file() {
            return self.skip(db, format!("database file missing: {}", path.display()));
        }
        // A link outside the benchmark, an empty, truncated or corrupt file:
        // never read (see `Benchmark::db_unusable`).
        let unusable = inputs.bench.db_unusable(db).or_else(|| {
            sqlwitness_engines::sqlite_probe(&path)
                .err()
                .map(|e| e.to_string())
        });
        if let Some(why) = unusable {
            return self.skip(db, format!("{UNUSABLE}{why}"));
        }
        let Some(schema) = inputs.schemas.get(db) else {
            return self.skip(db, "not in tables.json".into());
        };
        let actual =
            sqlite_schema_names(&path).map_err(|e| PerturbError::sqlite(&path, e.message))?;
        let candidates = candidates(&inputs.perturbation, db, schema, &actual, &path)?;
        if candidates.is_empty() {
            let reason = format!(
                "no column the {} perturbation applies to",
                self.opts.kind.as_str()
            );
            return self.skip(db, reason);
        }
        let questions: Vec<&sqlwitness_bench::Question> = inputs
            .bench
            .questions
            .iter()
            .filter(|q| q.db_id == db)
            .collect();
        if let Some(r) = self.reference {
            self.stopped()?;
            if let Some(why) = self.original_on_server(r, db, &path) {
                return self.skip(db, why);
            }
        }
        let mut originals = Originals::default();
        let mut written = 0;
        for (k, plan) in plans(self.opts, db, &candidates).iter().enumerate() {
            self.stopped()?;
            if self.sample(db, &path, &actual, &questions, &mut originals, k, plan)? {
                written += 1;
            }
        }
        if written > 0 {
            self.mapping.summary.databases += 1;
        }
        Ok(Some(written))
    }

    /// Database `db`'s copy on the reference, migrated from `path` unless
    /// a verified one is there (a dump's own-typed copy is kept as it is);
    /// why it is not available, if it is not.
    fn original_on_server(&self, r: &Reference<'_>, db: &str, path: &Path) -> Option<String> {
        let s = r.server;
        let original = sqlwitness_bench::database_of(db, path, &s.prefix);
        let problem = match sqlwitness_migrate::migrate_database(&original, &s.target, &s.migrate) {
            Ok(report) => report.problem(),
            Err(e) => Some(e.to_string()),
        };
        // A copy made by this run is readable by the run's login only once
        // granted (MySQL and MariaDB logins hold their grants as made).
        let problem = problem.or_else(|| {
            s.login
                .and_then(|l| l.grant_database(&original.namespace).err())
                .map(|e| e.to_string())
        });
        problem.map(|p| {
            format!(
                "original not available on {}: {}: {p}",
                r.kind, original.namespace
            )
        })
    }

    /// Perturbed copy `pid` (its SQLite file `ppath`) migrated into its
    /// scratch namespace on the reference and granted to the run's login.
    /// Where the original there is a dump's own-typed copy, the columns
    /// take its types (a renamed column its original name's; a column
    /// whose content was replaced, or a new one, the inferred type).
    fn scratch(
        r: &Reference<'a>,
        db: &str,
        original_path: &Path,
        k: usize,
        pid: &str,
        ppath: &Path,
        applied: &[Planned],
    ) -> Result<Scratch<'a>, Unplaced> {
        let s = r.server;
        // The original's namespace as the benchmark addresses it (with the
        // suffix of a second benchmark's database of the same `db_id`).
        let original = sqlwitness_bench::database_of(db, original_path, &s.prefix).namespace;
        let db = Database {
            db_id: pid.to_string(),
            sqlite_path: ppath.to_path_buf(),
            namespace: sqlwitness_core::namespace_for(&s.prefix, &format!("{db}__p{k}")),
        };
        // Recorded on the server before it is made: a run killed before it
        // drops the copy leaves it to the next command's sweep.
        let _ = sqlwitness_engines::lease_namespace(s.target.engine, &s.target.url, &db.namespace);
        let names = names_of(s.target.engine, ppath);
        let mut scratch = Scratch {
            target: &s.target,
            db,
            typed: false,
            names,
        };
        let mut from = sqlwitness_migrate::TypesFrom {
            namespace: original,
            ..Default::default()
        };
        for p in applied {
            match p {
                Planned::Rename { table, column, to } => {
                    from.renames
                        .insert((table.clone(), to.clone()), (table.clone(), column.clone()));
                }
                Planned::Content(c) => {
                    from.inferred.insert((c.table.clone(), c.column.clone()));
                    for n in &c.new_columns {
                        from.inferred.insert((c.table.clone(), n.0.clone()));
                    }
                }
            }
        }
        let migrate = sqlwitness_migrate::MigrateOptions {
            types_from: Some(from),
            ..s.migrate.clone()
        };
        let problem = match sqlwitness_migrate::migrate_database(&scratch.db, &s.target, &migrate) {
            Ok(report) => report.problem().map(Unplaced::Unverified).or_else(|| {
                scratch.typed = report
                    .column_types
                    .as_ref()
                    .is_some_and(|c| c.columns_typed > 0);
                s.login
                    .and_then(|l| l.grant_database(&scratch.db.namespace).err())
                    .map(Unplaced::NotGranted)
            }),
            Err(e) => Some(Unplaced::Migration(e)),
        };
        match problem {
            None => Ok(scratch),
            Some(p) => Err(p),
        }
    }

    /// Drops question `id` on `pid`: its gold (the reference `on`'s when
    /// not empty) could not be rewritten.
    fn drop_unrewritten(&mut self, id: usize, pid: &str, e: &RewriteError, on: &str) {
        let on = if on.is_empty() {
            String::new()
        } else {
            format!("{on}: ")
        };
        self.mapping.dropped.push(DroppedQuestion {
            original_id: id,
            db_id: pid.to_string(),
            reason: format!("{on}not rewritten: {e}"),
            class: format!("{on}{}", rewrite_class(e)),
            gold: None,
        });
    }

    /// Whether the reference's gold of question `id`, rewritten to `sql`,
    /// returns on the perturbed copy `copy` what the original returns on
    /// the original copy of `db` there; else the reason's class (naming
    /// the engine) and its detail.
    #[allow(clippy::too_many_arguments)]
    fn verify_on_reference(
        &self,
        r: &Reference<'_>,
        db: &str,
        path: &Path,
        id: usize,
        sql: &str,
        copy: &Result<Scratch<'_>, Unplaced>,
        originals: &mut Originals,
    ) -> Result<(), (String, String)> {
        let on = |(class, detail): (String, String)| (format!("{}: {class}", r.kind), detail);
        let copy = copy
            .as_ref()
            .map_err(|why| on(("perturbed copy not available".to_string(), why.to_string())))?;
        let gold = &r.server.golds[id];
        let Originals {
            server,
            server_names,
            ..
        } = originals;
        let original = server.entry(id).or_insert_with(|| {
            let names = server_names.get_or_insert_with(|| names_of(r.kind, path));
            let original = sqlwitness_bench::database_of(db, path, &r.server.prefix);
            let gold = r.resolved(gold, names.as_ref());
            r.server.engine.execute(&original, &gold, &self.limits)
        });
        verify(
            r.server.engine,
            &self.limits,
            r.ordered(gold),
            original,
            &copy.db,
            &r.resolved(sql, copy.names.as_ref()),
        )
        .map_err(on)
    }

    /// What the change makes of `gold`, read in `dialect` (SQLite's when
    /// none).
    fn carry(
        change: &SchemaChange,
        gold: &str,
        dialect: Option<&sqlwitness_dialect::Dialect>,
        applied: &[Planned],
    ) -> Carried {
        let r = match dialect {
            None => change.rewrite(
                gold,
                &sqlwitness_dialect::builtin(sqlwitness_core::EngineKind::Sqlite),
            ),
            Some(d) => change.rewrite(gold, d),
        };
        match r {
            Ok(r) if r.touched.is_empty() => Carried::Untouched,
            Ok(r) => Carried::Rewritten(r.sql, r.touched),
            Err(e) => {
                let mentions = mentions_changed(gold, applied);
                Carried::Refused(e, mentions)
            }
        }
    }

    /// Applies `plan` to copy `k` of database `db` (its file `path`, its
    /// tables and columns `actual`), rewrites and verifies the golds of
    /// `questions` there; true when the copy is kept (some gold verified).
    #[allow(clippy::too_many_arguments)]
    fn sample<'q>(
        &mut self,
        db: &str,
        path: &Path,
        actual: &[(String, Vec<String>)],
        questions: &[&'q sqlwitness_bench::Question],
        originals: &mut Originals,
        k: usize,
        plan: &[Planned],
    ) -> Result<bool, PerturbError> {
        let pid = format!("{db}_{k}");
        let (pdir, ppath) = self.copy_file(path, &pid)?;
        let (applied, failed) = apply(&ppath, plan)?;
        let change = schema_change(actual, &applied);
        let copy = PerturbedCopy {
            db,
            path,
            k,
            pid: &pid,
            ppath: &ppath,
            applied: &applied,
            change: &change,
        };
        let mut kept: Vec<Kept<'q>> = Vec::new();
        // The perturbed copy on the reference, made when a gold needs it.
        let mut scratch: Option<Result<Scratch<'a>, Unplaced>> = None;
        for q in questions {
            self.stopped()?;
            if let Some(k) = self.question(&copy, q, originals, &mut scratch) {
                kept.push(k);
            }
        }
        if let Some(Ok(copy)) = &scratch {
            if copy.typed {
                if let Some(r) = self.mapping.reference.as_mut() {
                    r.copies = TYPED_COPIES.into();
                }
            }
        }
        drop(scratch);
        if kept.is_empty() {
            std::fs::remove_dir_all(&pdir).map_err(|e| PerturbError::io(&pdir, e))?;
            return Ok(false);
        }
        self.add_copy(&copy, &kept, failed)?;
        Ok(true)
    }

    /// A copy of the database file `path` as perturbed database `pid`, in
    /// its own folder (removed if the run fails): the folder and the file.
    fn copy_file(
        &mut self,
        path: &Path,
        pid: &str,
    ) -> Result<(std::path::PathBuf, std::path::PathBuf), PerturbError> {
        let pdir = self.db_dir.join(pid);
        std::fs::create_dir_all(&pdir).map_err(|e| PerturbError::io(&pdir, e))?;
        self.created.push(pdir.clone());
        let ppath = pdir.join(format!("{pid}.sqlite"));
        std::fs::copy(path, &ppath).map_err(|e| PerturbError::io(&ppath, e))?;
        Ok((pdir, ppath))
    }

    /// Question `q` on the copy, when the change affects its gold or the
    /// reference's: counted, then kept once its rewritten golds verify, or
    /// dropped with the reason (`None`).
    fn question<'q>(
        &mut self,
        copy: &PerturbedCopy<'_>,
        q: &'q sqlwitness_bench::Question,
        originals: &mut Originals,
        scratch: &mut Option<Result<Scratch<'a>, Unplaced>>,
    ) -> Option<Kept<'q>> {
        let (sql, touched, their_sql) = self.rewritten_golds(copy, q)?;
        self.mapping.summary.rewritten += 1;
        let verified = match &sql {
            Some(sql) => self.verify_on_sqlite(copy, q, sql, originals),
            None => Ok(()),
        };
        // The gold a failure is reported with: the reference's when
        // it failed there.
        let mut failed_gold = sql.clone();
        let verified = match (verified, &their_sql, &self.reference) {
            (Ok(()), Some(their), Some(r)) => {
                failed_gold = Some(their.clone());
                let scratch = scratch.get_or_insert_with(|| {
                    Self::scratch(
                        r,
                        copy.db,
                        copy.path,
                        copy.k,
                        copy.pid,
                        copy.ppath,
                        copy.applied,
                    )
                });
                self.verify_on_reference(r, copy.db, copy.path, q.id, their, scratch, originals)
            }
            (v, _, _) => v,
        };
        match verified {
            Ok(()) => Some((q, sql.unwrap_or_else(|| q.gold.clone()), touched, their_sql)),
            Err((class, detail)) => {
                self.mapping.dropped.push(DroppedQuestion {
                    original_id: q.id,
                    db_id: copy.pid.to_string(),
                    reason: if detail.is_empty() {
                        class.clone()
                    } else {
                        format!("{class}: {detail}")
                    },
                    class,
                    gold: failed_gold,
                });
                None
            }
        }
    }

    /// What the copy's change makes of question `q`'s gold and the
    /// reference's: `None` when it affects neither, or when one that names
    /// a changed column cannot be rewritten (the question is dropped).
    /// Else the benchmark's gold rewritten (`None`: it stays as it is), the
    /// changed columns the golds mention, and the reference's gold.
    fn rewritten_golds(
        &mut self,
        copy: &PerturbedCopy<'_>,
        q: &sqlwitness_bench::Question,
    ) -> Option<(Option<String>, Vec<String>, Option<String>)> {
        let own = Self::carry(copy.change, &q.gold, None, copy.applied);
        let theirs = self.reference.as_ref().map(|r| {
            let gold = &r.server.golds[q.id];
            Self::carry(copy.change, gold, Some(&r.dialect), copy.applied)
        });
        if !own.affected() && !theirs.as_ref().is_some_and(Carried::affected) {
            return None;
        }
        self.mapping.summary.affected += 1;
        let (sql, mut touched) = match own {
            Carried::Rewritten(sql, touched) => (Some(sql), touched),
            Carried::Refused(e, true) => {
                self.drop_unrewritten(q.id, copy.pid, &e, "");
                return None;
            }
            // Only the reference's gold names a changed column: the
            // benchmark's stays as it is.
            _ => (None, Vec::new()),
        };
        let their_sql = match theirs {
            None => None,
            Some(Carried::Rewritten(sql, t)) => {
                for c in t {
                    if !touched.contains(&c) {
                        touched.push(c);
                    }
                }
                Some(sql)
            }
            Some(Carried::Refused(e, _)) => {
                let on = self.reference.as_ref().map(|r| r.kind.to_string());
                self.drop_unrewritten(q.id, copy.pid, &e, &on.unwrap_or_default());
                return None;
            }
            Some(Carried::Untouched) => self
                .reference
                .as_ref()
                .map(|r| r.server.golds[q.id].clone()),
        };
        Some((sql, touched, their_sql))
    }

    /// Whether question `q`'s gold rewritten to `sql` returns on the copy
    /// what the gold returns on the original (run once a question).
    fn verify_on_sqlite(
        &self,
        copy: &PerturbedCopy<'_>,
        q: &sqlwitness_bench::Question,
        sql: &str,
        originals: &mut Originals,
    ) -> Result<(), (String, String)> {
        let original = originals.sqlite.entry(q.id).or_insert_with(|| {
            self.engine.execute(
                &Database::new(copy.db.to_string(), copy.path.to_path_buf()),
                &q.gold,
                &self.limits,
            )
        });
        let perturbed = Database::new(copy.pid.to_string(), copy.ppath.to_path_buf());
        let ordered = has_top_level_order_by(&q.gold, sqlwitness_sql::SQLITE_ONLY).unwrap_or(true);
        verify(
            self.engine,
            &self.limits,
            ordered,
            original,
            &perturbed,
            sql,
        )
    }

    /// Adds a copy that keeps questions to the set: its `tables.json`
    /// entry, its questions and its changes.
    fn add_copy(
        &mut self,
        copy: &PerturbedCopy<'_>,
        kept: &[Kept<'_>],
        failed: Vec<FailedChange>,
    ) -> Result<(), PerturbError> {
        self.mapping.summary.perturbed_databases += 1;
        self.mapping.summary.verified += kept.len();
        self.out_tables.push(perturbed_tables_entry(
            &self.inputs.raw_tables,
            copy.db,
            copy.pid,
            copy.applied,
            copy.ppath,
        )?);
        for k in kept {
            self.keep(copy.db, copy.pid, copy.change, k);
        }
        self.mapping.databases.push(PerturbedDatabase {
            db_id: copy.pid.to_string(),
            original_db_id: copy.db.to_string(),
            sample: copy.k,
            changes: copy.applied.iter().map(Planned::applied).collect(),
            failed_changes: failed,
            questions: kept.len(),
        });
        Ok(())
    }

    /// Adds a kept question of database `db` (its gold rewritten for
    /// perturbed database `pid`, and the reference's) to the set (and its
    /// prediction, carried by `change`).
    fn keep(&mut self, db: &str, pid: &str, change: &SchemaChange, kept: &Kept<'_>) {
        let (q, sql, touched, their) = kept;
        let their = their.as_deref();
        let id = self.mapping.questions.len();
        let mut entry = self
            .inputs
            .raw_questions
            .get(q.id)
            .cloned()
            .unwrap_or_else(|| json!({"question": q.question}));
        if let Json::Object(o) = &mut entry {
            for stale in ["sql", "query_toks", "query_toks_no_value"] {
                o.remove(stale);
            }
            o.insert("db_id".into(), json!(pid));
            o.insert("query".into(), json!(sql));
        }
        self.out_questions.push(entry);
        let status = self.inputs.predictions.as_ref().map(|preds| {
            let pred = &preds[q.id];
            self.unchanged.push(pred.clone());
            let (text, status) = carry_prediction(pred, change, &mut self.pred_summary);
            self.carried.push(text);
            status
        });
        self.mapping.questions.push(MappedQuestion {
            id,
            original_id: q.id,
            db_id: pid.to_string(),
            original_db_id: db.to_string(),
            changed_columns: touched.to_vec(),
            original_gold: q.gold.clone(),
            gold: sql.to_string(),
            original_reference_gold: self
                .reference
                .as_ref()
                .map(|r| r.server.golds[q.id].clone()),
            reference_gold: their.map(str::to_string),
            prediction: status,
        });
    }
}

/// Whether `sql` on `perturbed` returns exactly `original` (the original
/// gold's answer on the original database: strict comparison, float
/// tolerance 0, row order when `ordered`: the gold orders); else the
/// reason's class and its detail.
fn verify(
    engine: &dyn Engine,
    limits: &QueryLimits,
    ordered: bool,
    original: &Result<ResultSet, DbError>,
    perturbed: &Database,
    sql: &str,
) -> Result<(), (String, String)> {
    let before = original.as_ref().map_err(|e| {
        (
            "original gold fails on the original database".to_string(),
            e.message.clone(),
        )
    })?;
    let after = engine
        .execute(perturbed, sql, limits)
        .map_err(|e| ("rewritten gold fails".to_string(), e.message))?;
    let opts = CompareOptions {
        mode: CompareMode::Strict,
        ordered,
        column_order_any: false,
        float_rel_tol: 0.0,
    };
    let c = compare(before, &after, &opts);
    if c.equal {
        return Ok(());
    }
    let why = c.reason.map(|r| r.as_str()).unwrap_or("values");
    Err((
        format!("verification: results differ ({why})"),
        String::new(),
    ))
}

fn lines(v: &[String]) -> String {
    v.iter()
        .map(|l| format!("{}\n", l.replace(['\n', '\r'], " ")))
        .collect()
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The exact name of `table` (and its columns) in the database file.
fn actual_table<'a>(
    actual: &'a [(String, Vec<String>)],
    table: &str,
) -> Option<&'a (String, Vec<String>)> {
    actual.iter().find(|(t, _)| t.eq_ignore_ascii_case(table))
}

fn rename_candidates(
    dict: &Dictionary,
    db: &str,
    schema: &TableSchema,
    actual: &[(String, Vec<String>)],
) -> Vec<Candidate> {
    // A new name equal to another column's but for case takes that
    // column's spelling: engines that fold or quote names (PostgreSQL)
    // must not see two spellings of one name.
    let spelling = |n: String| -> String {
        actual
            .iter()
            .flat_map(|(_, cs)| cs)
            .find(|c| c.eq_ignore_ascii_case(&n))
            .cloned()
            .unwrap_or(n)
    };
    // Foreign-key partners of the same name, by column index.
    let name_of = |i: usize| -> Option<(String, String)> {
        let (t, c) = schema.column_names_original.get(i)?;
        let t = schema.table_names_original.get(usize::try_from(*t).ok()?)?;
        let (exact_t, cols) = actual_table(actual, t)?;
        let exact_c = cols.iter().find(|x| x.eq_ignore_ascii_case(c))?;
        Some((exact_t.clone(), exact_c.clone()))
    };
    let mut partners: BTreeMap<(String, String), BTreeSet<(String, String)>> = BTreeMap::new();
    for (a, b) in &schema.foreign_keys {
        if let (Some(x), Some(y)) = (name_of(*a), name_of(*b)) {
            if x != y && x.1.eq_ignore_ascii_case(&y.1) {
                partners.entry(x.clone()).or_default().insert(y.clone());
                partners.entry(y).or_default().insert(x);
            }
        }
    }
    // The whole group of a column (partners of partners).
    let group = |start: &(String, String)| -> BTreeSet<(String, String)> {
        let mut seen = BTreeSet::from([start.clone()]);
        let mut todo = vec![start.clone()];
        while let Some(x) = todo.pop() {
            for y in partners.get(&x).into_iter().flatten() {
                if seen.insert(y.clone()) {
                    todo.push(y.clone());
                }
            }
        }
        seen
    };
    let mut grouped: BTreeSet<(String, String)> = BTreeSet::new();
    let mut out = Vec::new();
    for (ti, table) in schema.table_names_original.iter().enumerate() {
        let Some((exact_t, cols)) = actual_table(actual, table) else {
            continue;
        };
        for (_, column) in schema.columns_of(ti) {
            let Some(exact_c) = cols.iter().find(|c| c.eq_ignore_ascii_case(column)) else {
                continue;
            };
            let me = (exact_t.clone(), exact_c.clone());
            if grouped.contains(&me) {
                continue;
            }
            let members = group(&me);
            // Every member's table must take the name.
            let fits = |n: &String| {
                !is_reserved(n)
                    && members.iter().all(|(t, _)| {
                        actual_table(actual, t)
                            .is_some_and(|(_, cs)| !cs.iter().any(|c| same_name(c, n)))
                    })
            };
            let names: Vec<String> = dict
                .candidates(db, exact_t, exact_c)
                .into_iter()
                .filter(fits)
                .map(spelling)
                .collect();
            grouped.extend(members.iter().cloned());
            if !names.is_empty() {
                out.push(Candidate::Rename {
                    table: exact_t.clone(),
                    column: exact_c.clone(),
                    names,
                    also: members.into_iter().filter(|m| *m != me).collect(),
                });
            }
        }
    }
    out
}

fn exact_renames(
    renames: &BTreeMap<String, String>,
    actual: &[(String, Vec<String>)],
) -> Vec<Candidate> {
    renames
        .iter()
        .filter_map(|(tc, to)| {
            let (t, c) = tc.split_once('.')?;
            let (exact_t, cols) = actual_table(actual, t)?;
            let exact_c = cols.iter().find(|x| x.eq_ignore_ascii_case(c))?;
            Some(Candidate::Rename {
                table: exact_t.clone(),
                column: exact_c.clone(),
                names: vec![to.clone()],
                also: Vec::new(),
            })
        })
        .collect()
}

fn content_candidates(
    rules: &Rules,
    path: &Path,
    schema: &TableSchema,
    actual: &[(String, Vec<String>)],
) -> Result<Vec<Candidate>, PerturbError> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| PerturbError::sqlite(path, e))?;
    // Key columns: tables.json's and the file's own (primary, foreign, both ends).
    let mut keys: BTreeSet<(String, String)> = BTreeSet::new();
    let col_name = |i: usize| -> Option<(String, String)> {
        let (t, c) = schema.column_names_original.get(i)?;
        let t = schema.table_names_original.get(usize::try_from(*t).ok()?)?;
        Some((t.to_ascii_lowercase(), c.to_ascii_lowercase()))
    };
    for k in schema.primary_keys.iter().flat_map(|k| k.columns()) {
        keys.extend(col_name(k));
    }
    for (a, b) in &schema.foreign_keys {
        keys.extend(col_name(*a));
        keys.extend(col_name(*b));
    }
    for (t, _) in actual {
        let q = format!("SELECT name, pk FROM pragma_table_info({})", sql_text(t));
        let mut stmt = conn
            .prepare(&q)
            .map_err(|e| PerturbError::sqlite(path, e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| PerturbError::sqlite(path, e))?;
        for row in rows.flatten() {
            if row.1 > 0 {
                keys.insert((t.to_ascii_lowercase(), row.0.to_ascii_lowercase()));
            }
        }
        let q = format!(
            "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list({})",
            sql_text(t)
        );
        let mut stmt = conn
            .prepare(&q)
            .map_err(|e| PerturbError::sqlite(path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                ))
            })
            .map_err(|e| PerturbError::sqlite(path, e))?;
        for (parent, from, to) in rows.flatten() {
            keys.insert((t.to_ascii_lowercase(), from.to_ascii_lowercase()));
            if let Some(to) = to {
                keys.insert((parent.to_ascii_lowercase(), to.to_ascii_lowercase()));
            }
        }
    }
    let mut out = Vec::new();
    for (t, cols) in actual {
        for c in cols {
            if keys.contains(&(t.to_ascii_lowercase(), c.to_ascii_lowercase())) {
                continue;
            }
            // A column whose data cannot be read as the rule needs is skipped.
            if let Ok(Some(change)) = applicable(rules, &conn, t, c, cols) {
                out.push(Candidate::Content(change));
            }
        }
    }
    Ok(out)
}

/// Up to `rounds` distinct subsets of the candidates (each column in with
/// probability ½, never none; a rename takes one of its names at random).
fn sample(candidates: &[Candidate], rounds: usize, rng: &mut Rng) -> Vec<Vec<Planned>> {
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut out = Vec::new();
    for _ in 0..rounds * 4 {
        if out.len() == rounds {
            break;
        }
        let mut chosen: Vec<usize> = (0..candidates.len()).filter(|_| rng.coin()).collect();
        if chosen.is_empty() {
            chosen.push(rng.below(candidates.len()));
        }
        let mut plan: Vec<Planned> = Vec::new();
        for i in chosen {
            match &candidates[i] {
                Candidate::Rename {
                    table,
                    column,
                    names,
                    also,
                } => {
                    let mut to = names[rng.below(names.len())].clone();
                    // One spelling per name across the database's tables.
                    if let Some(Planned::Rename { to: first, .. }) = plan.iter().find(|p| {
                        matches!(p, Planned::Rename { to: o, .. } if o.eq_ignore_ascii_case(&to))
                    }) {
                        to = first.clone();
                    }
                    let members: Vec<(&String, &String)> = std::iter::once((table, column))
                        .chain(also.iter().map(|(t, c)| (t, c)))
                        .collect();
                    // Two columns of one table never take the same name.
                    let clash = plan.iter().any(|p| match p {
                        Planned::Rename {
                            table: t, to: o, ..
                        } => members.iter().any(|(mt, _)| *mt == t) && same_name(o, &to),
                        Planned::Content(_) => false,
                    });
                    if clash {
                        continue;
                    }
                    for (t, c) in members {
                        plan.push(Planned::Rename {
                            table: t.clone(),
                            column: c.clone(),
                            to: to.clone(),
                        });
                    }
                }
                Candidate::Content(c) => plan.push(Planned::Content(c.clone())),
            }
        }
        let key: Vec<String> = plan.iter().map(Planned::key).collect();
        if seen.insert(key) {
            out.push(plan);
        }
    }
    out
}

/// Applies each change in its own savepoint; a change the database
/// refuses is rolled back and reported. The file is vacuumed after.
fn apply(path: &Path, plan: &[Planned]) -> Result<(Vec<Planned>, Vec<FailedChange>), PerturbError> {
    let conn = Connection::open(path).map_err(|e| PerturbError::sqlite(path, e))?;
    conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = OFF;")
        .map_err(|e| PerturbError::sqlite(path, e))?;
    let mut applied = Vec::new();
    let mut failed = Vec::new();
    for p in plan {
        conn.execute_batch("SAVEPOINT change")
            .map_err(|e| PerturbError::sqlite(path, e))?;
        let result = p.sql().iter().try_for_each(|s| conn.execute_batch(s));
        match result {
            Ok(()) => {
                conn.execute_batch("RELEASE change")
                    .map_err(|e| PerturbError::sqlite(path, e))?;
                applied.push(p.clone());
            }
            Err(e) => {
                conn.execute_batch("ROLLBACK TO change; RELEASE change")
                    .map_err(|e| PerturbError::sqlite(path, e))?;
                failed.push(FailedChange {
                    change: p.applied(),
                    reason: e.to_string(),
                });
            }
        }
    }
    conn.execute_batch("VACUUM")
        .map_err(|e| PerturbError::sqlite(path, e))?;
    Ok((applied, failed))
}

/// One column of a perturbed `tables.json` entry.
struct ColEntry {
    table: i64,
    name: String,
    natural: String,
    ty: String,
    /// Its index in the original entry (none for a new column).
    old: Option<usize>,
}

/// The `tables.json` entry of a perturbed database: the original entry
/// with the new names (natural-language `column_names` too) and, for
/// replaced columns, the new columns at the end of their table (where the
/// database has them), keys re-indexed.
fn perturbed_tables_entry(
    raw: &[Json],
    db: &str,
    pid: &str,
    applied: &[Planned],
    ppath: &Path,
) -> Result<Json, PerturbError> {
    let entry = raw
        .iter()
        .find(|e| e.get("db_id").and_then(Json::as_str) == Some(db))
        .cloned()
        .ok_or_else(|| PerturbError::Input(format!("{db}: not in tables.json")))?;
    let tables: Vec<String> = entry
        .get("table_names_original")
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let cols = perturbed_columns(&entry, &tables, applied);
    let e = with_columns(entry, pid, &cols);
    check_new_columns(ppath, &tables, &cols)?;
    Ok(e)
}

/// Table `ti` of a `tables.json` entry's `tables`.
fn table_of(tables: &[String], ti: i64) -> Option<&String> {
    usize::try_from(ti).ok().and_then(|i| tables.get(i))
}

/// The columns of a perturbed database's `tables.json` entry, in order:
/// the original `entry`'s (its `tables`), renamed where `applied` renames
/// them; a replaced column gives way to its new columns, after the last
/// column of its table.
fn perturbed_columns(entry: &Json, tables: &[String], applied: &[Planned]) -> Vec<ColEntry> {
    let orig: Vec<(i64, String)> =
        serde_json::from_value(entry["column_names_original"].clone()).unwrap_or_default();
    let natural: Vec<(i64, String)> =
        serde_json::from_value(entry.get("column_names").cloned().unwrap_or(Json::Null))
            .unwrap_or_else(|_| orig.clone());
    let types: Vec<String> =
        serde_json::from_value(entry["column_types"].clone()).unwrap_or_default();
    let find = |ti: i64, name: &str| {
        applied.iter().find(|p| {
            let (t, c) = p.column();
            table_of(tables, ti).is_some_and(|tn| tn.eq_ignore_ascii_case(t))
                && c.eq_ignore_ascii_case(name)
        })
    };
    let mut cols: Vec<ColEntry> = Vec::new();
    let mut appended: BTreeMap<i64, Vec<ColEntry>> = BTreeMap::new();
    for (i, (ti, name)) in orig.iter().enumerate() {
        let nat = natural
            .get(i)
            .map(|n| n.1.clone())
            .unwrap_or_else(|| name.clone());
        let ty = types.get(i).cloned().unwrap_or_else(|| "text".into());
        let entry = |name: &str, natural: String, ty: String, old| ColEntry {
            table: *ti,
            name: name.to_string(),
            natural,
            ty,
            old,
        };
        match find(*ti, name) {
            Some(Planned::Rename { to, .. }) => {
                cols.push(entry(to, crate::names::words(to).join(" "), ty, Some(i)));
            }
            Some(Planned::Content(c)) => {
                for (n, sql_ty, _) in &c.new_columns {
                    let ty = if *sql_ty == "TEXT" { "text" } else { "number" };
                    let e = entry(n, crate::names::words(n).join(" "), ty.into(), None);
                    appended.entry(*ti).or_default().push(e);
                }
            }
            None => cols.push(entry(name, nat, ty, Some(i))),
        }
    }
    // Appended columns go after the last column of their table.
    for (ti, extra) in appended {
        let pos = cols
            .iter()
            .rposition(|c| c.table == ti)
            .map(|p| p + 1)
            .unwrap_or(cols.len());
        for (k, e) in extra.into_iter().enumerate() {
            cols.insert(pos + k, e);
        }
    }
    cols
}

/// `entry` as perturbed database `pid`'s, with the columns `cols` and its
/// primary and foreign keys re-indexed to them.
fn with_columns(entry: Json, pid: &str, cols: &[ColEntry]) -> Json {
    let new_index: HashMap<usize, usize> = cols
        .iter()
        .enumerate()
        .filter_map(|(n, c)| c.old.map(|o| (o, n)))
        .collect();
    let remap = |v: &Json| remap_key(v, &new_index);
    let mut e = entry;
    e["db_id"] = json!(pid);
    e["column_names_original"] = json!(cols
        .iter()
        .map(|c| json!([c.table, c.name]))
        .collect::<Vec<_>>());
    e["column_names"] = json!(cols
        .iter()
        .map(|c| json!([c.table, c.natural]))
        .collect::<Vec<_>>());
    e["column_types"] = json!(cols.iter().map(|c| c.ty.clone()).collect::<Vec<_>>());
    if let Some(pks) = e.get("primary_keys").and_then(Json::as_array).cloned() {
        e["primary_keys"] = Json::Array(pks.iter().map(&remap).collect());
    }
    if let Some(fks) = e.get("foreign_keys").and_then(Json::as_array).cloned() {
        e["foreign_keys"] = Json::Array(fks.iter().map(&remap).collect());
    }
    e
}

/// A key of a `tables.json` entry (a column index, or an array of them)
/// with each index as `new_index` maps it; an index it does not map (the
/// column is gone) becomes `null`.
fn remap_key(v: &Json, new_index: &HashMap<usize, usize>) -> Json {
    let index = |n: &serde_json::Number| {
        n.as_u64()
            .and_then(|o| new_index.get(&(o as usize)))
            .map(|n| json!(n))
            .unwrap_or(Json::Null)
    };
    match v {
        Json::Number(n) => index(n),
        Json::Array(a) => Json::Array(
            a.iter()
                .map(|x| match x {
                    Json::Number(n) => index(n),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Checks that the file `ppath` agrees with the entry: every new column of
/// `cols` exists in the database.
fn check_new_columns(
    ppath: &Path,
    tables: &[String],
    cols: &[ColEntry],
) -> Result<(), PerturbError> {
    let actual =
        sqlite_schema_names(ppath).map_err(|err| PerturbError::sqlite(ppath, err.message))?;
    for c in cols {
        let Some(t) = table_of(tables, c.table) else {
            continue;
        };
        let present = actual_table(&actual, t)
            .is_some_and(|(_, cs)| cs.iter().any(|x| x.eq_ignore_ascii_case(&c.name)));
        if !present && c.old.is_none() {
            return Err(PerturbError::sqlite(
                ppath,
                format!("new column {t}.{} missing after the change", c.name),
            ));
        }
    }
    Ok(())
}

/// The gold names a changed column as a word (for golds that could not be
/// parsed or resolved: counted as affected, dropped with the reason).
fn mentions_changed(sql: &str, applied: &[Planned]) -> bool {
    let lower = sql.to_ascii_lowercase();
    let words: BTreeSet<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    applied
        .iter()
        .any(|p| words.contains(p.column().1.to_ascii_lowercase().as_str()))
}

fn rewrite_class(e: &RewriteError) -> String {
    match e {
        RewriteError::Parse(_) => "not rewritten: does not parse".into(),
        RewriteError::NotAQuery => "not rewritten: not a single query".into(),
        RewriteError::Ambiguous(_) => "not rewritten: ambiguous column reference".into(),
        RewriteError::Unsupported(m) => {
            let head = m.split(" over ").next().unwrap_or(m);
            let head = head.split(" (").next().unwrap_or(head);
            format!("not rewritten: unsupported {head}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(kind: Kind) -> Options {
        Options {
            bench: "bench".into(),
            split: "dev".into(),
            kind,
            samples: 3,
            seed: 7,
            out: "out".into(),
            dictionary: None,
            renames: None,
            content_rules: None,
            predictions: None,
            databases: Vec::new(),
            timeout: std::time::Duration::from_secs(1),
        }
    }

    fn rename(column: &str, names: &[&str]) -> Candidate {
        Candidate::Rename {
            table: "singer".into(),
            column: column.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
            also: Vec::new(),
        }
    }

    #[test]
    fn a_prediction_is_carried_by_the_golds_rewrite_and_counted() {
        let mut change = SchemaChange::new(vec![(
            "singer".to_string(),
            vec!["name".to_string(), "age".to_string()],
        )]);
        change.change(
            "singer",
            "name",
            ColumnChange::Rename {
                to: "full_name".into(),
            },
        );
        let mut summary = PredictionSummary::default();
        let carried = [
            carry_prediction("", &change, &mut summary),
            carry_prediction("SELECT age FROM singer", &change, &mut summary),
            carry_prediction("SELECT name FROM singer", &change, &mut summary),
            carry_prediction("SELECT name FROM", &change, &mut summary),
        ];
        assert_eq!(carried[0], (String::new(), "abstained".to_string()));
        assert_eq!(carried[1].1, "unaffected");
        assert_eq!(carried[1].0, "SELECT age FROM singer");
        assert_eq!(carried[2].1, "rewritten");
        assert!(carried[2].0.contains("full_name"), "{:?}", carried[2]);
        assert!(
            carried[3].1.starts_with("not rewritten: "),
            "{:?}",
            carried[3]
        );
        assert_eq!(carried[3].0, "SELECT name FROM");
        assert_eq!(
            (summary.unaffected, summary.rewritten, summary.not_rewritten),
            (2, 1, 1)
        );
    }

    #[test]
    fn exact_renames_make_one_plan_and_other_kinds_sample_reproducibly() {
        let candidates = [
            rename("name", &["full_name", "title"]),
            rename("age", &["years"]),
        ];
        let exact = plans(&options(Kind::Renames), "concert_singer", &candidates);
        assert_eq!(exact.len(), 1);
        let keys: Vec<String> = exact[0].iter().map(Planned::key).collect();
        assert_eq!(keys, ["singer.name>full_name", "singer.age>years"]);

        let sampled = plans(&options(Kind::Synonym), "concert_singer", &candidates);
        assert!(
            !sampled.is_empty() && sampled.len() <= 3,
            "{}",
            sampled.len()
        );
        let again = plans(&options(Kind::Synonym), "concert_singer", &candidates);
        let keys = |p: &[Vec<Planned>]| -> Vec<Vec<String>> {
            p.iter()
                .map(|plan| plan.iter().map(Planned::key).collect())
                .collect()
        };
        assert_eq!(
            keys(&sampled),
            keys(&again),
            "the same seed, the same plans"
        );
    }

    #[test]
    fn a_perturbed_entry_renames_appends_new_columns_and_reindexes_keys() {
        let entry = json!({
            "db_id": "concert_singer",
            "table_names_original": ["singer", "concert"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"], [1, "singer_id"]],
            "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"], [1, "singer"]],
            "column_types": ["text", "number", "text", "number", "number"],
            "primary_keys": [1, 2],
            "foreign_keys": [[4, 1]],
        });
        let tables = ["singer".to_string(), "concert".to_string()];
        let split = ContentChange {
            table: "singer".into(),
            column: "name".into(),
            rule: "full-name-to-first-and-last".into(),
            new_columns: vec![
                ("first_name".into(), "TEXT", String::new()),
                ("last_name".into(), "TEXT", String::new()),
            ],
            change: ColumnChange::Replace {
                template: "{t}first_name || ' ' || {t}last_name".into(),
                equal: Vec::new(),
            },
        };
        let applied = [
            Planned::Content(split),
            Planned::Rename {
                table: "SINGER".into(),
                column: "Age".into(),
                to: "years_old".into(),
            },
        ];
        let cols = perturbed_columns(&entry, &tables, &applied);
        let got: Vec<(i64, &str, &str, &str, Option<usize>)> = cols
            .iter()
            .map(|c| {
                (
                    c.table,
                    c.name.as_str(),
                    c.natural.as_str(),
                    c.ty.as_str(),
                    c.old,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (-1, "*", "*", "text", Some(0)),
                (0, "id", "id", "number", Some(1)),
                (0, "years_old", "years old", "number", Some(3)),
                (0, "first_name", "first name", "text", None),
                (0, "last_name", "last name", "text", None),
                (1, "singer_id", "singer", "number", Some(4)),
            ]
        );
        let e = with_columns(entry, "concert_singer_0", &cols);
        assert_eq!(e["db_id"], "concert_singer_0");
        assert_eq!(e["column_names_original"][2], json!([0, "years_old"]));
        assert_eq!(e["column_types"].as_array().unwrap().len(), 6);
        // The replaced column's key is gone; the foreign key follows its column.
        assert_eq!(e["primary_keys"], json!([1, null]));
        assert_eq!(e["foreign_keys"], json!([[5, 1]]));
    }

    #[test]
    fn the_output_folder_must_be_new_or_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("set");
        let db_dir = empty_output(&out).unwrap();
        assert!(db_dir.is_dir() && db_dir.ends_with("database"));
        // Now it holds database/: not empty.
        let err = empty_output(&out).unwrap_err().to_string();
        assert!(err.contains("not empty"), "{err}");
    }

    #[test]
    fn a_database_without_exact_renames_has_no_candidates() {
        let renames: crate::dictionary::Renames = BTreeMap::from([(
            "other_db".to_string(),
            BTreeMap::from([("singer.name".to_string(), "full_name".to_string())]),
        )]);
        let schema: TableSchema = serde_json::from_value(json!({
            "db_id": "concert_singer",
            "table_names_original": ["singer"],
            "table_names": ["singer"],
            "column_names_original": [[-1, "*"], [0, "name"]],
            "column_names": [[-1, "*"], [0, "name"]],
            "column_types": ["text", "text"],
            "primary_keys": [],
            "foreign_keys": []
        }))
        .unwrap();
        let actual = vec![("singer".to_string(), vec!["name".to_string()])];
        let found = candidates(
            &Perturbation::Renames(renames),
            "concert_singer",
            &schema,
            &actual,
            Path::new("unused.sqlite"),
        )
        .unwrap();
        assert!(found.is_empty());
    }
}
