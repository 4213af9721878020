//! Auditing one gold query: static rules, proofs on data (ties at the cut,
//! reshuffled copies), cross-engine comparison, rewrites.

use sqlwitness_core::{Database, Engine, EngineKind, QueryLimits, ResultSet};
use sqlwitness_dialect::Grammar;
use sqlwitness_nondet::{analyze, tie_inclusive_rewrite, NondetRule};
use sqlwitness_sql::{has_top_level_order_by, written_for, SchemaInfo, SQLITE_ONLY};

use crate::mechanism::{mechanism, mechanism_with};
use crate::model::{Finding, RewriteCheck, Status, TranslationCheck};
use crate::shuffle::Reshuffles;
use crate::AuditError;
use sqlwitness_nondet::{judge_probe, Evidence, EVIDENCE_ROWS};

/// The gold query to audit.
pub struct AuditQuestion<'a> {
    pub id: usize,
    pub db_id: &'a str,
    pub gold: &'a str,
}

/// An engine the gold is compared on, or the reference engine that judges
/// (see [`audit_question_on`]); `prepare` turns a query's text into what
/// is sent (identifier resolution on a server).
pub struct Target<'a> {
    pub kind: EngineKind,
    pub engine: &'a dyn Engine,
    pub db: Database,
    pub prepare: &'a (dyn Fn(&str) -> String + Sync),
    /// The engine's translation rules (`dialects/<engine>.yaml`).
    pub translations: &'a sqlwitness_dialect::Translations,
    /// The gold this engine runs: its own dialect gold where the benchmark
    /// has one, else the benchmark's gold.
    pub gold: &'a str,
}

impl Target<'_> {
    fn grammar(&self) -> Grammar {
        sqlwitness_dialect::shipped(self.kind).grammar
    }
}

/// One SQLite database with its schema facts and reshuffled copies.
pub struct DbAudit {
    pub db: Database,
    pub schema: SchemaInfo,
    /// The reshuffled copies the golds' reruns go to.
    pub shuffles: Reshuffles,
}

impl DbAudit {
    /// Reads the schema of `db`, without reshuffled copies: the facts an
    /// audit judged on a server engine needs (its proofs are probe
    /// queries and other plans on that engine, not SQLite copies).
    pub fn schema_only(db: Database) -> Result<DbAudit, AuditError> {
        let schema = crate::read_schema(&db.sqlite_path)?;
        Ok(DbAudit {
            db,
            schema,
            shuffles: Reshuffles::none(),
        })
    }

    /// Reads the schema of `db` and builds under `dir` the reshuffled
    /// copies (one per seed) that reruns of `golds` — and of their
    /// tie-inclusive rewrites, with `rewrites` — need: only the tables they
    /// read, and none where those tables keep their order whatever the
    /// shuffle ([`Reshuffles::build`]).
    pub fn prepare(
        db: Database,
        dir: &std::path::Path,
        seeds: &[u64],
        golds: &[&str],
        rewrites: bool,
    ) -> Result<DbAudit, AuditError> {
        let schema = crate::read_schema(&db.sqlite_path)?;
        let rewritten: Vec<String> = if rewrites {
            golds
                .iter()
                .filter_map(|g| tie_inclusive_rewrite(g, &schema, SQLITE_ONLY).map(|rw| rw.sql))
                .collect()
        } else {
            Vec::new()
        };
        let queries: Vec<&str> = golds
            .iter()
            .copied()
            .chain(rewritten.iter().map(String::as_str))
            .collect();
        let shuffles = Reshuffles::build(&db, dir, seeds, &queries)?;
        Ok(DbAudit {
            db,
            schema,
            shuffles,
        })
    }
}

pub struct AuditOptions {
    pub limits: QueryLimits,
    /// The command that reruns the audit of one question, without `--id`.
    pub rerun: String,
    pub rewrites: bool,
    /// Rerun on PostgreSQL under other plans ([`PLAN_VARIANTS`]).
    pub plan_variants: bool,
    /// The connection options a rerun line gives an engine's client where
    /// that client takes no URL (the `mysql` client: `--host=… --port=…
    /// --user=…`, never a password), per engine.
    pub client_options: std::collections::BTreeMap<EngineKind, Vec<String>>,
}

/// PostgreSQL planner settings each gold is rerun under (one set per run):
/// no hash aggregation, no explicit sort, no sequential scan, nested loops
/// only, merge joins only.
pub const PLAN_VARIANTS: &[&[(&str, &str)]] = &[
    &[("enable_hashagg", "off")],
    &[("enable_sort", "off")],
    &[("enable_seqscan", "off")],
    &[("enable_hashjoin", "off"), ("enable_mergejoin", "off")],
    &[("enable_hashjoin", "off"), ("enable_nestloop", "off")],
];

