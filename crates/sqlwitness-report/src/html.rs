//! `report.html`: one self-contained static page — no network fetch, no
//! external script or style sheet. The summary, inline SVG charts
//! (per-engine verdicts and accuracy, the cross-engine agreement matrix,
//! error classes, reliability diagrams) and a per-question drill-down with
//! gold, prediction, each engine's sample rows side by side, verdict and
//! evidence. A few lines of inline script filter the drill-down; without
//! script everything is still shown.

use std::collections::BTreeMap;
use std::fmt::Write;

use sqlwitness_score::Bin;

use crate::junit::esc;
use crate::{EngineOutcome, Execution, QuestionReport, Report, Verdict};

const VERDICTS: [(Verdict, &str); 9] = [
    (Verdict::Match, "#2e7d32"),
    (Verdict::MatchTie, "#81c784"),
    (Verdict::Mismatch, "#ef6c00"),
    (Verdict::PredError, "#c62828"),
    (Verdict::Timeout, "#6a1b9a"),
    (Verdict::Abstained, "#78909c"),
    (Verdict::GoldError, "#795548"),
    (Verdict::MissingDb, "#cfd8dc"),
    (Verdict::EngineError, "#37474f"),
];

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#212121;max-width:1500px}\
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}\
th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}\
.charts{display:flex;flex-wrap:wrap;gap:24px}.chart{border:1px solid #eee;padding:8px}\
.b{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-size:12px;margin-right:3px}\
pre{background:#fafafa;border:1px solid #eee;padding:6px;white-space:pre-wrap;margin:4px 0}\
details{border-bottom:1px solid #eee;padding:3px 0}summary{cursor:pointer}\
.eng{display:flex;gap:12px;flex-wrap:wrap}.eng>div{flex:1;min-width:300px;border:1px solid #eee;padding:6px}\
.muted{color:#757575}.tw{overflow-x:auto;max-width:100%}tr.only td{background:#fff3e0}.b.light{color:#212121}\
.filters select,.filters input{margin:0 6px 4px 2px}\
#qh th{cursor:pointer;user-select:none}#qh th[aria-sort=ascending]::after{content:' \\25B2'}#qh th[aria-sort=descending]::after{content:' \\25BC'}";

/// The question filters and the sort. Filters: which questions (`fm`),
/// engine, verdict, error class, database and level (Spider hardness or
/// BIRD difficulty: `data-hd`, `data-df`), and free text; each
/// question carries `data-ev="engine:verdict:class;…"`, `data-db` and
/// `data-id`. Sort: a click on a header of the table above the questions
/// (`#`, database, an engine's verdict in the order of [`VERDICTS`]) sorts
/// ascending, a second click descending; ties keep question order (stable).
/// The query string holds both (`report.html?fe=postgres&fv=gold_error&sort=-db`:
/// a link to a filtered, sorted view) and follows every change. A link to
/// a question (`#q12`) opens it.
const SCRIPT: &str = "function v(id){var e=document.getElementById(id);return e?e.value:'';}\
var FS=['fm','fe','fv','fc','fd','fl','ft'],SORT='';\
function sync(){var p=new URLSearchParams();FS.forEach(function(k){var x=v(k);if(x&&!(k=='fm'&&x=='all'))p.set(k,x);});if(SORT)p.set('sort',SORT);\
try{history.replaceState(null,'',location.pathname+(p.toString()?'?'+p:'')+location.hash);}catch(e){}}\
function f(){var m=v('fm'),t=v('ft').toLowerCase(),e=v('fe'),w=v('fv'),c=v('fc'),b=v('fd'),l=v('fl'),n=0;\
document.querySelectorAll('details.q').forEach(function(d){\
var ev=d.dataset.ev.split(';').some(function(x){var p=x.split(':');return (e==''||p[0]==e)&&(w==''||p[1]==w)&&(c==''||p[2]==c);});\
var ok=(m=='all'||d.dataset[m]=='1')&&ev&&(b==''||d.dataset.db==b)&&(l==''||d.dataset.hd==l||d.dataset.df==l)&&(!t||d.textContent.toLowerCase().indexOf(t)>=0);\
d.style.display=ok?'':'none';if(ok)n++;});document.getElementById('fn').textContent=n;sync();}\
var VO=document.getElementById('qh').dataset.order.split(',');\
var LV=['easy','medium','hard','extra','simple','moderate','challenging',''];\
function key(d,k){if(k=='id')return +d.dataset.id;if(k=='db')return d.dataset.db;if(k=='lv')return LV.indexOf(d.dataset.df||d.dataset.hd||'');\
var x=d.dataset.ev.split(';').filter(function(p){return p.split(':')[0]==k.slice(2);})[0];var i=x?VO.indexOf(x.split(':')[1]):-1;return i<0?VO.length:i;}\
function srt(s){var desc=s.charAt(0)=='-',k=desc?s.slice(1):s,box=document.getElementById('qs');\
var th=document.querySelector('#qh th[data-s=\\''+k+'\\']');if(!th)return;SORT=s;\
var ds=Array.prototype.slice.call(box.querySelectorAll('details.q'));\
ds.sort(function(a,b){var x=key(a,k),y=key(b,k),r=x<y?-1:x>y?1:0;return (desc?-r:r)||(a.dataset.id-b.dataset.id);});\
ds.forEach(function(d){box.appendChild(d);});\
document.querySelectorAll('#qh th').forEach(function(h){h.setAttribute('aria-sort',h==th?(desc?'descending':'ascending'):'none');});sync();}\
document.querySelectorAll('#qh th').forEach(function(h){h.addEventListener('click',function(){var k=h.dataset.s;srt(SORT==k?'-'+k:k);});});\
function op(){var d=location.hash&&document.getElementById(location.hash.slice(1));if(d&&d.tagName=='DETAILS')d.open=true;}\
window.addEventListener('hashchange',op);\
document.addEventListener('DOMContentLoaded',function(){var p=new URLSearchParams(location.search),any=false;\
FS.forEach(function(k){if(p.has(k)&&document.getElementById(k)){document.getElementById(k).value=p.get(k);any=true;}});if(any)f();if(p.has('sort'))srt(p.get('sort'));op();});";

/// A server's version as the summary shows it: up to the build details
/// (`PostgreSQL 15.20 (Debian …) on x86_64 …` → `PostgreSQL 15.20`); the
/// whole string is the cell's title.
fn short_version(v: &str) -> &str {
    let cut = v
        .find(" (")
        .into_iter()
        .chain(v.find(" on "))
        .min()
        .unwrap_or(v.len());
    &v[..cut]
}

/// Badges on a light background get dark text.
fn text_class(background: &str) -> &'static str {
    if matches!(background, "#81c784" | "#cfd8dc") {
        "b light"
    } else {
        "b"
    }
}

fn color(v: Verdict) -> &'static str {
    VERDICTS
        .iter()
        .find(|(x, _)| *x == v)
        .map(|(_, c)| *c)
        .unwrap_or("#000")
}

/// A gold audit's findings on one question, as `report.html` shows them
/// (`eval --audit`): the rule, `proven` or `latent`, the engines, and the
/// finding's anchor in `audit.html` (`f12`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditNote {
    pub rule: String,
    pub status: String,
    pub engines: Vec<String>,
    pub anchor: String,
}

/// The audit findings of a run's questions, by question id, and where
/// `audit.html` is relative to `report.html` (`None`: no link).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditNotes {
    pub href: Option<String>,
    pub by_question: BTreeMap<usize, Vec<AuditNote>>,
}

pub fn render_html(report: &Report) -> String {
    render_html_with(report, None)
}

/// [`render_html`] with each question's gold-audit findings, a filter
/// for the audited questions and links into `audit.html`.
pub fn render_html_with(report: &Report, audit: Option<&AuditNotes>) -> String {
    let mut o = String::with_capacity(1 << 20);
    let run = &report.run;
    let _ = write!(
        o,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>sqlwitness report — {}</title><style>{STYLE}</style></head><body>",
        esc(&run.bench)
    );
    let _ = write!(
        o,
        "<h1>sqlwitness evaluation</h1><p>Benchmark <code>{}</code> split <code>{}</code>, {}; compare <code>{}</code> (column order {}), identifiers <code>{}</code>, timeout {} ms; {} questions in {:.1} s. sqlwitness {}.</p>",
        esc(&run.bench),
        esc(&run.split),
        match &run.predictions {
            Some(p) => format!("predictions <code>{}</code>", esc(p)),
            None => "gold self-check".into(),
        },
        esc(&run.compare),
        esc(&run.column_order),
        esc(&run.identifiers),
        run.timeout_ms,
        report.summary.questions,
        run.duration_ms as f64 / 1000.0,
        esc(&report.tool.version)
    );
    summary_table(&mut o, report);
    scores_table(&mut o, report);
    crate::credited::render_html_credited(report, &mut o);
    o.push_str("<h2>Charts</h2><div class=\"charts\">");
    verdict_chart(&mut o, report);
    agreement_chart(&mut o, report);
    error_chart(&mut o, report);
    reliability_charts(&mut o, report);
    o.push_str("</div>");
    drill_down(&mut o, report, audit);
    let _ = writeln!(o, "<script>{SCRIPT}</script></body></html>");
    o
}

fn summary_table(o: &mut String, r: &Report) {
    o.push_str("<h2>Summary</h2><div class=\"tw\"><table><tr><th>engine</th><th>server</th><th>questions</th>");
    for (v, c) in VERDICTS {
        let _ = write!(
            o,
            "<th><span class=\"{}\" style=\"background:{c}\">{}</span></th>",
            text_class(c),
            v.as_str()
        );
    }
    o.push_str("<th>EX</th><th>EX (scorable)</th><th>tie-aware EX</th></tr>");
    for (name, s) in &r.summary.engines {
        let version = r
            .run
            .engines
            .iter()
            .find(|e| e.kind.as_str() == name)
            .map(|e| e.version.as_str())
            .unwrap_or("");
        let _ = write!(
            o,
            "<tr><td>{}</td><td title=\"{}\">{}</td><td class=n>{}</td>",
            esc(name),
            esc(version),
            esc(short_version(version)),
            s.questions
        );
        for (v, _) in VERDICTS {
            let _ = write!(o, "<td class=n>{}</td>", count(s, v));
        }
        let _ = write!(
            o,
            "<td class=n><b>{:.4}</b></td><td class=n>{:.4}</td><td class=n>{:.4}</td></tr>",
            s.ex,
            r.summary.ex_scorable(name).unwrap_or(0.0),
            s.ex_tie_aware
        );
    }
    let _ = write!(
        o,
        "</table></div><p class=\"muted\">{}.</p>",
        esc(crate::EX_DEFINITIONS)
    );
    level_tables(o, r);
}

/// How a level table row renders one level.
type Cell = fn(&crate::LevelSummary) -> String;

/// EX (and Soft F1) by Spider hardness and by BIRD difficulty, in the
/// official evaluators' layout: a count row and a score row per engine,
/// one column per level and the all/total column.
fn level_tables(o: &mut String, r: &Report) {
    for spider in [true, false] {
        let pick = |s: &crate::EngineSummary| {
            if spider {
                s.by_hardness.clone()
            } else {
                s.by_difficulty.clone()
            }
        };
        if r.summary.engines.values().all(|s| pick(s).is_empty()) {
            continue;
        }
        let cols = crate::level_columns(spider);
        let _ = write!(
            o,
            "<h2>{}</h2><div class=\"tw\"><table><tr><th>engine</th><th></th>",
            if spider {
                "By Spider hardness (test-suite evaluator's layout)"
            } else {
                "By BIRD difficulty (mini-dev evaluator's layout)"
            }
        );
        for c in &cols {
            let _ = write!(o, "<th>{c}</th>");
        }
        o.push_str("</tr>");
        for (name, s) in &r.summary.engines {
            let levels = pick(s);
            let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
            let rows: [(&str, Cell); 3] = [
                ("count", |l| l.scored.to_string()),
                ("EX", |l| format!("{:.3}", l.ex)),
                ("Soft F1", |l| format!("{:.3}", l.soft_f1)),
            ];
            for (label, f) in rows.iter() {
                let _ = write!(o, "<tr><td>{}</td><td>{label}</td>", esc(name));
                for c in &cols {
                    let _ = write!(o, "<td class=n>{}</td>", f(&get(c)));
                }
                o.push_str("</tr>");
            }
        }
        o.push_str("</table></div>");
        // `count` is what EX divides by: say what it leaves out.
        for (name, s) in &r.summary.engines {
            let all = pick(s)
                .get(cols[cols.len() - 1])
                .cloned()
                .unwrap_or_default();
            let out_of = all.questions - all.scored.min(all.questions);
            if out_of > 0 {
                let _ = write!(
                    o,
                    "<p class=\"muted\">{}: {out_of} of the {} questions are left out of the count, as EX leaves them out ({} without a database, {} the engine could not run).</p>",
                    esc(name),
                    all.questions,
                    s.missing_db,
                    s.engine_error
                );
            }
        }
        let unread = r
            .questions
            .iter()
            .filter(|q| q.hardness_error.is_some())
            .count();
        if spider && unread > 0 {
            let _ = write!(
                o,
                "<p class=\"muted\">{unread} gold queries have no hardness: the official evaluator's parser cannot read them (the reason is on each question); they count in <i>all</i> only.</p>"
            );
        }
    }
}

fn scores_table(o: &mut String, r: &Report) {
    let Some(s) = &r.summary.scores else { return };
    o.push_str("<h2>Scores</h2><table><tr><th>engine</th><th>EX (scorable)</th><th>RS(0)</th><th>RS(10)</th><th>RS(N)</th><th>correct</th><th>abstained feasible</th><th>wrong</th><th>answered infeasible</th><th>abstained infeasible</th></tr>");
    for (e, a) in &s.accuracy {
        let rs = |k: &str| s.rs.get(e).and_then(|m| m.get(k)).copied().unwrap_or(0.0);
        let b = s.rs_breakdown.get(e).copied().unwrap_or_default();
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=n>{:.4} ({}/{})</td><td class=n>{:.4}</td><td class=n>{:.4}</td><td class=n>{:.4}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            esc(e), a.accuracy, a.correct, a.scored, rs("0"), rs("10"), rs("N"),
            b.correct, b.abstained_feasible, b.wrong, b.answered_infeasible, b.abstained_infeasible
        );
    }
    let consistency = if s.consistency.questions == 0 {
        "Cross-engine consistency: n/a (one engine).".to_string()
    } else {
        format!(
            "Cross-engine consistency {:.4} ({} of {} questions get the same verdict everywhere).",
            s.consistency.consistency, s.consistency.consistent, s.consistency.questions
        )
    };
    let _ = write!(
        o,
        "</table><p class=\"muted\">EX (scorable): correct / questions the engine can score (gold errors and missing databases left out). RS(c): TrustSQL's reliability score (Lee et al., eq. 1) — +1 per correct answer or abstention on an infeasible question, 0 per abstention on a feasible one, −c per wrong answer or answer to an infeasible question, averaged; fractions, not percent.</p><p>Across engines: correct on every engine {:.4} ({}/{}), on at least one {:.4}. {consistency} {} question(s) marked infeasible.</p>",
        s.across_engines.all.accuracy, s.across_engines.all.correct, s.across_engines.all.scored,
        s.across_engines.any.accuracy, s.infeasible
    );
    for (label, line) in crate::scores_md::extra_accuracies(s, "") {
        let _ = write!(o, "<p>{label}: {}.</p>", esc(&line));
    }
    if !s.legacy.is_empty() {
        o.push_str("<table><tr><th>engine</th><th>strict</th><th>Spider evaluator</th><th>BIRD evaluator</th><th>Spider ≠ strict</th><th>BIRD ≠ strict</th><th>mechanisms</th></tr>");
        for (e, l) in &s.legacy {
            let strict = s.accuracy.get(e).map(|a| a.accuracy).unwrap_or(0.0);
            let mech: Vec<String> = l
                .mechanisms
                .iter()
                .map(|(m, n)| format!("{m} {n}"))
                .collect();
            let _ = write!(
                o,
                "<tr><td>{}</td><td class=n>{strict:.4}</td><td class=n>{:.4}</td><td class=n>{:.4}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td></tr>",
                esc(e),
                l.spider.accuracy,
                l.bird.accuracy,
                l.spider_disagree,
                l.bird_disagree,
                esc(&mech.join(", "))
            );
        }
        o.push_str("</table>");
    }
    if !s.calibration.is_empty() {
        o.push_str("<table><tr><th>engine</th><th>score</th><th>n</th><th>ECE</th><th>ACE</th><th>Brier</th><th>AUC</th></tr>");
        for (e, c) in &s.calibration {
            let mut rows = Vec::new();
            if let Some(m) = &c.raw {
                rows.push(("raw confidence (all)", m));
            }
            if let Some(p) = &c.platt {
                if let Some(b) = &p.before {
                    rows.push(("raw confidence (test split)", b));
                }
                rows.push(("Platt-scaled (test split)", &p.after));
            }
            for (label, m) in rows {
                let _ = write!(
                    o,
                    "<tr><td>{}</td><td>{label}</td><td class=n>{}</td><td class=n>{:.4}</td><td class=n>{:.4}</td><td class=n>{:.4}</td><td class=n>{}</td></tr>",
                    esc(e), m.n, m.ece, m.ace, m.brier,
                    m.auc.map(|a| format!("{a:.4}")).unwrap_or_else(|| "–".into())
                );
            }
        }
        o.push_str("</table>");
    }
    if !s.dialect_features.is_empty() {
        o.push_str("<table><tr><th>dialect feature</th><th>gold</th><th>pred</th><th>unsupported on</th><th>accuracy of predictions using it</th></tr>");
        for (f, st) in &s.dialect_features {
            let acc: Vec<String> = st
                .accuracy
                .iter()
                .map(|(e, a)| format!("{e} {:.3} ({}/{})", a.accuracy, a.correct, a.scored))
                .collect();
            let _ =
                write!(
                o,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td>{}</td><td>{}</td></tr>",
                esc(f), st.gold, st.pred, esc(&st.unsupported_on.join(", ")), esc(&acc.join("; "))
            );
        }
        o.push_str("</table>");
    }
}

