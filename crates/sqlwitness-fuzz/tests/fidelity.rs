//! Suite fidelity, one mechanism per test: two queries that only an
//! instance breaking a rule of the original data could tell apart pass the
//! suite; a wrong query is still caught. Each test builds a small original
//! by hand, distils a suite from its golds and checks predictions on it.

use std::path::{Path, PathBuf};

use sqlwitness_core::compare::{CompareMode, CompareOptions};
use sqlwitness_core::{Database, Engine, QueryLimits, Value};
use sqlwitness_fuzz::{
    build_db_suite, read_schema, suite_db_dir, write_instance, Fate, ForeignKeySpec, FuzzOptions,
    GoldQuery, Manifest, Pools, Rng, Stress, SuiteSet, SuiteVerdict,
};

/// The engine reading instance files in place, from the engine registry.
fn instance_engine() -> std::sync::Arc<dyn Engine> {
    sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap()
}

struct Fixture {
    _tmp: tempfile::TempDir,
    suites: PathBuf,
    set: SuiteSet,
}

fn original(dir: &Path, sql: &str) -> PathBuf {
    let path = dir.join("orig.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    path
}

fn build(sql: &str, golds: &[&str], keys: &[ForeignKeySpec], stress: Stress) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path(), sql);
    let suites = tmp.path().join("suites");
    let golds: Vec<GoldQuery> = golds
        .iter()
        .enumerate()
        .map(|(i, g)| GoldQuery {
            question: i,
            sql: g.to_string(),
        })
        .collect();
    let opts = FuzzOptions {
        seed: 11,
        candidates: 60,
        stress,
        ..FuzzOptions::default()
    };
    let suite = build_db_suite("db", &orig, &golds, keys, &suites, &opts).unwrap();
    let mut m = Manifest::read(&suites.join("manifest.json")).unwrap();
    m.databases.insert("db".into(), suite);
    m.write(&suites.join("manifest.json")).unwrap();
    let set = SuiteSet::open(&suites).unwrap();
    Fixture {
        _tmp: tmp,
        suites,
        set,
    }
}

impl Fixture {
    fn check(&self, gold: &str, pred: &str) -> SuiteVerdict {
        self.check_in(CompareMode::Strict, gold, pred)
    }

    fn check_in(&self, mode: CompareMode, gold: &str, pred: &str) -> SuiteVerdict {
        let e = instance_engine();
        let opts = CompareOptions::new(mode).ordered(
            sqlwitness_sql::has_top_level_order_by(gold, sqlwitness_sql::SQLITE_ONLY)
                .unwrap_or(false),
        );
        self.set
            .check(
                e.as_ref(),
                "db",
                gold,
                pred,
                &opts,
                &QueryLimits::default(),
                true,
            )
            .unwrap()
    }

    fn passes(&self, gold: &str, pred: &str) {
        self.passes_in(CompareMode::Strict, gold, pred);
    }

    fn passes_in(&self, mode: CompareMode, gold: &str, pred: &str) {
        let v = self.check_in(mode, gold, pred);
        assert!(v.passed, "`{pred}` should pass: {:?}", v.failure);
        assert!(v.checked > 0, "no instance to pass on");
    }

    fn caught(&self, gold: &str, pred: &str) -> SuiteVerdict {
        let v = self.check(gold, pred);
        assert!(!v.passed, "`{pred}` should be caught");
        v
    }

    /// Every neighbour of gold `question` that the suite's instances kill
    /// (equal to the gold on the original, wrong) is caught; there is one.
    fn neighbours_caught(&self, question: usize) {
        let m = Manifest::read(&self.suites.join("manifest.json")).unwrap();
        let g = &m.databases["db"].golds[question];
        let killed: Vec<_> = g
            .neighbors
            .iter()
            .filter(|n| n.fate == Fate::Killed)
            .collect();
        assert!(
            !killed.is_empty(),
            "no neighbour of `{}` needs an instance",
            g.sql
        );
        for n in killed {
            self.caught(&g.sql, &n.sql);
        }
    }

