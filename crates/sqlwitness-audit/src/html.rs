//! `audit.html`: the audit as one self-contained page (no network fetch).
//! An index of every finding — rule, status, question, database, engines —
//! filterable by rule, status and database (the query string sets the
//! filters: `audit.html?rule=limit_tie_1&db=concert_singer` is a link to
//! that view), each row linking to its question's section with the gold,
//! the detail, the rows that prove it, the rewrite, the translation and the
//! command that shows it again.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::model::{AuditReport, Finding, Status};

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#212121;max-width:1500px}\
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}\
th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}\
pre{background:#fafafa;border:1px solid #eee;padding:6px;white-space:pre-wrap;margin:4px 0}\
.tw{overflow-x:auto;max-width:100%}.muted{color:#757575}.f{border-left:3px solid #ef6c00;padding-left:8px;margin:10px 0}\
.f.latent{border-left-color:#90a4ae}.filters select{margin:0 6px 4px 2px}section{border-bottom:1px solid #eee;padding-bottom:8px}";

/// Filters the index rows (`data-rule`, `data-status`, `data-db`); the
/// query string sets the filters and a change is written back to it.
const SCRIPT: &str = "function v(id){return document.getElementById(id).value;}\
function f(){var r=v('fr'),s=v('fs'),b=v('fd'),n=0;\
document.querySelectorAll('tr.fi').forEach(function(t){var ok=(r==''||t.dataset.rule==r)&&(s==''||t.dataset.status==s)&&(b==''||t.dataset.db==b);\
t.style.display=ok?'':'none';if(ok)n++;});document.getElementById('fn').textContent=n;\
var p=new URLSearchParams();if(r)p.set('rule',r);if(s)p.set('status',s);if(b)p.set('db',b);\
try{history.replaceState(null,'',location.pathname+(p.toString()?'?'+p:'')+location.hash);}catch(e){}}\
document.addEventListener('DOMContentLoaded',function(){var p=new URLSearchParams(location.search),any=false;\
[['rule','fr'],['status','fs'],['db','fd']].forEach(function(k){if(p.has(k[0])){document.getElementById(k[1]).value=p.get(k[0]);any=true;}});if(any)f();});";

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn status(s: Status) -> &'static str {
    match s {
        Status::Proven => "proven",
        Status::Latent => "latent",
    }
}

fn options(values: &BTreeSet<&str>) -> String {
    values
        .iter()
        .map(|v| format!("<option value=\"{0}\">{0}</option>", esc(v)))
        .collect()
}

pub fn render_audit_html(r: &AuditReport) -> String {
    let s = &r.summary;
    let mut o = String::with_capacity(1 << 20);
    let _ = write!(
        o,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>sqlwitness audit — {}</title><style>{STYLE}</style></head><body>",
        esc(&r.run.bench)
    );
    let _ = write!(
        o,
        "<h1>sqlwitness audit</h1><p>Benchmark <code>{}</code> split <code>{}</code>; {} questions, {} with a database; engines {}; {} questions affected, {} findings. The same audit as text: <code>audit.md</code>; as data: <code>audit.json</code>.</p>",
        esc(&r.run.bench),
        esc(&r.run.split),
        s.questions,
        s.with_db,
        esc(&r.run.engines.join(", ")),
        s.affected_questions,
        r.findings.len()
    );
    o.push_str(
        "<h2>Findings by rule</h2><table><tr><th>rule</th><th>proven</th><th>latent</th></tr>",
    );
    for (rule, c) in &s.by_rule {
        let _ = write!(
            o,
            "<tr><td><a href=\"?rule={0}\"><code>{0}</code></a></td><td class=\"n\">{1}</td><td class=\"n\">{2}</td></tr>",
            esc(rule),
            c.proven,
            c.latent
        );
    }
    o.push_str("</table>");
    index(&mut o, r);
    o.push_str("<h2>Affected questions</h2>");
    let mut i = 0;
    while i < r.findings.len() {
        let id = r.findings[i].id;
        let end = r.findings[i..]
            .iter()
            .position(|f| f.id != id)
            .map_or(r.findings.len(), |n| i + n);
        section(&mut o, &r.findings[i..end], i);
        i = end;
    }
    let _ = writeln!(o, "<script>{SCRIPT}</script></body></html>");
    o
}

fn index(o: &mut String, r: &AuditReport) {
    let rules: BTreeSet<&str> = r.findings.iter().map(|f| f.rule.as_str()).collect();
    let dbs: BTreeSet<&str> = r.findings.iter().map(|f| f.db_id.as_str()).collect();
    let _ = write!(
        o,
        "<h2>Index (<span id=\"fn\">{n}</span> of {n} findings)</h2><p class=\"filters\">rule \
         <select id=\"fr\" onchange=\"f()\"><option value=\"\">any</option>{}</select>status \
         <select id=\"fs\" onchange=\"f()\"><option value=\"\">any</option><option value=\"proven\">proven</option><option value=\"latent\">latent</option></select>database \
         <select id=\"fd\" onchange=\"f()\"><option value=\"\">any</option>{}</select></p>\
         <div class=\"tw\"><table id=\"index\"><tr><th>rule</th><th>status</th><th>question</th><th>database</th><th>engines</th><th>detail</th></tr>",
        options(&rules),
        options(&dbs),
        n = r.findings.len()
    );
    for (i, f) in r.findings.iter().enumerate() {
        let detail: String = f.detail.chars().take(120).collect();
        let _ = write!(
            o,
            "<tr class=\"fi\" data-rule=\"{rule}\" data-status=\"{st}\" data-db=\"{db}\"><td><code>{rule}</code></td><td>{st}</td><td><a href=\"#f{i}\">Q{id}</a></td><td>{db}</td><td>{eng}</td><td class=\"muted\">{det}{more}</td></tr>",
            rule = esc(&f.rule),
            st = status(f.status),
            db = esc(&f.db_id),
            id = f.id,
            eng = esc(&f.engines.join(", ")),
            det = esc(&detail),
            more = if f.detail.chars().count() > 120 { "…" } else { "" },
        );
    }
    o.push_str("</table></div>");
}

/// One question's findings (`first` is the index of the first of them in
/// the report: the anchors `#f<index>`).
fn section(o: &mut String, findings: &[Finding], first: usize) {
    let q = &findings[0];
    let _ = write!(
        o,
        "<section id=\"q{0}\"><h3><a href=\"#q{0}\">Q{0}</a> <code>{1}</code></h3><pre>{2}</pre>",
        q.id,
        esc(&q.db_id),
        esc(&q.gold_sql)
    );
    for (k, f) in findings.iter().enumerate() {
        let _ = write!(
            o,
            "<div class=\"f {st}\" id=\"f{n}\"><b><code>{rule}</code></b> {st} on {eng}{mech}: {det}",
            st = status(f.status),
            n = first + k,
            rule = esc(&f.rule),
            eng = esc(&f.engines.join(", ")),
            mech = f
                .mechanism
                .as_ref()
                .map(|m| format!(" (<code>{}</code>)", esc(m)))
                .unwrap_or_default(),
            det = esc(&f.detail)
        );
        if let Some(b) = &f.block {
            let _ = write!(o, "<div class=\"muted\">in <code>{}</code></div>", esc(b));
        }
        for e in &f.evidence {
            let _ = write!(o, "<div>{}: {}</div>", esc(&e.kind), esc(&e.note));
            if !e.columns.is_empty() && !e.rows.is_empty() {
                o.push_str("<div class=\"tw\"><table><tr>");
                for c in &e.columns {
                    let _ = write!(o, "<th>{}</th>", esc(c));
                }
                o.push_str("</tr>");
                for row in &e.rows {
                    o.push_str("<tr>");
                    for c in row {
                        let _ = write!(o, "<td>{}</td>", esc(c));
                    }
                    o.push_str("</tr>");
                }
                o.push_str("</table></div>");
            }
        }
        if let Some(rw) = &f.rewrite {
            let _ = write!(
                o,
                "<div>rewrite ({}, {}): <pre>{}</pre><span class=\"muted\">{}</span></div>",
                esc(&rw.kind),
                if rw.verified {
                    "verified"
                } else {
                    "not verified"
                },
                esc(&rw.sql),
                esc(&rw.note)
            );
        }
        if let Some(t) = &f.translation {
            let _ = write!(
                o,
                "<div>translation → <code>{}</code>{} ({}): <pre>{}</pre><span class=\"muted\">{}</span></div>",
                esc(&t.outcome),
                t.mechanism
                    .as_ref()
                    .map(|m| format!(" ({})", esc(m)))
                    .unwrap_or_default(),
                esc(&t.steps.join(", ")),
                esc(t.sql.as_deref().unwrap_or("")),
                esc(&t.result)
            );
        }
        if let Some(cmd) = f.rerun.get(1) {
            let _ = write!(o, "<div>rerun: <code>{}</code></div>", esc(cmd));
        }
        o.push_str("</div>");
    }
    o.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AuditSummary, StatusCount};
    use crate::Evidence;

    fn finding(id: usize, db: &str, rule: &str, status: Status) -> Finding {
        Finding {
            id,
            db_id: db.into(),
            rule: rule.into(),
            status,
            engines: vec!["sqlite".into(), "postgres".into()],
            gold_sql: format!("SELECT name FROM t{id} ORDER BY age LIMIT 1"),
            block: None,
            detail: "LIMIT 1 cuts through 2 rows tied on <age>".into(),
            mechanism: None,
            evidence: vec![Evidence {
                kind: "ties_at_cut".into(),
                sql: None,
                note: "the tied rows".into(),
                columns: vec!["name".into(), "age".into()],
                rows: vec![
                    vec!["Ann".into(), "30".into()],
                    vec!["Bob".into(), "30".into()],
                ],
            }],
            rerun: vec![],
            rewrite: None,
            translation: None,
        }
    }

    #[test]
    fn an_index_row_per_finding_linking_to_its_section() {
        let mut summary = AuditSummary::default();
        summary.by_rule.insert(
            "limit_tie_1".into(),
            StatusCount {
                proven: 2,
                latent: 0,
            },
        );
        let r = AuditReport {
            format_version: crate::AUDIT_FORMAT_VERSION,
            tool_version: "0".into(),
            run: Default::default(),
            summary,
            findings: vec![
                finding(3, "concert", "limit_tie_1", Status::Proven),
                finding(3, "concert", "distinct_order_by", Status::Latent),
                finding(9, "pets", "limit_tie_1", Status::Proven),
            ],
        };
        let html = render_audit_html(&r);
        assert_eq!(html.matches("<tr class=\"fi\"").count(), 3);
        // Rows link to the findings' anchors; one section per question.
        for (i, q) in [(0, 3), (1, 3), (2, 9)] {
            assert!(html.contains(&format!("<a href=\"#f{i}\">Q{q}</a>")), "{i}");
            assert!(html.contains(&format!("id=\"f{i}\"")), "{i}");
        }
        assert_eq!(html.matches("<section id=\"q").count(), 2);
        assert!(html.contains(
            "data-rule=\"distinct_order_by\" data-status=\"latent\" data-db=\"concert\""
        ));
        // Filters offer every rule and database once.
        assert_eq!(html.matches("<option value=\"limit_tie_1\">").count(), 1);
        assert!(html.contains("<option value=\"pets\">"));
        // The proving rows, escaped.
        assert!(html.contains("<th>name</th><th>age</th>"));
        assert!(html.contains("<td>Bob</td><td>30</td>"));
        assert!(html.contains("tied on &lt;age&gt;"));
        assert!(!html.contains("<age>"));
        // Self-contained.
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
