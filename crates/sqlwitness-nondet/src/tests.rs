use super::*;
use sqlwitness_sql::{ForeignKey, SchemaInfo, TableInfo, SQLITE_ONLY};

pub(super) fn schema() -> SchemaInfo {
    SchemaInfo::new(vec![
        TableInfo {
            name: "singer".into(),
            columns: vec![
                "singer_id".into(),
                "name".into(),
                "age".into(),
                "country".into(),
            ],
            primary_key: vec!["singer_id".into()],
            uniques: vec![],
            foreign_keys: vec![],
            types: vec![],
        },
        TableInfo {
            name: "song".into(),
            columns: vec![
                "song_id".into(),
                "singer_id".into(),
                "title".into(),
                "sales".into(),
            ],
            primary_key: vec!["song_id".into()],
            uniques: vec![vec!["title".into()]],
            foreign_keys: vec![ForeignKey {
                columns: vec!["singer_id".into()],
                ref_table: "singer".into(),
                ref_columns: vec!["singer_id".into()],
            }],
            types: vec![],
        },
    ])
}

fn rules(sql: &str) -> Vec<NondetRule> {
    analyze(sql, &schema(), SQLITE_ONLY)
        .unwrap()
        .into_iter()
        .map(|f| f.rule)
        .collect()
}

#[test]
fn limit_ties() {
    use NondetRule::*;
    assert_eq!(
        rules("SELECT name FROM singer ORDER BY age DESC LIMIT 1"),
        [LimitTie1]
    );
    assert_eq!(
        rules("SELECT name FROM singer ORDER BY age LIMIT 3"),
        [LimitTieN]
    );
    // A key that determines the row: no tie can be seen.
    assert!(rules("SELECT name FROM singer ORDER BY singer_id LIMIT 1").is_empty());
    assert!(rules("SELECT title FROM song ORDER BY title LIMIT 2").is_empty());
    // The output is the key itself: tied rows are identical.
    assert!(rules("SELECT age FROM singer ORDER BY age DESC LIMIT 1").is_empty());
    assert!(rules("SELECT max(age) FROM singer LIMIT 1").is_empty());
    // A function of the key, or the same aggregate over a float cast of its
    // argument: tied rows give the same output.
    assert!(rules("SELECT CAST(age AS REAL) FROM singer ORDER BY age DESC LIMIT 1").is_empty());
    assert!(rules(
        "SELECT sum(CAST(age AS float)) FROM singer GROUP BY country ORDER BY sum(age) DESC LIMIT 1"
    )
    .is_empty());
    assert!(rules(
        "SELECT (sum(age)) FROM singer GROUP BY country ORDER BY sum(CAST(age AS REAL)) LIMIT 1"
    )
    .is_empty());
    // A truncating cast does not commute with sum; another column is not the key.
    assert_eq!(
        rules(
            "SELECT sum(CAST(age AS INTEGER)) FROM singer GROUP BY country ORDER BY sum(age) LIMIT 1"
        ),
        [LimitTie1]
    );
    assert_eq!(
        rules("SELECT CAST(name AS REAL) FROM singer ORDER BY age DESC LIMIT 1"),
        [LimitTie1]
    );
    // Aliases and positions resolve to the select list.
    assert!(
        rules("SELECT count(*) AS c FROM singer GROUP BY country ORDER BY c DESC LIMIT 1")
            .is_empty()
    );
    assert_eq!(
        rules("SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1"),
        [LimitTie1]
    );
    assert!(
        rules("SELECT country, count(*) FROM singer GROUP BY country ORDER BY 1 LIMIT 1")
            .is_empty()
    );
    // Subqueries count.
    assert_eq!(
        rules("SELECT title FROM song WHERE singer_id = (SELECT singer_id FROM singer ORDER BY age LIMIT 1)"),
        [LimitTie1]
    );
    assert_eq!(
        rules("SELECT name FROM singer LIMIT 2"),
        [LimitWithoutOrder]
    );
    // Join through a foreign key: song's key determines singer's columns.
    assert!(rules("SELECT T2.name FROM song AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id ORDER BY T1.song_id LIMIT 1").is_empty());
}

#[test]
fn group_by_rules() {
    use NondetRule::*;
    assert_eq!(
        rules("SELECT name, count(*) FROM singer GROUP BY country"),
        [GroupByBareColumn]
    );
    assert!(rules("SELECT name, count(*) FROM singer GROUP BY singer_id").is_empty());
    assert!(rules("SELECT T2.name, count(*) FROM song AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.singer_id").is_empty());
    assert_eq!(
        rules("SELECT name, max(age) FROM singer"),
        [AggregateBareColumn]
    );
    assert!(rules("SELECT count(*) FROM singer WHERE age > 3").is_empty());
    assert!(rules("SELECT name, count(*) FROM singer WHERE singer_id = 3").is_empty());
}

#[test]
fn order_rules() {
    use NondetRule::*;
    assert_eq!(
        rules("SELECT DISTINCT country FROM singer ORDER BY age"),
        [DistinctOrderBy]
    );
    assert!(rules("SELECT DISTINCT country FROM singer ORDER BY country").is_empty());
    assert_eq!(
        rules("SELECT name FROM singer ORDER BY age"),
        [OrderByPartial]
    );
    assert!(rules("SELECT name FROM singer ORDER BY age, singer_id").is_empty());
    assert!(rules("SELECT name FROM (SELECT name FROM singer ORDER BY age)").is_empty());
    // Wildcards expand to the table's columns.
    assert_eq!(rules("SELECT * FROM singer ORDER BY age"), [OrderByPartial]);
    assert!(rules("SELECT * FROM singer ORDER BY singer_id").is_empty());
    assert_eq!(
        rules("SELECT T1.* FROM singer AS T1 ORDER BY age LIMIT 1"),
        [LimitTie1]
    );
}

#[test]
fn probes_are_sql() {
    let f = analyze(
        "SELECT name FROM singer AS s ORDER BY age DESC LIMIT 1",
        &schema(),
        SQLITE_ONLY,
    )
    .unwrap();
    let Some(Probe::Ordered {
        sql,
        data_columns,
        key_columns,
        cut,
    }) = &f[0].probe
    else {
        panic!("{f:?}")
    };
    assert_eq!(
        sql,
        "SELECT name, age AS __sw_k0 FROM singer AS s ORDER BY age DESC"
    );
    assert_eq!((*data_columns, *key_columns, *cut), (1, 1, Some(1)));
    let f = analyze(
        "SELECT name, count(*) FROM singer GROUP BY country",
        &schema(),
        SQLITE_ONLY,
    )
    .unwrap();
    assert_eq!(
        f[0].probe.as_ref().unwrap().sql(),
        "SELECT country AS __sw_g0, count(DISTINCT name) AS __sw_n0, min(name) AS __sw_min0, max(name) AS __sw_max0 FROM singer GROUP BY country"
    );
}

/// Counts on the Spider dev gold, printed (measured, not asserted beyond parsing).
#[test]
fn spider_dev_gold_analyzes() {
    let Some(gold) = sqlwitness_testkit::spider_dev_gold() else {
        return;
    };
    let failures = gold
        .iter()
        .filter(|(sql, _)| analyze(sql, &SchemaInfo::default(), SQLITE_ONLY).is_err())
        .count();
    assert!(failures <= 14, "{failures} do not parse");
}