fn rows_evidence(kind: &str, note: String, sql: Option<String>, rs: &ResultSet) -> Evidence {
    Evidence {
        kind: kind.into(),
        sql,
        note,
        columns: rs.columns.iter().map(|c| c.name.clone()).collect(),
        rows: rs
            .rows
            .iter()
            .take(EVIDENCE_ROWS)
            .map(|r| r.iter().map(|v| v.display()).collect())
            .collect(),
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `s` as one shell word: as it is when it holds nothing the shell reads.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=.:/@%+,".contains(c));
    if plain {
        s.to_string()
    } else {
        shell_quote(s)
    }
}

fn summary(r: &Result<ResultSet, sqlwitness_core::DbError>) -> String {
    match r {
        Ok(rs) => format!("rows={} hash={}", rs.row_count(), rs.content_hash()),
        Err(e) => format!("error {}: {}", e.class.as_str(), e.message),
    }
}

/// The shell command that runs `sql` on `judge`'s copy of the database by
/// hand: `sqlite3` on the file, `psql` or `mysql` on the server's copy
/// (psql's URL from `SQLWITNESS_<ENGINE>_URL`; the mysql client, which
/// takes no URL, with `mysql_client`'s options), `duckdb` on the copy's
/// file in the folder of `SQLWITNESS_DUCKDB_URL`.
fn rerun_command(judge: &Target, sql: &str, client_options: &[String]) -> String {
    let dialect = sqlwitness_dialect::shipped(judge.kind);
    let Some(rerun) = &dialect.rerun else {
        return sql.to_string();
    };
    let sql = match &rerun.namespace {
        Some(before) => {
            let ns = dialect.identifiers.quote(&judge.db.namespace);
            format!("{}{sql}", fill(before, &[("ns", ns)]))
        }
        None => sql.to_string(),
    };
    let options: String = client_options
        .iter()
        .map(|o| format!(" {}", shell_word(o)))
        .collect();
    fill(
        &rerun.command,
        &[
            ("sql", shell_quote(&sql)),
            (
                "file",
                shell_quote(&judge.db.sqlite_path.display().to_string()),
            ),
            ("namespace", shell_quote(&judge.db.namespace)),
            ("url_env", judge.kind.url_env()),
            ("client_options", options),
        ],
    )
}

/// `template` with each `{key}` of `values` replaced by its value, in one
/// pass (a value is never read for keys again); other braces as written.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let hit = values.iter().find(|(k, _)| {
            tail.strip_prefix(k)
                .is_some_and(|after| after.starts_with('}'))
        });
        match hit {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len() + 1..];
            }
            None => {
                out.push('{');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Audits one gold query with SQLite as the reference engine; every
/// finding carries its evidence.
pub fn audit_question(
    q: &AuditQuestion,
    ctx: &DbAudit,
    sqlite: &dyn Engine,
    targets: &[Target],
    opts: &AuditOptions,
) -> Vec<Finding> {
    let none = sqlwitness_dialect::Translations::default();
    let judge = Target {
        kind: sqlite.kind(),
        engine: sqlite,
        db: ctx.db.clone(),
        prepare: &|s: &str| s.to_string(),
        translations: &none,
        gold: q.gold,
    };
    audit_question_on(q, ctx, &judge, targets, opts)
}

/// Audits one gold query (`q.gold`, the reference engine's) with `judge`,
/// the reference engine, proving what the data shows and every other
/// engine of `targets` compared with its answer; every finding carries its
/// evidence. On SQLite the proofs are probe queries and reshuffled copies;
/// on a server, probe queries and its other plans ([`PLAN_VARIANTS`]).
/// Translations to a failing engine are tried only when SQLite judges (they
/// translate SQLite's SQL).
pub fn audit_question_on(
    q: &AuditQuestion,
    ctx: &DbAudit,
    judge: &Target,
    targets: &[Target],
    opts: &AuditOptions,
) -> Vec<Finding> {
    let a = QuestionAudit::new(q, ctx, judge, opts);
    let mut out = a.static_findings();
    let judge_sql = (judge.prepare)(q.gold);
    let base = match judge.engine.execute(&judge.db, &judge_sql, &opts.limits) {
        Ok(rs) => rs,
        Err(e) => {
            out.push(a.judge_failure(&judge_sql, &e));
            return out;
        }
    };
    if let Some(shuffled) = a.shuffle_evidence(&base) {
        a.add_shuffle_proof(&mut out, shuffled);
    }
    // A server that judges: its own answer under other plans.
    let mut plans: Vec<PlanEvidence> = Vec::new();
    if opts.plan_variants && !a.on_sqlite {
        plans.extend(plan_variant(
            judge,
            &judge_sql,
            &base,
            a.ordered,
            a.limit_cut,
            q.gold,
            opts,
        ));
    }
    // Across engines, a LIMIT explains a different answer only when the
    // data shows a tie at its cut.
    let tie_cut = out.iter().any(|f| {
        f.status == Status::Proven
            && (f.rule.starts_with("limit_tie") || f.rule == "limit_without_order")
    });
    for t in targets {
        let (finding, plan) = a.compare_on(t, &judge_sql, &base, tie_cut);
        out.extend(finding);
        plans.extend(plan);
    }
    for plan in plans {
        a.add_plan_proof(&mut out, plan);
    }
    a.attach_rewrite(&mut out, &base, targets);
    out
}

/// Evidence that another plan changes an answer: the evidence, the
/// mechanism and the engine.
type PlanEvidence = (Vec<Evidence>, &'static str, String);

/// One gold's audit, between its stages: the question, the engine that
/// judges, and what the gold's text says (its dialects, whether it is
/// ordered, its static findings).
struct QuestionAudit<'a> {
    q: &'a AuditQuestion<'a>,
    ctx: &'a DbAudit,
    judge: &'a Target<'a>,
    opts: &'a AuditOptions,
    rerun_audit: String,
    on_sqlite: bool,
    dialects: Vec<Grammar>,
    ordered: bool,
    statics: Vec<sqlwitness_nondet::StaticFinding>,
    /// The gold compares a text column with a number (a cross-engine
    /// difference may come from that).
    text_vs_number: bool,
    limit_cut: bool,
}

impl<'a> QuestionAudit<'a> {
    fn new(
        q: &'a AuditQuestion<'a>,
        ctx: &'a DbAudit,
        judge: &'a Target<'a>,
        opts: &'a AuditOptions,
    ) -> Self {
        let dialects = written_for(judge.grammar());
        let ordered = has_top_level_order_by(q.gold, &dialects).unwrap_or(false);
        let statics = analyze(q.gold, &ctx.schema, &dialects).unwrap_or_default();
        let limit_cut = statics.iter().any(|f| {
            matches!(
                f.rule,
                NondetRule::LimitTie1 | NondetRule::LimitTieN | NondetRule::LimitWithoutOrder
            )
        });
        QuestionAudit {
            q,
            ctx,
            judge,
            opts,
            rerun_audit: format!("{} --id {}", opts.rerun, q.id),
            on_sqlite: sqlwitness_dialect::shipped(judge.kind).transport
                == sqlwitness_dialect::Transport::Embedded,
            dialects,
            ordered,
            statics,
            text_vs_number: crate::mechanism::compares_across_types(q.gold, &ctx.schema),
            limit_cut,
        }
    }

    fn judge_name(&self) -> &'static str {
        self.judge.kind.as_str()
    }

    /// The shell command that reruns `sql` on the judge's copy.
    fn rerun(&self, sql: &str) -> String {
        let client = self
            .opts
            .client_options
            .get(&self.judge.kind)
            .map_or(&[][..], Vec::as_slice);
        rerun_command(self.judge, sql, client)
    }

    fn finding(
        &self,
        rule: String,
        status: Status,
        engines: Vec<String>,
        detail: String,
    ) -> Finding {
        Finding {
            id: self.q.id,
            db_id: self.q.db_id.to_string(),
            rule,
            status,
            engines,
            gold_sql: self.q.gold.to_string(),
            block: None,
            detail,
            mechanism: None,
            evidence: Vec::new(),
            rerun: vec![self.rerun_audit.clone()],
            rewrite: None,
            translation: None,
        }
    }

    /// The static findings, each proven by its probe on the original data
    /// where the probe shows it.
    fn static_findings(&self) -> Vec<Finding> {
        let judge = self.judge;
        let mut out = Vec::new();
        for sf in &self.statics {
            let mut f = self.finding(
                sf.rule.as_str().to_string(),
                Status::Latent,
                vec![self.judge_name().into()],
                sf.detail.clone(),
            );
            f.block = (!sf.top_level).then(|| sf.block.clone());
            match &sf.probe {
                Some(p) => {
                    let probe = (judge.prepare)(p.sql());
                    f.rerun.push(self.rerun(&probe));
                    match judge.engine.execute(&judge.db, &probe, &self.opts.limits) {
                        Ok(rs) => {
                            let cols: Vec<String> =
                                rs.columns.iter().map(|c| c.name.clone()).collect();
                            if let Some(ev) = judge_probe(p, &cols, &rs.rows) {
                                f.status = Status::Proven;
                                f.evidence.push(ev);
                            }
                        }
                        Err(e) => f
                            .detail
                            .push_str(&format!(" (probe failed: {})", e.message)),
                    }
                }
                None => f.detail.push_str(" (no probe for this shape)"),
            }
            out.push(f);
        }
        out
    }

    /// The finding of a gold that fails on the engine that judges it.
    fn judge_failure(&self, judge_sql: &str, e: &sqlwitness_core::DbError) -> Finding {
        let mut f = self.finding(
            format!("dialect_{}", e.class.as_str()),
            Status::Proven,
            vec![self.judge_name().into()],
            format!(
                "the gold fails on {} itself: {}",
                display_name(self.judge.kind),
                e.message
            ),
        );
        f.mechanism = Some(e.class.as_str().into());
        f.rerun.push(self.rerun(judge_sql));
        f
    }

    /// The first reshuffled copy (SQLite judging) on which the gold answers
    /// otherwise than `base`: both answers as evidence, and the mechanism.
    fn shuffle_evidence(&self, base: &ResultSet) -> Option<(Vec<Evidence>, &'static str)> {
        if !self.on_sqlite {
            return None;
        }
        let gold = self.q.gold;
        let seeds = self.ctx.shuffles.seeds().len();
        for (seed, copy) in self.ctx.shuffles.reruns(gold) {
            let Ok(rs) = self.judge.engine.execute(copy, gold, &self.opts.limits) else {
                continue;
            };
            if let Some(m) = mechanism(base, &rs, self.ordered, self.limit_cut, gold) {
                let ev = vec![
                    rows_evidence("shuffle", "original row order".into(), Some(gold.into()), base),
                    rows_evidence(
                        "shuffle",
                        format!(
                            "rows of the tables it reads physically reshuffled (copy {} of {seeds}): the answer changed ({m})",
                            seed + 1,
                        ),
                        Some(gold.into()),
                        &rs,
                    ),
                ];
                return Some((ev, m));
            }
        }
        None
    }

    /// A reshuffle that changed the answer proves every static finding;
    /// without one, it is a finding of its own.
    fn add_shuffle_proof(&self, out: &mut Vec<Finding>, (ev, m): (Vec<Evidence>, &'static str)) {
        if out.is_empty() {
            let mut f = self.finding(
                "shuffle_unstable".into(),
                Status::Proven,
                vec![self.judge_name().into()],
                format!("no static rule fires, but reshuffled rows change the answer ({m})"),
            );
            f.mechanism = Some(m.into());
            f.evidence = ev;
            out.push(f);
        } else {
            for f in out.iter_mut() {
                f.status = Status::Proven;
                f.evidence.extend(ev.iter().cloned());
            }
        }
    }

    /// Another plan that changed an answer proves every static finding;
    /// without one, it is a finding of its own.
    fn add_plan_proof(&self, out: &mut Vec<Finding>, (ev, m, engine): PlanEvidence) {
        let is_static = |f: &Finding| NondetRule::ALL.iter().any(|r| r.as_str() == f.rule);
        if out.iter().any(is_static) {
            for f in out.iter_mut().filter(|f| is_static(f)) {
                f.status = Status::Proven;
                f.evidence.extend(ev.iter().cloned());
            }
        } else {
            let mut f = self.finding(
                "plan_unstable".into(),
                Status::Proven,
                vec![engine],
                format!("no static rule fires, but another plan changes the answer ({m})"),
            );
            f.mechanism = Some(m.into());
            f.evidence = ev;
            out.push(f);
        }
    }

    /// The gold on another engine `t` against the judge's answer `base`:
    /// a dialect failure or a different answer (with the translation that
    /// may make it the same, SQLite judging), and its answer under other
    /// plans.
    fn compare_on(
        &self,
        t: &Target,
        judge_sql: &str,
        base: &ResultSet,
        tie_cut: bool,
    ) -> (Option<Finding>, Option<PlanEvidence>) {
        let (q, ctx, opts) = (self.q, self.ctx, self.opts);
        let sql = (t.prepare)(t.gold);
        let name = t.kind.as_str().to_string();
        let translation = || check_translation(q.gold, base, self.ordered, tie_cut, ctx, t, opts);
        match t.engine.execute(&t.db, &sql, &opts.limits) {
            Err(e) => {
                let mut f = self.finding(
                    format!("dialect_{}", e.class.as_str()),
                    Status::Proven,
                    vec![name.clone()],
                    format!("{}: {}", e.code.clone().unwrap_or_default(), e.message),
                );
                f.mechanism = Some(e.class.as_str().into());
                f.evidence.push(Evidence {
                    kind: "error".into(),
                    sql: Some(sql.clone()),
                    note: format!("{name} rejects the gold ({})", e.class.as_str()),
                    columns: vec![],
                    rows: vec![],
                });
                f.translation = self.on_sqlite.then(translation);
                (Some(f), None)
            }
            Ok(rs) => {
                let plan = if opts.plan_variants {
                    plan_variant(t, &sql, &rs, self.ordered, self.limit_cut, t.gold, opts)
                } else {
                    None
                };
                let Some(m) = mechanism_with(
                    base,
                    &rs,
                    self.ordered,
                    tie_cut,
                    q.gold,
                    self.text_vs_number,
                ) else {
                    return (None, plan);
                };
                let judge_name = self.judge_name();
                let mut f = self.finding(
                    format!("cross_engine_{m}"),
                    Status::Proven,
                    vec![name.clone()],
                    format!("{name} answers differently from {judge_name} ({m})"),
                );
                f.mechanism = Some(m.into());
                f.evidence.push(rows_evidence(
                    "cross_engine",
                    judge_name.into(),
                    Some(judge_sql.to_string()),
                    base,
                ));
                f.evidence
                    .push(rows_evidence("cross_engine", name, Some(sql), &rs));
                f.rerun.push(self.rerun(judge_sql));
                // A translation can make the answer the same (a TEXT
                // column compared with a number, …): the dialect gold
                // `audit` writes for this engine.
                f.translation = self.on_sqlite.then(translation);
                (Some(f), plan)
            }
        }
    }

    /// The tie-inclusive rewrite of a gold whose top-level `LIMIT 1` or
    /// bare grouped column is nondeterministic, verified on every engine,
    /// attached to that finding.
    fn attach_rewrite(&self, out: &mut [Finding], base: &ResultSet, targets: &[Target]) {
        let nondet = self.statics.iter().any(|f| {
            matches!(
                f.rule,
                NondetRule::LimitTie1 | NondetRule::GroupByBareColumn
            ) && f.top_level
        });
        if !(self.opts.rewrites && nondet) {
            return;
        }
        let Some(rw) = tie_inclusive_rewrite(self.q.gold, &self.ctx.schema, &self.dialects) else {
            return;
        };
        let check = if self.on_sqlite {
            verify_rewrite(
                &rw.kind,
                &rw.sql,
                base,
                self.ctx,
                self.judge.engine,
                targets,
                self.opts,
            )
        } else {
            verify_rewrite_on(&rw.kind, &rw.sql, base, self.judge, self.opts)
        };
        if let Some(f) = out.iter_mut().find(|f| {
            f.rule == NondetRule::LimitTie1.as_str()
                || f.rule == NondetRule::GroupByBareColumn.as_str()
        }) {
            f.rewrite = Some(check);
        }
    }
}

/// `sql` rerun on `t` under each of [`PLAN_VARIANTS`] that answers: the
/// variant and its answer.
fn other_plans<'a>(
    t: &'a Target,
    sql: &'a str,
    opts: &'a AuditOptions,
) -> impl Iterator<Item = (&'static [(&'static str, &'static str)], ResultSet)> + 'a {
    PLAN_VARIANTS.iter().filter_map(move |variant| {
        let settings: Vec<(String, String)> = variant
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        t.engine
            .execute_with_settings(&t.db, sql, &opts.limits, &settings)
            .ok()
            .map(|rs| (*variant, rs))
    })
}

/// Reruns the gold on `t` under each of [`PLAN_VARIANTS`]; the first that
/// answers differently, as evidence.
fn plan_variant(
    t: &Target,
    sql: &str,
    default: &ResultSet,
    ordered: bool,
    limit_cut: bool,
    gold: &str,
    opts: &AuditOptions,
) -> Option<PlanEvidence> {
    for (variant, rs) in other_plans(t, sql, opts) {
        if let Some(m) = mechanism(default, &rs, ordered, limit_cut, gold) {
            let set: Vec<String> = variant
                .iter()
                .map(|(k, v)| format!("SET LOCAL {k} = {v}"))
                .collect();
            return Some((
                vec![
                    rows_evidence(
                        "plan_variant",
                        format!("{} default plan", t.kind),
                        Some(sql.into()),
                        default,
                    ),
                    rows_evidence(
                        "plan_variant",
                        format!(
                            "{} with {}: the answer changed ({m})",
                            t.kind,
                            set.join("; ")
                        ),
                        Some(format!("{}; {sql}", set.join("; "))),
                        &rs,
                    ),
                ],
                m,
                t.kind.as_str().to_string(),
            ));
        }
    }
    None
}

/// Translates the gold for `t`, reruns it and compares with SQLite's answer.
fn check_translation(
    gold: &str,
    base: &ResultSet,
    ordered: bool,
    limit_cut: bool,
    ctx: &DbAudit,
    t: &Target,
    opts: &AuditOptions,
) -> TranslationCheck {
    let Some(tr) = sqlwitness_sql::translate(gold, t.translations, &ctx.schema) else {
        return TranslationCheck {
            outcome: "no_translation".into(),
            sql: None,
            steps: vec![],
            mechanism: None,
            result: String::new(),
        };
    };
    let r = t.engine.execute(&t.db, &(t.prepare)(&tr.sql), &opts.limits);
    let (outcome, mechanism) = match &r {
        Err(_) => ("still_failing", None),
        Ok(rs) => match mechanism(base, rs, ordered, limit_cut, gold) {
            None => ("portable_after_translation", None),
            Some(m) => ("semantic_difference", Some(m.to_string())),
        },
    };
    TranslationCheck {
        outcome: outcome.into(),
        sql: Some(tr.sql),
        steps: tr.steps,
        mechanism,
        result: summary(&r),
    }
}

/// A LIMIT 1 rewrite returns every tied row: the original's answer must be
/// among them (other rewrites: true).
fn contains_original(kind: &str, rewritten: &ResultSet, original: &ResultSet) -> bool {
    if !kind.contains("limit1") {
        return true;
    }
    let keys: std::collections::BTreeSet<Vec<String>> = rewritten
        .rows
        .iter()
        .map(|r| r.iter().map(sqlwitness_core::canonical_cell).collect())
        .collect();
    original.rows.iter().all(|r| {
        keys.contains(
            &r.iter()
                .map(sqlwitness_core::canonical_cell)
                .collect::<Vec<_>>(),
        )
    })
}

/// The rewrite of a server reference's gold, checked on that engine: it
/// runs, the original answer is among its rows, and (with plan variants)
/// every other plan gives the same answer. The other engines run golds of
/// their own, which this rewrite does not replace.
fn verify_rewrite_on(
    kind: &str,
    sql: &str,
    original: &ResultSet,
    judge: &Target,
    opts: &AuditOptions,
) -> RewriteCheck {
    let name = judge.kind.as_str();
    let sent = (judge.prepare)(sql);
    let first = judge.engine.execute(&judge.db, &sent, &opts.limits);
    let mut results = std::collections::BTreeMap::new();
    results.insert(name.to_string(), summary(&first));
    let mut notes = Vec::new();
    let mut verified = first.is_ok();
    match &first {
        Err(_) => notes.push(format!("{name} rejects it")),
        Ok(rs) => {
            if !contains_original(kind, rs, original) {
                verified = false;
                notes.push("the original answer is not among the rewrite's rows".to_string());
            }
            let ordered =
                has_top_level_order_by(sql, &written_for(judge.grammar())).unwrap_or(false);
            let mut plans = 0;
            let variants = opts
                .plan_variants
                .then(|| other_plans(judge, &sent, opts))
                .into_iter()
                .flatten();
            for (_, other) in variants {
                plans += 1;
                if let Some(m) = mechanism(rs, &other, ordered, false, sql) {
                    verified = false;
                    notes.push(format!("another plan answers differently ({m})"));
                    break;
                }
            }
            if verified {
                let plans = if plans == 0 {
                    format!("no other plan of {name} to rerun it under")
                } else {
                    format!("the same answer under {plans} other plan(s)")
                };
                notes.push(format!(
                    "runs on {name} with the original answer included, {plans}; the other \
                     engines' own golds are not rewritten"
                ));
            }
        }
    }
    RewriteCheck {
        kind: kind.into(),
        sql: sql.into(),
        verified,
        note: notes.join("; "),
        results,
        translated_on: Vec::new(),
    }
}

/// The name an engine goes by in a finding's prose.
fn display_name(kind: EngineKind) -> String {
    sqlwitness_dialect::shipped(kind)
        .display_name
        .clone()
        .unwrap_or_else(|| kind.as_str().to_string())
}

fn verify_rewrite(
    kind: &str,
    sql: &str,
    original: &ResultSet,
    ctx: &DbAudit,
    sqlite: &dyn Engine,
    targets: &[Target],
    opts: &AuditOptions,
) -> RewriteCheck {
    let mut results = std::collections::BTreeMap::new();
    let mut translated_on = Vec::new();
    let first = sqlite.execute(&ctx.db, sql, &opts.limits);
    results.insert(EngineKind::REFERENCE.as_str().to_string(), summary(&first));
    let mut verified = first.is_ok();
    let mut notes = Vec::new();
    let ordered = has_top_level_order_by(sql, SQLITE_ONLY).unwrap_or(false);
    if let Ok(rs) = &first {
        if !contains_original(kind, rs, original) {
            verified = false;
            notes.push("the original answer is not among the rewrite's rows".to_string());
        }
        for t in targets {
            let mut r = t.engine.execute(&t.db, &(t.prepare)(sql), &opts.limits);
            // Where the rewrite fails as written, its translation is tried.
            if r.is_err() {
                if let Some(tr) = sqlwitness_sql::translate(sql, t.translations, &ctx.schema) {
                    let r2 = t.engine.execute(&t.db, &(t.prepare)(&tr.sql), &opts.limits);
                    if r2.is_ok() {
                        notes.push(format!(
                            "{} runs it translated ({})",
                            t.kind,
                            tr.steps.join(", ")
                        ));
                        translated_on.push(t.kind.as_str().to_string());
                        r = r2;
                    }
                }
            }
            results.insert(t.kind.as_str().to_string(), summary(&r));
            match &r {
                Ok(other) => {
                    if let Some(m) = mechanism(rs, other, ordered, false, sql) {
                        verified = false;
                        notes.push(format!("{} answers differently ({m})", t.kind));
                    }
                }
                Err(_) => {
                    verified = false;
                    notes.push(format!("{} rejects it", t.kind));
                }
            }
        }
    } else {
        notes.push("sqlite rejects it".into());
    }
    if verified {
        notes.push(format!(
            "runs on {} engine(s) with the same answer everywhere; the reshuffled copies are {}",
            targets.len() + 1,
            if ctx.shuffles.seeds().is_empty() {
                "not checked"
            } else {
                "checked"
            }
        ));
        // Copies that would be the original for every table the rewrite
        // reads are not rerun: they answer as the original.
        for (_, copy) in ctx.shuffles.reruns(sql) {
            match (sqlite.execute(copy, sql, &opts.limits), &first) {
                (Ok(b), Ok(a)) if mechanism(a, &b, ordered, false, sql).is_none() => {}
                _ => {
                    verified = false;
                    notes.push("a reshuffled copy answers differently".into());
                    break;
                }
            }
        }
    }
    RewriteCheck {
        kind: kind.into(),
        sql: sql.into(),
        verified,
        note: notes.join("; "),
        results,
        translated_on,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A question audit judged by SQLite on an empty schema, for the
    /// stages that only merge findings.
    fn with_stages(gold: &str, check: impl FnOnce(&QuestionAudit)) {
        let engine = sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap();
        let none = sqlwitness_dialect::Translations::default();
        let identity = |s: &str| s.to_string();
        let db = Database::new("d", "/nonexistent/d.sqlite");
        let judge = Target {
            kind: engine.kind(),
            engine: engine.as_ref(),
            db: db.clone(),
            prepare: &identity,
            translations: &none,
            gold,
        };
        let ctx = DbAudit {
            db,
            schema: SchemaInfo::default(),
            shuffles: Reshuffles::none(),
        };
        let opts = AuditOptions {
            limits: QueryLimits::default(),
            rerun: "sqlwitness audit".into(),
            rewrites: false,
            plan_variants: false,
            client_options: Default::default(),
        };
        let q = AuditQuestion {
            id: 7,
            db_id: "d",
            gold,
        };
        check(&QuestionAudit::new(&q, &ctx, &judge, &opts));
    }

    fn evidence(note: &str) -> Evidence {
        Evidence {
            kind: "shuffle".into(),
            sql: None,
            note: note.into(),
            columns: vec![],
            rows: vec![],
        }
    }

    #[test]
    fn a_reshuffle_proves_the_static_findings_or_stands_alone() {
        with_stages("SELECT a FROM t", |a| {
            let mut out = Vec::new();
            a.add_shuffle_proof(&mut out, (vec![evidence("changed")], "row_order"));
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].rule, "shuffle_unstable");
            assert_eq!(out[0].status, Status::Proven);
            assert_eq!(out[0].mechanism.as_deref(), Some("row_order"));
            assert_eq!(out[0].rerun, ["sqlwitness audit --id 7"]);

            let mut latent = vec![a.finding(
                "limit_tie_1".into(),
                Status::Latent,
                vec!["sqlite".into()],
                String::new(),
            )];
            a.add_shuffle_proof(&mut latent, (vec![evidence("changed")], "row_order"));
            assert_eq!(latent.len(), 1);
            assert_eq!(latent[0].status, Status::Proven);
            assert_eq!(latent[0].evidence.len(), 1);
        });
    }

    #[test]
    fn another_plan_proves_only_static_findings() {
        with_stages("SELECT a FROM t", |a| {
            // A cross-engine finding is not a static rule: the plan's
            // evidence becomes a finding of its own.
            let mut out = vec![a.finding(
                "cross_engine_row_order".into(),
                Status::Proven,
                vec!["mysql".into()],
                String::new(),
            )];
            a.add_plan_proof(
                &mut out,
                (vec![evidence("plan")], "row_order", "postgres".into()),
            );
            assert_eq!(out.len(), 2);
            assert_eq!(out[1].rule, "plan_unstable");
            assert_eq!(out[1].engines, ["postgres"]);
            assert!(out[0].evidence.is_empty());

            let mut statics = vec![a.finding(
                NondetRule::LimitTie1.as_str().into(),
                Status::Latent,
                vec!["postgres".into()],
                String::new(),
            )];
            a.add_plan_proof(
                &mut statics,
                (vec![evidence("plan")], "row_order", "postgres".into()),
            );
            assert_eq!(statics.len(), 1);
            assert_eq!(statics[0].status, Status::Proven);
        });
    }

    #[test]
    fn a_question_audit_reads_its_gold_once() {
        with_stages("SELECT a FROM t ORDER BY a LIMIT 1", |a| {
            assert!(a.ordered);
            assert!(a.on_sqlite);
            assert_eq!(a.judge_name(), "sqlite");
        });
        with_stages("SELECT a FROM t", |a| {
            assert!(!a.ordered);
            assert!(!a.limit_cut);
        });
    }

    #[test]
    fn rerun_commands_name_the_judge_s_copy() {
        let engine = sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap();
        let none = sqlwitness_dialect::Translations::default();
        let identity = |s: &str| s.to_string();
        let judge = |kind| Target {
            kind,
            engine: engine.as_ref(),
            db: Database::with_prefix("my \"db\"", "/b/it's.sqlite", "sw_"),
            prepare: &identity,
            translations: &none,
            gold: "",
        };
        let sql = "SELECT 'a' FROM t";
        assert_eq!(
            rerun_command(&judge(EngineKind::Sqlite), sql, &[]),
            r#"sqlite3 -readonly '/b/it'\''s.sqlite' 'SELECT '\''a'\'' FROM t'"#
        );
        assert_eq!(
            rerun_command(&judge(EngineKind::Postgres), sql, &[]),
            r#"psql "$SQLWITNESS_POSTGRES_URL" -c 'SET search_path TO "sw_my ""db"""; SELECT '\''a'\'' FROM t'"#
        );
        // The mysql client takes no URL: the server's host, port and user.
        let client = ["--host=127.0.0.1".to_string(), "--user=root".to_string()];
        assert_eq!(shell_word("--user=it's"), r#"'--user=it'\''s'"#);
        for kind in [EngineKind::Mysql, EngineKind::Mariadb] {
            assert_eq!(
                rerun_command(&judge(kind), sql, &client),
                r#"mysql --host=127.0.0.1 --user=root -e 'USE `sw_my "db"`; SELECT '\''a'\'' FROM t'"#
            );
        }
        assert_eq!(
            rerun_command(&judge(EngineKind::Duckdb), sql, &[]),
            r#"duckdb -readonly "${SQLWITNESS_DUCKDB_URL#duckdb:}"/'sw_my "db"'.duckdb -c 'SELECT '\''a'\'' FROM t'"#
        );
        // A value is never read for keys again; other braces stay.
        assert_eq!(
            fill(
                "{a} {b} {c} {{a}}",
                &[("a", "{b}".into()), ("b", "x".into())]
            ),
            "{b} x {c} {{b}}"
        );
    }
}
