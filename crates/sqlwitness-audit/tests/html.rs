//! audit.html in headless Chromium: the index filters by rule, status and
//! database from the query string, and writes a change back to it. Without
//! Chromium: SKIPPED (a failure under SQLWITNESS_REQUIRE_ENGINES=1).

use sqlwitness_audit::{render_audit_html, AuditReport, Finding, Status};

fn finding(id: usize, db: &str, rule: &str, status: Status) -> Finding {
    Finding {
        id,
        db_id: db.into(),
        rule: rule.into(),
        status,
        engines: vec!["sqlite".into()],
        gold_sql: format!("SELECT name FROM t{id} ORDER BY age LIMIT 1"),
        block: None,
        detail: "LIMIT 1 cuts through tied rows".into(),
        mechanism: None,
        evidence: vec![],
        rerun: vec![],
        rewrite: None,
        translation: None,
    }
}

/// The DOM of `html` at `suffix` (query string), after `driver` ran.
fn dump(browser: &str, html: &str, suffix: &str, driver: &str) -> String {
    let dom = sqlwitness_testkit::driven_page_dom(browser, html, suffix, driver, None);
    assert!(dom.contains("<table id=\"index\""), "no page: {dom}");
    dom
}

/// The links of the index rows shown (`#f<n>`).
fn shown(dom: &str) -> Vec<String> {
    dom.split("<tr class=\"fi\"")
        .skip(1)
        .filter(|r| !r.split('>').next().unwrap_or("").contains("display: none"))
        .filter_map(|r| Some(r.split("href=\"#").nth(1)?.split('"').next()?.to_string()))
        .collect()
}

#[test]
fn the_index_filters_in_a_real_browser() {
    let Some(browser) = sqlwitness_testkit::chromium() else {
        return;
    };
    let r = AuditReport {
        findings: vec![
            finding(1, "concert", "limit_tie_1", Status::Proven),
            finding(1, "concert", "order_by_partial", Status::Latent),
            finding(4, "pets", "limit_tie_1", Status::Latent),
            finding(7, "pets", "limit_tie_1", Status::Proven),
        ],
        ..Default::default()
    };
    let html = render_audit_html(&r);
    assert_eq!(
        shown(&dump(browser, &html, "", "")),
        ["f0", "f1", "f2", "f3"]
    );
    assert_eq!(
        shown(&dump(browser, &html, "?rule=limit_tie_1&db=pets", "")),
        ["f2", "f3"]
    );
    assert_eq!(
        shown(&dump(browser, &html, "?rule=limit_tie_1&status=proven", "")),
        ["f0", "f3"]
    );
    // A change of a select filters and lands in the query string.
    let dom = dump(
        browser,
        &html,
        "",
        "var s=document.getElementById('fs');s.value='latent';s.onchange();\
         document.body.setAttribute('data-url',location.search);",
    );
    assert_eq!(shown(&dom), ["f1", "f2"]);
    assert!(dom.contains("data-url=\"?status=latent\""), "{dom}");
    assert!(dom.contains("<span id=\"fn\">2</span>"));
}