fn chart_open(o: &mut String, title: &str, w: usize, h: usize) {
    let _ = write!(
        o,
        "<div class=\"chart\"><b>{}</b><br><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\">",
        esc(title)
    );
}

fn verdict_chart(o: &mut String, r: &Report) {
    let engines = &r.summary.engines;
    let (w, bar, x0) = (520.0, 380.0, 70.0);
    let h = 30 + engines.len() * 34 + 44;
    chart_open(
        o,
        "Verdicts and execution accuracy per engine",
        w as usize,
        h,
    );
    for (i, (name, s)) in engines.iter().enumerate() {
        let y = 20.0 + i as f64 * 34.0;
        let _ = write!(o, "<text x=\"4\" y=\"{}\">{}</text>", y + 15.0, esc(name));
        let total = s.questions.max(1) as f64;
        let mut x = x0;
        for (v, c) in VERDICTS {
            let n = count(s, v);
            if n == 0 {
                continue;
            }
            let wd = bar * n as f64 / total;
            let _ = write!(
                o,
                "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{wd:.1}\" height=\"22\" fill=\"{c}\"><title>{}: {n}</title></rect>",
                v.as_str()
            );
            x += wd;
        }
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{}\">EX {:.4}</text>",
            x0 + bar + 6.0,
            y + 15.0,
            s.ex
        );
    }
    let ly = 30 + engines.len() * 34;
    for (i, (v, c)) in VERDICTS.iter().enumerate() {
        let lx = 4 + (i % 4) * 125;
        let lyy = ly + (i / 4) * 16;
        let _ = write!(
            o,
            "<rect x=\"{lx}\" y=\"{lyy}\" width=\"10\" height=\"10\" fill=\"{c}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            lx + 14,
            lyy + 9,
            v.as_str()
        );
    }
    o.push_str("</svg></div>");
}

