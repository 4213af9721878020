use super::*;

fn tables() -> Vec<(String, Vec<String>)> {
    vec![
        (
            "pets".into(),
            vec![
                "petid".into(),
                "pettype".into(),
                "pet_age".into(),
                "weight".into(),
            ],
        ),
        ("has_pet".into(), vec!["stuid".into(), "petid".into()]),
        (
            "student".into(),
            vec!["stuid".into(), "fname".into(), "age".into()],
        ),
    ]
}

fn values(col: &str) -> Vec<String> {
    if col.eq_ignore_ascii_case("pettype") {
        vec!["dog".into(), "cat".into(), "bird".into()]
    } else {
        Vec::new()
    }
}

fn gen(sql: &str) -> Vec<Neighbor> {
    let t = tables();
    let opts = NeighborOptions {
        tables: &t,
        text_values: &values,
        ..NeighborOptions::default()
    };
    neighbors(sql, &opts).unwrap()
}

fn has(ns: &[Neighbor], kind: MutationKind, sql: &str) -> bool {
    ns.iter().any(|n| n.kind == kind && n.sql == sql)
}

#[test]
fn every_kind_is_generated() {
    let ns = gen("SELECT count(DISTINCT T1.stuid) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T2.petid = T3.petid WHERE T3.pettype = 'cat' AND T1.age > 20");
    let kinds: std::collections::BTreeSet<_> = ns.iter().map(|n| n.kind).collect();
    for k in [
        MutationKind::ComparisonOp,
        MutationKind::Number,
        MutationKind::TextValue,
        MutationKind::DropConjunct,
        MutationKind::CountDistinct,
        MutationKind::Aggregate,
        MutationKind::Join,
    ] {
        assert!(kinds.contains(&k), "{k} missing in {ns:#?}");
    }
    assert!(has(&ns, MutationKind::TextValue, "SELECT count(DISTINCT T1.stuid) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T2.petid = T3.petid WHERE T3.pettype = 'dog' AND T1.age > 20"));
    assert!(has(&ns, MutationKind::DropConjunct, "SELECT count(DISTINCT T1.stuid) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T2.petid = T3.petid WHERE T1.age > 20"));
    assert!(has(&ns, MutationKind::CountDistinct, "SELECT count(T1.stuid) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T2.petid = T3.petid WHERE T3.pettype = 'cat' AND T1.age > 20"));
    assert!(has(&ns, MutationKind::Number, "SELECT count(DISTINCT T1.stuid) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T2.petid = T3.petid WHERE T3.pettype = 'cat' AND T1.age > 21"));
    // No neighbour is the query itself, none repeats.
    let set: std::collections::HashSet<_> = ns.iter().map(|n| &n.sql).collect();
    assert_eq!(set.len(), ns.len());
}

#[test]
fn order_limit_columns_and_double_quoted_strings() {
    let ns =
        gen("SELECT pettype, weight FROM pets WHERE pettype = \"dog\" ORDER BY pet_age LIMIT 1");
    assert!(has(
        &ns,
        MutationKind::SortOrder,
        "SELECT pettype, weight FROM pets WHERE pettype = \"dog\" ORDER BY pet_age DESC LIMIT 1"
    ));
    assert!(has(
        &ns,
        MutationKind::Limit,
        "SELECT pettype, weight FROM pets WHERE pettype = \"dog\" ORDER BY pet_age LIMIT 2"
    ));
    assert!(!ns.iter().any(|n| n.sql.ends_with("LIMIT 0")));
    assert!(has(
        &ns,
        MutationKind::SelectColumn,
        "SELECT pet_age, weight FROM pets WHERE pettype = \"dog\" ORDER BY pet_age LIMIT 1"
    ));
    assert!(has(
        &ns,
        MutationKind::TextValue,
        "SELECT pettype, weight FROM pets WHERE pettype = 'cat' ORDER BY pet_age LIMIT 1"
    ));
    assert!(has(
        &ns,
        MutationKind::DropConjunct,
        "SELECT pettype, weight FROM pets ORDER BY pet_age LIMIT 1"
    ));
}

#[test]
fn deterministic_and_rejects_non_queries() {
    let q = "SELECT avg(age), min(age) FROM student GROUP BY fname HAVING count(*) > 1";
    assert_eq!(gen(q), gen(q));
    assert!(gen(q).iter().any(|n| n.sql.contains("sum(age), min(age)")));
    assert!(matches!(
        neighbors("DROP TABLE t", &NeighborOptions::default()),
        Err(NeighborError::NotOneQuery)
    ));
    assert!(neighbors("SELEC x", &NeighborOptions::default()).is_err());
}

#[test]
fn literals_know_their_columns() {
    let lits = gold_literals(
        "SELECT * FROM pets WHERE pettype = \"dog\" AND weight > 10 AND fname LIKE '%ab%' AND age BETWEEN 1 AND 3",
        &|c| ["pettype", "weight", "fname", "age"].contains(&c),
        sqlwitness_sql::SQLITE_ONLY,
    )
    .unwrap();
    let col = |c: &str, v: LiteralValue| GoldLiteral {
        column: Some(c.into()),
        value: v,
    };
    assert!(lits.contains(&col("pettype", LiteralValue::Text("dog".into()))));
    assert!(lits.contains(&col("weight", LiteralValue::Number("10".into()))));
    assert!(lits.contains(&col("fname", LiteralValue::Text("ab".into()))));
    assert!(lits.contains(&col("age", LiteralValue::Number("3".into()))));
}