    /// Every instance file of the suite.
    fn instances(&self) -> Vec<PathBuf> {
        let dir = suite_db_dir(&self.suites, "db");
        let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("db_"))
            .collect();
        out.sort();
        assert!(!out.is_empty(), "the suite kept no instance");
        out
    }

    /// `sql` (one integer) on every instance.
    fn count_on_instances(&self, sql: &str) -> Vec<i64> {
        let e = instance_engine();
        self.instances()
            .iter()
            .map(|p| {
                let rs = e
                    .execute(&Database::new("db", p), sql, &QueryLimits::default())
                    .unwrap();
                match rs.rows[0][0] {
                    Value::Int(i) => i,
                    ref v => panic!("not a count: {v:?}"),
                }
            })
            .collect()
    }
}

const SHOP: &str = "
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, amount INTEGER, status TEXT);
INSERT INTO customer VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Rome'), (3, 'Cid', 'Oslo'),
  (4, 'Dee', 'Rome'), (5, 'Eve', 'Lima');
INSERT INTO orders VALUES (10, 1, 5, 'open'), (11, 1, 7, 'done'), (12, 2, 7, 'done'),
  (13, 3, 9, 'open'), (14, 3, 2, 'done'), (15, 4, 3, 'open');
";

fn shop_keys() -> Vec<ForeignKeySpec> {
    vec![ForeignKeySpec {
        table: "orders".into(),
        columns: vec!["customer_id".into()],
        parent: "customer".into(),
        parent_columns: vec!["id".into()],
    }]
}

#[test]
fn a_column_without_nulls_in_the_original_has_none_in_the_suite() {
    let gold = "SELECT count(*) FROM orders WHERE status = 'open'";
    let f = build(SHOP, &[gold], &shop_keys(), Stress::default());
    // count(col) = count(*) on a column that is never NULL.
    f.passes(
        gold,
        "SELECT count(amount) FROM orders WHERE status = 'open'",
    );
    // EXCEPT vs NOT IN differ only when the subquery yields a NULL.
    let g2 = "SELECT id FROM customer WHERE id > 1 EXCEPT SELECT customer_id FROM orders";
    let f2 = build(SHOP, &[g2], &shop_keys(), Stress::default());
    f2.passes(
        g2,
        "SELECT id FROM customer WHERE id > 1 AND id NOT IN (SELECT customer_id FROM orders)",
    );
    // A neighbour equal on the original (customers 1 and 2 have orders).
    f2.caught(
        g2,
        "SELECT id FROM customer WHERE id > 2 EXCEPT SELECT customer_id FROM orders",
    );
    f.caught(gold, "SELECT count(*) FROM orders WHERE status = 'done'");
    assert!(f
        .count_on_instances("SELECT count(*) FROM orders WHERE amount IS NULL OR customer_id IS NULL OR status IS NULL")
        .iter()
        .all(|&n| n == 0));
}

#[test]
fn stress_options_break_the_rules_on_purpose_and_say_so() {
    let g2 = "SELECT id FROM customer WHERE id > 1 EXCEPT SELECT customer_id FROM orders";
    let stress = Stress::parse("nulls,orphans").unwrap();
    let f = build(SHOP, &[g2], &shop_keys(), stress);
    let m = Manifest::read(&f.suites.join("manifest.json")).unwrap();
    assert_eq!(m.databases["db"].stress, vec!["nulls", "orphans"]);
    assert!(Stress::parse("nulls,typo").is_err());
    // Generated with the stress: NULL foreign keys appear.
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path(), SHOP);
    let schema = read_schema("db", &orig).unwrap();
    let pools = Pools::new(&schema, &[]);
    let mut rng = Rng::new(5);
    let e = instance_engine();
    let mut nulls = [0, 0];
    for (k, s) in [Stress::default(), stress].into_iter().enumerate() {
        for i in 0..10 {
            let p = tmp.path().join(format!("i{k}_{i}.sqlite"));
            write_instance(&schema, &pools, s, &mut rng, &p).unwrap();
            let rs = e
                .execute(
                    &Database::new("db", &p),
                    "SELECT count(*) FROM orders WHERE amount IS NULL OR status IS NULL",
                    &QueryLimits::default(),
                )
                .unwrap();
            if let Value::Int(n) = rs.rows[0][0] {
                nulls[k] += n;
            }
        }
    }
    assert_eq!(nulls[0], 0);
    assert!(nulls[1] > 0, "{nulls:?}");
}