fn count(s: &crate::EngineSummary, v: Verdict) -> usize {
    match v {
        Verdict::Match => s.matched,
        Verdict::Mismatch => s.mismatch,
        Verdict::PredError => s.pred_error,
        Verdict::Timeout => s.timeout,
        Verdict::MatchTie => s.match_tie,
        Verdict::Abstained => s.abstained,
        Verdict::GoldError => s.gold_error,
        Verdict::MissingDb => s.missing_db,
        Verdict::EngineError => s.engine_error,
    }
}

fn agreement_chart(o: &mut String, r: &Report) {
    let Some(s) = &r.summary.scores else { return };
    let m = &s.consistency.agreement;
    if m.len() < 2 {
        return;
    }
    let names: Vec<&String> = m.keys().collect();
    let cell = 70.0;
    let x0 = 70.0;
    let size = (x0 + cell * names.len() as f64 + 10.0) as usize;
    chart_open(o, "Cross-engine verdict agreement", size, size);
    for (i, a) in names.iter().enumerate() {
        let _ = write!(
            o,
            "<text x=\"4\" y=\"{:.0}\">{}</text>",
            x0 + cell * i as f64 + cell / 2.0 + 4.0,
            esc(a)
        );
        let _ = write!(
            o,
            "<text x=\"{:.0}\" y=\"60\" text-anchor=\"middle\">{}</text>",
            x0 + cell * i as f64 + cell / 2.0,
            esc(a)
        );
        for (j, b) in names.iter().enumerate() {
            let v = m[*a].get(*b).copied().unwrap_or(0.0);
            // White at 0.5 agreement or less, deep blue at 1.
            let t = ((v - 0.5) * 2.0).clamp(0.0, 1.0);
            let (rr, gg, bb) = (255.0 - 222.0 * t, 255.0 - 150.0 * t, 255.0 - 75.0 * t);
            let (x, y) = (x0 + cell * j as f64, x0 + cell * i as f64);
            let _ = write!(
                o,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgb({rr:.0},{gg:.0},{bb:.0})\" stroke=\"#fff\"/><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"{}\">{:.3}</text>",
                x + cell / 2.0,
                y + cell / 2.0 + 4.0,
                if t > 0.6 { "#fff" } else { "#000" },
                v
            );
        }
    }
    o.push_str("</svg></div>");
}