#[test]
fn foreign_keys_from_tables_json_leave_no_orphans() {
    let gold = "SELECT count(*) FROM orders WHERE amount > 3";
    let f = build(SHOP, &[gold], &shop_keys(), Stress::default());
    // Counting child rows = counting them joined to their parent.
    f.passes(
        gold,
        "SELECT count(*) FROM orders AS T1 JOIN customer AS T2 ON T1.customer_id = T2.id \
         WHERE T1.amount > 3",
    );
    // A neighbour equal on the original (no amount is 4), wrong.
    f.caught(gold, "SELECT count(*) FROM orders WHERE amount > 4");
    let orphans = f.count_on_instances(
        "SELECT count(*) FROM orders WHERE customer_id NOT IN (SELECT id FROM customer)",
    );
    assert!(orphans.iter().all(|&n| n == 0), "{orphans:?}");
    let m = Manifest::read(&f.suites.join("manifest.json")).unwrap();
    let c = &m.databases["db"].constraints;
    assert!(
        c.foreign_keys
            .iter()
            .any(|k| k.starts_with("orders(customer_id) -> customer(id) [tables.json")),
        "{:?}",
        c.foreign_keys
    );
    assert!(c.not_null.contains(&"orders.amount".to_string()));
    assert_eq!(m.databases["db"].comparison, "tie_aware");
}

const WORLD: &str = "
CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, Continent TEXT, Population INTEGER);
CREATE TABLE countrylanguage (CountryCode TEXT, Language TEXT, IsOfficial TEXT,
  PRIMARY KEY (CountryCode, Language), FOREIGN KEY (CountryCode) REFERENCES country(Code));
INSERT INTO country VALUES ('ABW', 'Aruba', 'North America', 103), ('AFG', 'Afghanistan', 'Asia', 22720),
  ('AGO', 'Angola', 'Africa', 12878), ('ALB', 'Albania', 'Europe', 3401), ('AND', 'Andorra', 'Europe', 78),
  ('ARG', 'Argentina', 'South America', 37032), ('ARM', 'Armenia', 'Asia', 3520),
  ('AUS', 'Australia', 'Oceania', 18886);
INSERT INTO countrylanguage VALUES ('ABW', 'Dutch', 'T'), ('ABW', 'English', 'F'),
  ('AFG', 'Pashto', 'T'), ('AFG', 'Dari', 'T'), ('AGO', 'Portuguese', 'T'), ('ALB', 'Albanian', 'T'),
  ('AND', 'Catalan', 'T'), ('AND', 'Spanish', 'F'), ('ARG', 'Spanish', 'T'), ('ARM', 'Armenian', 'T'),
  ('AUS', 'English', 'T'), ('AUS', 'Italian', 'F');
";