fn error_chart(o: &mut String, r: &Report) {
    let mut rows: Vec<(String, usize)> = Vec::new();
    for (e, s) in &r.summary.engines {
        for (side, map) in [
            ("gold", &s.gold_error_classes),
            ("pred", &s.pred_error_classes),
        ] {
            for (c, n) in map {
                rows.push((format!("{e} · {side} · {c}"), *n));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1) as f64;
    let h = 10 + rows.len() * 18;
    chart_open(o, "Errors by class (engine · side · class)", 520, h);
    for (i, (label, n)) in rows.iter().enumerate() {
        let y = 6 + i * 18;
        let wd = 220.0 * *n as f64 / max;
        let _ = write!(
            o,
            "<text x=\"4\" y=\"{}\">{}</text><rect x=\"250\" y=\"{y}\" width=\"{wd:.1}\" height=\"13\" fill=\"{}\"/><text x=\"{:.0}\" y=\"{}\">{n}</text>",
            y + 11,
            esc(label),
            if label.contains("· gold ·") { color(Verdict::GoldError) } else { color(Verdict::PredError) },
            254.0 + wd,
            y + 11
        );
    }
    o.push_str("</svg></div>");
}

fn reliability_charts(o: &mut String, r: &Report) {
    let Some(s) = &r.summary.scores else { return };
    for (e, c) in &s.calibration {
        let mut series: Vec<(&str, &str, &[Bin])> = Vec::new();
        if let Some(m) = &c.raw {
            series.push(("raw confidence", "#1565c0", &m.bins));
        }
        if let Some(p) = &c.platt {
            series.push(("Platt-scaled (test)", "#ef6c00", &p.after.bins));
        }
        reliability_diagram(o, &format!("Reliability diagram — {e}"), &series);
    }
}

/// Accuracy against mean confidence per equal-width bin; marker area
/// proportional to the bin's share of predictions; the diagonal is perfect
/// calibration.
fn reliability_diagram(o: &mut String, title: &str, series: &[(&str, &str, &[Bin])]) {
    let (x0, y0, side) = (40.0, 10.0, 240.0);
    chart_open(o, title, 300, 300 + 16 * series.len());
    let _ = write!(
        o,
        "<rect x=\"{x0}\" y=\"{y0}\" width=\"{side}\" height=\"{side}\" fill=\"none\" stroke=\"#999\"/><line x1=\"{x0}\" y1=\"{}\" x2=\"{}\" y2=\"{y0}\" stroke=\"#bbb\" stroke-dasharray=\"4\"/>",
        y0 + side,
        x0 + side
    );
    for t in [0.0, 0.5, 1.0] {
        let _ = write!(
            o,
            "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\">{t}</text><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"end\">{t}</text>",
            x0 + side * t,
            y0 + side + 14.0,
            x0 - 4.0,
            y0 + side * (1.0 - t) + 4.0
        );
    }
    let _ = write!(
        o,
        "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\">confidence</text>",
        x0 + side / 2.0,
        y0 + side + 28.0
    );
    for (k, (label, col, bins)) in series.iter().enumerate() {
        let total: usize = bins.iter().map(|b| b.count).sum::<usize>().max(1);
        let mut path = String::new();
        for b in bins.iter() {
            let (x, y) = (x0 + side * b.confidence, y0 + side * (1.0 - b.accuracy));
            let rad = 2.5 + 12.0 * (b.count as f64 / total as f64).sqrt();
            let _ = write!(
                o,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{rad:.1}\" fill=\"{col}\" fill-opacity=\"0.45\" stroke=\"{col}\"><title>{label}: [{:.1},{:.1}) n={} conf {:.3} acc {:.3}</title></circle>",
                b.lo, b.hi, b.count, b.confidence, b.accuracy
            );
            let _ = write!(
                path,
                "{}{x:.1},{y:.1}",
                if path.is_empty() { "M" } else { " L" }
            );
        }
        let _ = write!(o, "<path d=\"{path}\" fill=\"none\" stroke=\"{col}\"/>");
        let ly = y0 + side + 40.0 + 16.0 * k as f64;
        let _ = write!(o, "<rect x=\"{x0}\" y=\"{ly}\" width=\"10\" height=\"10\" fill=\"{col}\"/><text x=\"{}\" y=\"{}\">{label} (accuracy vs confidence)</text>", x0 + 14.0, ly + 9.0);
    }
    o.push_str("</svg></div>");
}

fn drill_down(o: &mut String, r: &Report, audit: Option<&AuditNotes>) {
    let options = |values: std::collections::BTreeSet<String>| -> String {
        values
            .into_iter()
            .map(|v| format!("<option value=\"{0}\">{0}</option>", esc(&v)))
            .collect()
    };
    let engines = r.summary.engines.keys().cloned().collect();
    let verdicts = r
        .questions
        .iter()
        .flat_map(|q| q.engines.values().map(|x| x.verdict.as_str().to_string()))
        .collect();
    let classes = r
        .questions
        .iter()
        .flat_map(|q| q.engines.values().filter_map(error_class))
        .collect();
    let dbs = r.questions.iter().map(|q| q.db_id.clone()).collect();
    // The level filter and column only where some question has a level.
    let levels = level_options(r);
    let level_filter = if levels.is_empty() {
        String::new()
    } else {
        format!("level <select id=\"fl\" onchange=\"f()\"><option value=\"\">any</option>{levels}</select>")
    };
    let _ = write!(
        o,
        "<h2>Questions (<span id=\"fn\">{}</span> of {})</h2><p class=\"filters\">Show \
         <select id=\"fm\" onchange=\"f()\"><option value=\"all\">all</option>\
         <option value=\"model\">the model's failures (mismatch, pred_error, timeout, suite)</option>\
         <option value=\"gold\">gold errors</option><option value=\"fail\">not matching somewhere</option>\
         <option value=\"incons\">verdict differs across engines</option>{}</select>\
         engine <select id=\"fe\" onchange=\"f()\"><option value=\"\">any</option>{}</select>\
         verdict <select id=\"fv\" onchange=\"f()\"><option value=\"\">any</option>{}</select>\
         error class <select id=\"fc\" onchange=\"f()\"><option value=\"\">any</option>{}</select>\
         database <select id=\"fd\" onchange=\"f()\"><option value=\"\">any</option>{}</select>{}\
         containing <input id=\"ft\" oninput=\"f()\" placeholder=\"text, SQL…\"></p>",
        r.questions.len(),
        r.questions.len(),
        if audit.is_some() {
            "<option value=\"audit\">with gold-audit findings</option>"
        } else {
            ""
        },
        options(engines),
        options(verdicts),
        options(classes),
        options(dbs),
        level_filter
    );
    let order: Vec<&str> = VERDICTS.iter().map(|(v, _)| v.as_str()).collect();
    let _ = write!(
        o,
        "<table id=\"qh\" data-order=\"{}\"><tr><td class=\"muted\">sort by</td><th data-s=\"id\" aria-sort=\"none\" title=\"question number\">#</th><th data-s=\"db\" aria-sort=\"none\">database</th>{}",
        order.join(","),
        if levels.is_empty() {
            ""
        } else {
            "<th data-s=\"lv\" aria-sort=\"none\" title=\"Spider hardness or BIRD difficulty\">level</th>"
        }
    );
    for e in r.summary.engines.keys() {
        let _ = write!(
            o,
            "<th data-s=\"e:{0}\" aria-sort=\"none\" title=\"verdict on {0}\">{0}</th>",
            esc(e)
        );
    }
    o.push_str("</tr></table><div id=\"qs\">");
    for q in &r.questions {
        question(o, q, audit, &r.run.compare);
    }
    o.push_str("</div>");
}

/// The level filter's options in the evaluators' order: the Spider
/// hardness and BIRD difficulty levels some question has.
fn level_options(r: &Report) -> String {
    let mut o = String::new();
    for l in crate::HARDNESS_LEVELS
        .iter()
        .chain(crate::DIFFICULTY_LEVELS.iter())
    {
        if r.questions
            .iter()
            .any(|q| q.hardness.as_deref() == Some(*l) || q.difficulty.as_deref() == Some(*l))
        {
            let _ = write!(o, "<option>{}</option>", esc(l));
        }
    }
    o
}

/// The error class of an outcome's failing side, if any.
fn error_class(x: &EngineOutcome) -> Option<String> {
    let side = match x.verdict {
        Verdict::GoldError => x.gold.as_ref(),
        _ => x.pred.as_ref(),
    }?;
    side.error_class.map(|c| c.as_str().to_string())
}

/// The verdict as shown and its colour: a `match` that failed its test
/// suite shows as such, in the failure colour.
fn shown(x: &EngineOutcome) -> (String, &'static str) {
    if x.suite.as_ref().is_some_and(|s| !s.passed) {
        return (
            format!("{}, suite failed", x.verdict.as_str()),
            color(Verdict::Mismatch),
        );
    }
    (x.verdict.as_str().to_string(), color(x.verdict))
}

/// The question's level as a tag: BIRD difficulty, else Spider hardness
/// (its reason in the title when the evaluator cannot read the gold).
fn level_tag(q: &QuestionReport) -> String {
    match (&q.difficulty, &q.hardness, &q.hardness_error) {
        (Some(d), _, _) => format!(
            "<span class=\"muted\" title=\"BIRD difficulty\">{}</span> ",
            esc(d)
        ),
        (None, Some(h), _) => format!(
            "<span class=\"muted\" title=\"Spider hardness\">{}</span> ",
            esc(h)
        ),
        (None, None, Some(e)) => format!(
            "<span class=\"muted\" title=\"Spider hardness: {}\">no hardness</span> ",
            esc(e)
        ),
        _ => String::new(),
    }
}

fn question(o: &mut String, q: &QuestionReport, audit: Option<&AuditNotes>, compare: &str) {
    let notes = audit
        .and_then(|a| a.by_question.get(&q.id))
        .map_or(&[][..], Vec::as_slice);
    let fail = q
        .engines
        .values()
        .any(|e| e.verdict != Verdict::Match || e.suite.as_ref().is_some_and(|s| !s.passed));
    let mut verdicts = q.engines.values().map(|e| e.verdict);
    let first = verdicts.next();
    let incons = verdicts.any(|v| Some(v) != first);
    let model = q.engines.values().any(|e| {
        matches!(
            e.verdict,
            Verdict::Mismatch | Verdict::PredError | Verdict::Timeout
        ) || e.suite.as_ref().is_some_and(|s| !s.passed)
    });
    let gold = q.engines.values().any(|e| e.verdict == Verdict::GoldError);
    let ev: Vec<String> = q
        .engines
        .iter()
        .map(|(e, x)| {
            format!(
                "{e}:{}:{}",
                x.verdict.as_str(),
                error_class(x).unwrap_or_default()
            )
        })
        .collect();
    let _ = write!(
        o,
        "<details class=\"q\" id=\"q{}\" data-id=\"{}\" data-audit=\"{}\" data-fail=\"{}\" data-incons=\"{}\" data-model=\"{}\" data-gold=\"{}\" data-db=\"{}\" data-hd=\"{}\" data-df=\"{}\" data-ev=\"{}\"><summary><a href=\"#q{}\">#{}</a> <code>{}</code> {}",
        q.id,
        q.id,
        u8::from(!notes.is_empty()),
        u8::from(fail),
        u8::from(incons),
        u8::from(model),
        u8::from(gold),
        esc(&q.db_id),
        esc(q.hardness.as_deref().unwrap_or("")),
        esc(q.difficulty.as_deref().unwrap_or("")),
        esc(&ev.join(";")),
        q.id,
        q.id,
        esc(&q.db_id),
        level_tag(q)
    );
    for (e, x) in &q.engines {
        let (label, background) = shown(x);
        let _ = write!(
            o,
            "<span class=\"{}\" style=\"background:{background}\">{}: {}</span>",
            text_class(background),
            esc(e),
            esc(&label)
        );
    }
    if !notes.is_empty() {
        let _ = write!(
            o,
            "<span class=\"b\" style=\"background:#5d4037\" title=\"gold-audit findings\">audit: {}</span>",
            notes.len()
        );
    }
    let _ = write!(o, " {}</summary>", esc(&q.question));
    if !notes.is_empty() {
        o.push_str("<div class=\"audit\">Gold audit: ");
        for (i, n) in notes.iter().enumerate() {
            if i > 0 {
                o.push_str("; ");
            }
            let rule = format!("<code>{}</code>", esc(&n.rule));
            match audit.and_then(|a| a.href.as_deref()) {
                Some(href) => {
                    let _ = write!(o, "<a href=\"{}#{}\">{rule}</a>", esc(href), esc(&n.anchor));
                }
                None => o.push_str(&rule),
            }
            let _ = write!(o, " {} on {}", esc(&n.status), esc(&n.engines.join(", ")));
        }
        o.push_str("</div>");
    }
    let _ = write!(
        o,
        "<div>gold:<pre>{}</pre>prediction:<pre>{}</pre><div class=\"eng\">",
        esc(&q.gold_sql),
        esc(q.pred_sql.as_deref().unwrap_or("(abstained / none)"))
    );
    for (e, x) in &q.engines {
        engine_box(o, e, x, compare);
    }
    o.push_str("</div></div></details>\n");
}

fn engine_box(o: &mut String, engine: &str, x: &EngineOutcome, compare: &str) {
    write_verdict_line(o, engine, x, compare);
    if let Some(suite) = x.suite.as_ref().filter(|s| !s.passed) {
        write_suite_failure(o, suite);
    }
    for (side, ex, other) in [
        ("gold", x.gold.as_ref(), x.pred.as_ref()),
        ("pred", x.pred.as_ref(), x.gold.as_ref()),
    ] {
        if let Some(ex) = ex {
            write_execution(o, side, ex, other);
        }
    }
    o.push_str("</div>");
}

/// The engine's name and verdict, why it is one, and what the legacy
/// evaluators and a lenient comparison say of it.
fn write_verdict_line(o: &mut String, engine: &str, x: &EngineOutcome, compare: &str) {
    let (label, background) = shown(x);
    let _ = write!(
        o,
        "<div><b>{}</b> <span class=\"{}\" style=\"background:{background}\">{}</span>{}{}",
        esc(engine),
        text_class(background),
        esc(&label),
        x.reason
            .map(|r| format!(" reason <code>{}</code>", r.as_str()))
            .unwrap_or_default(),
        if x.ordered {
            " <span class=\"muted\">(ordered comparison)</span>"
        } else {
            ""
        }
    );
    if let Some(l) = x.legacy {
        let _ = write!(
            o,
            " <span class=\"muted\">Spider evaluator: {}{}, BIRD: {}</span>",
            if l.spider { "match" } else { "mismatch" },
            if l.distinct_removed {
                " (DISTINCT deleted)"
            } else {
                ""
            },
            if l.bird { "match" } else { "mismatch" }
        );
    }
    if !x.credit_causes.is_empty() {
        let causes: Vec<&str> = x.credit_causes.iter().map(|c| c.as_str()).collect();
        let _ = write!(
            o,
            " <span class=\"muted\">credited by <code>{}</code>, not by strict comparison: {}</span>",
            esc(compare),
            causes.join(", ")
        );
    }
}

/// Where a failed test suite failed, and its witness.
fn write_suite_failure(o: &mut String, suite: &crate::SuiteOutcome) {
    let _ = write!(
        o,
        "<div><i>suite</i> failed on <code>{}</code> ({}; {} of {} instances checked)",
        esc(suite.failed_instance.as_deref().unwrap_or("")),
        esc(suite.reason.as_deref().unwrap_or("")),
        suite.checked,
        suite.instances
    );
    if let Some(w) = &suite.witness {
        let _ = write!(
            o,
            "<pre>witness ({} rows):\n{}\ngold on it: {}\npred on it: {}</pre>",
            w.rows,
            esc(&w.inserts.join("\n")),
            esc(&format!("{:?}", w.gold)),
            esc(&format!("{:?}", w.pred))
        );
    }
    o.push_str("</div>");
}

/// One side's execution: its time and result, the SQL sent, its error and
/// its sample rows against the `other` side's.
fn write_execution(o: &mut String, side: &str, ex: &Execution, other: Option<&Execution>) {
    let _ = write!(
        o,
        "<div><i>{side}</i> <span class=\"muted\">{:.1} ms",
        ex.duration_ms
    );
    if let Some(n) = ex.row_count {
        let _ = write!(
            o,
            ", {n} rows, hash {}",
            esc(ex.result_hash.as_deref().unwrap_or(""))
        );
    }
    o.push_str("</span>");
    if let Some(run) = &ex.sql_run {
        let _ = write!(o, "<pre class=\"muted\">sent: {}</pre>", esc(run));
    }
    if let Some(err) = &ex.error {
        let _ = write!(
            o,
            "<pre>{} {}: {}</pre>",
            ex.error_class.map(|c| c.as_str()).unwrap_or("other"),
            esc(ex.error_code.as_deref().unwrap_or("")),
            esc(err)
        );
    }
    if !ex.sample.is_empty() {
        write_sample(o, ex, other);
    }
    o.push_str("</div>");
}

/// A sample as a table, its column names as the header; rows of this
/// sample the other side's sample lacks are marked (where both samples
/// hold the whole results, that is the difference itself).
fn write_sample(o: &mut String, ex: &Execution, other: Option<&Execution>) {
    o.push_str("<table>");
    if !ex.columns.is_empty() {
        o.push_str("<tr>");
        for c in &ex.columns {
            let _ = write!(o, "<th>{}</th>", esc(c));
        }
        o.push_str("</tr>");
    }
    for row in &ex.sample {
        o.push_str(if only_here(row, other) {
            "<tr class=\"only\" title=\"not in the other side's rows shown\">"
        } else {
            "<tr>"
        });
        for c in row {
            let _ = write!(o, "<td>{}</td>", esc(c));
        }
        o.push_str("</tr>");
    }
    o.push_str("</table>");
}

/// Whether `row` is missing from the other side's sample (never when that
/// side has no sample to compare with).
fn only_here(row: &[String], other: Option<&Execution>) -> bool {
    other.is_some_and(|x| !x.sample.is_empty() && !x.sample.iter().any(|r| r == row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_expected, report_of, small_report, HOSTILE};

    /// A row is marked only when the other side has a sample without it.
    #[test]
    fn only_here_marks_rows_the_other_sample_lacks() {
        use crate::test_support::ok;
        let row = |c: &str| vec![c.to_string()];
        let other = ok(&[&["a"], &["b"]], 1.0);
        assert!(!only_here(&row("a"), Some(&other)));
        assert!(only_here(&row("c"), Some(&other)));
        assert!(!only_here(&row("c"), Some(&ok(&[], 1.0))));
        assert!(!only_here(&row("c"), None));
    }

    #[test]
    fn report_html_matches_the_expected_file() {
        assert_expected("report.html", &render_html(&small_report()));
    }

    /// `<script>` from a question, the SQL, a database's rows, a server's
    /// message or a witness never reaches the page as markup: the page's
    /// one script is its own.
    #[test]
    fn hostile_text_is_escaped_everywhere() {
        let h = render_html(&small_report());
        assert_eq!(h.matches("<script").count(), 1, "one script: the page's");
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
        for needle in [
            // The question, in its summary line.
            format!(" Pets named {escaped} &amp; &quot;friends&quot; | others?</summary>"),
            // The prediction.
            format!("<pre>SELECT name FROM pets WHERE name LIKE &#39;{escaped}%&#39;</pre>"),
            // A sample cell.
            format!("<td>{escaped}</td>"),
            // A server's message.
            format!("<pre>undefined_column 42703: column &quot;Name&quot; does not exist near {escaped}</pre>"),
            // A witness row.
            format!("gold on it: [[&quot;{escaped}&quot;]]"),
        ] {
            assert!(h.contains(&needle), "{needle}");
        }
        assert!(!h.contains(HOSTILE));
    }

    /// The page's elements close, one drill-down per question with a badge
    /// per engine, a summary row per engine, and each side's sample rows
    /// with the other side's missing ones marked.
    #[test]
    fn the_page_has_the_right_rows() {
        let r = small_report();
        let h = render_html(&r);
        assert!(h.starts_with("<!DOCTYPE html>") && h.ends_with("</html>\n"));
        for tag in [
            "details", "table", "tr", "div", "svg", "pre", "summary", "select", "span",
        ] {
            let open =
                h.matches(&format!("<{tag}>")).count() + h.matches(&format!("<{tag} ")).count();
            assert_eq!(open, h.matches(&format!("</{tag}>")).count(), "<{tag}>");
        }
        assert_eq!(h.matches("<details class=\"q\"").count(), 6);
        for q in 0..6 {
            assert!(h.contains(&format!("id=\"q{q}\" data-id=\"{q}\"")), "q{q}");
        }
        // Summary: engine, server (short, full in the title), questions,
        // then the verdict counts in VERDICTS' order.
        assert!(h.contains(
            "<tr><td>postgres</td><td title=\"PostgreSQL 15.4 (Debian 15.4-1) on x86_64-pc-linux-gnu\">PostgreSQL 15.4</td><td class=n>6</td>\
             <td class=n>1</td><td class=n>1</td><td class=n>1</td><td class=n>0</td><td class=n>1</td><td class=n>1</td><td class=n>1</td><td class=n>0</td><td class=n>0</td>"
        ));
        // Badges: the tie, the failed suite in the failure colour.
        assert!(h.contains("style=\"background:#81c784\">postgres: match_tie</span>"));
        assert!(h.contains("style=\"background:#ef6c00\">sqlite: match, suite failed</span>"));
        assert_eq!(h.matches("\">sqlite: ").count(), 6);
        // Question 1: both sides' column names; the tied rows differ, so
        // each side's row is marked on both engines; question 5: the gold's
        // second row.
        assert!(h.contains("<tr><th>name</th><th>age</th></tr>"));
        assert_eq!(h.matches("<tr class=\"only\"").count(), 6);
        assert!(h.contains(
            "<tr class=\"only\" title=\"not in the other side's rows shown\"><td>c</td></tr>"
        ));
        // Filters list the databases, escaped.
        assert!(h.contains("<option value=\"world|1\">world|1</option>"));
    }

    /// The level tables' `count` is what EX divides by (the questions
    /// with a database the engine could run), as summary.md and the
    /// terminal print it: count × EX is the number of matches.
    #[test]
    fn level_counts_are_what_ex_divides_by() {
        let mut r = small_report();
        r.questions[3].engines.insert(
            "postgres".into(),
            crate::test_support::outcome(Verdict::MissingDb, None, None),
        );
        r.summary = crate::summarize(&r.questions);
        let h = render_html(&r);
        // Postgres: the extra question has no database; 6 questions, 5 scored.
        assert!(h.contains(
            "<tr><td>postgres</td><td>count</td><td class=n>1</td><td class=n>2</td><td class=n>1</td><td class=n>0</td><td class=n>5</td></tr>\
             <tr><td>postgres</td><td>EX</td><td class=n>1.000</td><td class=n>0.000</td><td class=n>0.000</td><td class=n>0.000</td><td class=n>0.200</td></tr>"
        ), "{h}");
        let md = crate::render_markdown(&r);
        assert!(md.contains("| postgres | count | 1 | 2 | 1 | 0 | 5 |"));
        assert!(h.contains("postgres: 1 of the 6 questions are left out of the count"));
    }

    #[test]
    fn an_empty_report_is_a_complete_page() {
        let h = render_html(&report_of(Vec::new()));
        assert!(h.starts_with("<!DOCTYPE html>") && h.ends_with("</script></body></html>\n"));
        assert!(h.contains("<h2>Questions (<span id=\"fn\">0</span> of 0)</h2>"));
        assert!(!h.contains("<details"));
    }
}