#[test]
fn key_like_columns_all_distinct_in_the_original_stay_unique() {
    let gold = "SELECT Name FROM country WHERE Population > 1000 AND Code NOT IN \
                (SELECT CountryCode FROM countrylanguage WHERE Language = 'English')";
    let g2 = "SELECT count(Language) FROM countrylanguage WHERE CountryCode = 'ABW'";
    let g3 = "SELECT count(*) FROM countrylanguage WHERE IsOfficial = 'T'";
    let f = build(WORLD, &[gold, g2, g3], &[], Stress::default());
    // Excluding by Name instead of by Code: equal while names are unique.
    f.passes(
        gold,
        "SELECT Name FROM country WHERE Population > 1000 EXCEPT SELECT T1.Name FROM country \
         AS T1 JOIN countrylanguage AS T2 ON T1.Code = T2.CountryCode WHERE T2.Language = 'English'",
    );
    f.neighbours_caught(0);
    let dups = f.count_on_instances(
        "SELECT count(*) FROM (SELECT Name FROM country GROUP BY Name HAVING count(*) > 1)",
    );
    assert!(dups.iter().all(|&n| n == 0), "{dups:?}");
    // The composite key keeps (CountryCode, Language) pairs distinct.
    f.passes(
        g2,
        "SELECT count(DISTINCT Language) FROM countrylanguage WHERE CountryCode = 'ABW'",
    );
    // Low-cardinality columns keep their value set: 'T'/'F' only.
    f.passes(
        g3,
        "SELECT count(*) FROM countrylanguage WHERE IsOfficial != 'F'",
    );
    f.passes(
        g3,
        "SELECT count(*) FROM countrylanguage WHERE IsOfficial = 'T' \
         AND CountryCode IN (SELECT Code FROM country)",
    );
}

const SINGERS: &str = "
CREATE TABLE singer (Singer_ID INTEGER PRIMARY KEY, Name TEXT, Age INTEGER, Country TEXT);
INSERT INTO singer VALUES (1, 'Joe', 52, 'Netherlands'), (2, 'Tim', 32, 'United States'),
  (3, 'Ann', 25, 'France'), (4, 'Liz', 29, 'United States'), (5, 'Rob', 43, 'France'),
  (6, 'Ida', 41, 'France');
";

#[test]
fn ties_at_the_cut_accept_every_valid_and_the_tie_inclusive_answer() {
    let gold = "SELECT Name FROM singer ORDER BY Age DESC LIMIT 1";
    let g2 = "SELECT Name, Age FROM singer ORDER BY Age";
    let g3 = "SELECT Name FROM singer WHERE Age > 30 ORDER BY Age DESC LIMIT 1";
    let g4 = "SELECT Name, Age FROM singer ORDER BY Age DESC LIMIT 1";
    let f = build(SINGERS, &[gold, g2, g3, g4], &[], Stress::default());
    f.passes(
        gold,
        "SELECT Name FROM singer WHERE Age = (SELECT max(Age) FROM singer)",
    );
    // The same query with another plan (ties broken the other way).
    f.passes(
        gold,
        "SELECT Name FROM singer ORDER BY Age DESC, Singer_ID DESC LIMIT 1",
    );
    // ORDER BY without LIMIT: equal keys in any order.
    f.passes(g2, "SELECT Name, Age FROM singer ORDER BY Age, Name DESC");
    f.passes(
        g3,
        "SELECT Name FROM singer WHERE Age > 30 AND Age = \
         (SELECT max(Age) FROM singer WHERE Age > 30)",
    );
    f.neighbours_caught(2);
    // Another tied row, its columns in another order: valid where the
    // comparison accepts any column order (Spider's does).
    f.passes_in(
        CompareMode::Spider,
        g4,
        "SELECT Age, Name FROM singer ORDER BY Age DESC, Singer_ID DESC LIMIT 1",
    );
    // Ties really occur on the instances.
    let tied = f.count_on_instances(
        "SELECT count(*) FROM singer WHERE Age = (SELECT max(Age) FROM singer)",
    );
    assert!(tied.iter().any(|&n| n > 1), "{tied:?}");
}

#[test]
fn no_row_and_a_row_of_nulls_both_say_nothing() {
    let gold = "SELECT max(Age) FROM singer WHERE Country = 'France' AND Age > 30";
    let f = build(SINGERS, &[gold], &[], Stress::default());
    f.passes(
        gold,
        "SELECT Age FROM singer WHERE Country = 'France' AND Age > 30 ORDER BY Age DESC LIMIT 1",
    );
    f.neighbours_caught(0);
    // No table is generated empty.
    assert!(f
        .count_on_instances("SELECT count(*) FROM singer")
        .iter()
        .all(|&n| n > 0));
}

const CARS: &str = "
CREATE TABLE car_makers (Id INTEGER PRIMARY KEY, Maker TEXT, Country TEXT);
CREATE TABLE model_list (ModelId INTEGER PRIMARY KEY, Maker TEXT, Model TEXT,
  FOREIGN KEY (Maker) REFERENCES car_makers(Id));
INSERT INTO car_makers VALUES (1, 'amc', 'usa'), (2, 'volkswagen', 'germany'), (3, 'bmw', 'germany'),
  (4, 'gm', 'usa');
INSERT INTO model_list VALUES (1, '1', 'amc'), (2, '2', 'audi'), (3, '3', 'bmw'), (4, '4', 'buick'),
  (5, '4', 'cadillac'), (6, '2', 'volkswagen');
";

#[test]
fn a_witness_keeps_a_text_key_that_names_an_integer_key() {
    let gold = "SELECT T2.Model FROM car_makers AS T1 JOIN model_list AS T2 ON T1.Id = T2.Maker \
                WHERE T1.Country = 'germany'";
    let f = build(CARS, &[gold], &[], Stress::default());
    let v = f.caught(
        gold,
        "SELECT T2.Model FROM car_makers AS T1 JOIN model_list AS T2 ON T1.Id = T2.Maker \
         WHERE T1.Country = 'germany' AND T2.ModelId < 7",
    );
    let w = v.failure.unwrap().witness.expect("a witness");
    let parents = w
        .inserts
        .iter()
        .filter(|i| i.starts_with("INSERT INTO \"car_makers\""))
        .count();
    let children = w
        .inserts
        .iter()
        .filter(|i| i.starts_with("INSERT INTO \"model_list\""))
        .count();
    assert!(parents > 0 && children > 0, "{:?}", w.inserts);
    assert!(w.rows <= w.rows_before);
    // No orphan in any instance: every Maker names a car maker.
    let orphans = f.count_on_instances(
        "SELECT count(*) FROM model_list AS m \
         WHERE NOT EXISTS (SELECT 1 FROM car_makers AS c WHERE c.Id = m.Maker)",
    );
    assert!(orphans.iter().all(|&n| n == 0), "{orphans:?}");
}

const STADIUMS: &str = "
CREATE TABLE stadium (Stadium_ID INTEGER PRIMARY KEY, Name TEXT, Capacity INTEGER);
CREATE TABLE concert (concert_ID INTEGER PRIMARY KEY, Stadium_ID TEXT, Year TEXT,
  FOREIGN KEY (Stadium_ID) REFERENCES stadium(Stadium_ID));
INSERT INTO stadium VALUES (1, 'Stark''s Park', 10104), (2, 'Somerset Park', 11998),
  (3, 'Glebe Park', 3808), (4, 'Hampden Park', 52500), (5, 'Forthbank', 3100);
INSERT INTO concert VALUES (1, '1', '2014'), (2, '2', '2014'), (3, '2', '2015'),
  (4, '4', '2015'), (5, '4', '2014'), (6, '4', '2015');
";

#[test]
fn a_gold_whose_subquery_limit_cuts_ties_says_nothing_on_that_instance() {
    let gold = "SELECT count(*) FROM concert WHERE Stadium_ID = \
                (SELECT Stadium_ID FROM stadium ORDER BY Capacity DESC LIMIT 1)";
    let g2 = "SELECT count(*) FROM concert WHERE Year > 2014";
    let f = build(STADIUMS, &[gold, g2], &[], Stress::default());
    // Every concert in a stadium of the largest capacity: the gold picks
    // one of the tied stadiums, so instances with a tie decide nothing.
    f.passes(
        gold,
        "SELECT count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.Stadium_ID = T2.Stadium_ID \
         WHERE T2.Capacity = (SELECT max(Capacity) FROM stadium)",
    );
    f.neighbours_caught(1);
}
