//! MySQL/MariaDB driver: one database per namespace (utf8mb4, the server's
//! default collation, recorded), batched multi-row INSERTs with bound
//! parameters in one transaction per table, typed read-back.
//!
//! MySQL commits every DDL statement (10–15 ms each) and `ALTER TABLE … ADD
//! PRIMARY KEY` rebuilds the table, so the keys the plan carries over are
//! declared in `CREATE TABLE`, with `foreign_key_checks` off while the
//! tables are created and loaded (a child may come before its parent). A
//! load the declared primary key refuses — a duplicate under the server's
//! collation — drops the foreign keys that refer to the table, recreates it
//! without keys and loads it again; its keys are then added by `ALTER TABLE`
//! as on PostgreSQL, the server's refusal recorded. The server does not
//! re-read the rows for a foreign key: the plan checked that every child row
//! has a parent comparing values exactly, and the server's comparison
//! (collation, padding) can only match more.

use chrono::{NaiveDate, NaiveDateTime};
use futures_util::TryStreamExt;
use sqlwitness_core::Value;
use sqlx::mysql::{MySql, MySqlConnection, MySqlRow};
use sqlx::query::Query;
use sqlx::{AssertSqlSafe, Connection, Row};

use super::keys::TablePlan;
use super::log::TargetKind;
use super::run::Driver;
use super::temporal::{date_text, datetime_text, parse_date, parse_datetime};
use super::verify::Checksum;

pub(crate) struct MyDriver {
    conn: MySqlConnection,
    /// Tables whose primary key was declared in `CREATE TABLE` and held
    /// through the load.
    pk_inline: std::collections::HashSet<String>,
    /// Inside the one transaction of every table's rows.
    in_load_tx: bool,
    /// Foreign keys declared in `CREATE TABLE`: `(child, index)`.
    fk_inline: std::collections::HashSet<(String, usize)>,
    /// Each created table's foreign keys' parent tables, by index.
    plans: std::collections::HashMap<String, Vec<String>>,
}

/// The name of foreign key `k` of `table` (declared names let a fallback
/// drop it): a hash, within MySQL's 64 characters.
fn fk_name(table: &str, k: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in table.bytes().chain(k.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("sw_fk_{h:016x}")
}

/// At most this many rows per INSERT …
const BATCH_ROWS: usize = 1000;
/// … and about this many bytes of values.
const BATCH_BYTES: usize = 4 << 20;
/// The protocol's placeholder limit.
const MAX_PLACEHOLDERS: usize = 65_535;

pub(crate) fn quote(ident: &str) -> String {
    format!("`{}`", ident.replace('`', "``"))
}

fn qualified(ns: &str, table: &str) -> String {
    format!("{}.{}", quote(ns), quote(table))
}

fn column_list(cols: &[String]) -> String {
    cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")
}

type MyQuery<'q> = Query<'q, MySql, sqlx::mysql::MySqlArguments>;

fn bind<'q>(q: MyQuery<'q>, v: &Value, kind: TargetKind) -> MyQuery<'q> {
    match (v, kind) {
        (Value::Null, TargetKind::Integer) => q.bind(None::<i64>),
        (Value::Null, TargetKind::Real) => q.bind(None::<f64>),
        (Value::Null, TargetKind::Blob) => q.bind(None::<Vec<u8>>),
        (Value::Null, TargetKind::Date) => q.bind(None::<NaiveDate>),
        (Value::Null, TargetKind::Timestamp) => q.bind(None::<NaiveDateTime>),
        (Value::Null, _) => q.bind(None::<String>),
        (Value::Int(i), _) => q.bind(*i),
        (Value::Float(f), _) => q.bind(*f),
        (Value::Bool(b), _) => q.bind(i64::from(*b)),
        (Value::Bytes(b), _) => q.bind(b.clone()),
        (Value::Date(s), _) => match parse_date(s) {
            Some(d) => q.bind(d),
            None => q.bind(s.clone()),
        },
        (Value::Timestamp(s), _) => match parse_datetime(s) {
            Some(d) => q.bind(d),
            None => q.bind(s.clone()),
        },
        (Value::Text(s) | Value::Decimal(s) | Value::Time(s), _) => q.bind(s.clone()),
    }
}

fn value_size(v: &Value) -> usize {
    match v {
        Value::Text(s) | Value::Decimal(s) => s.len(),
        Value::Bytes(b) => b.len(),
        _ => 8,
    }
}

fn decode(row: &MySqlRow, i: usize, kind: TargetKind) -> Result<Value, sqlx::Error> {
    Ok(match kind {
        TargetKind::Integer => row.try_get::<Option<i64>, _>(i)?.map(Value::Int),
        TargetKind::Real => row.try_get::<Option<f64>, _>(i)?.map(Value::Float),
        TargetKind::Text => row.try_get::<Option<String>, _>(i)?.map(Value::Text),
        // Selected as CAST(… AS CHAR) (see `read_back`).
        TargetKind::Numeric => row.try_get::<Option<String>, _>(i)?.map(Value::Decimal),
        TargetKind::Blob => row.try_get::<Option<Vec<u8>>, _>(i)?.map(Value::Bytes),
        TargetKind::Date => row
            .try_get::<Option<NaiveDate>, _>(i)?
            .map(|d| Value::Date(date_text(d))),
        TargetKind::Timestamp => row
            .try_get::<Option<NaiveDateTime>, _>(i)?
            .map(|d| Value::Timestamp(datetime_text(d))),
    }
    .unwrap_or(Value::Null))
}

impl MyDriver {
    pub(crate) async fn connect(url: &str) -> Result<MyDriver, String> {
        let mut conn = MySqlConnection::connect(url)
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        // Strict: a value the column cannot hold is an error, never truncated.
        sqlx::raw_sql(
            "SET SESSION sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), \
             SESSION foreign_key_checks = 1",
        )
        .execute(&mut conn)
        .await
        .map_err(|e| format!("cannot set the session: {e}"))?;
        Ok(MyDriver {
            conn,
            pk_inline: Default::default(),
            in_load_tx: false,
            fk_inline: Default::default(),
            plans: Default::default(),
        })
    }

    async fn exec(&mut self, sql: String) -> Result<(), String> {
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut self.conn)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

impl Driver for MyDriver {
    async fn server_version(&mut self) -> Result<String, String> {
        sqlx::query_scalar::<_, String>("SELECT CAST(VERSION() AS CHAR)")
            .fetch_one(&mut self.conn)
            .await
            .map_err(|e| e.to_string())
    }

    async fn existing_tables(&mut self, ns: &str) -> Result<Option<Vec<String>>, String> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
        )
        .bind(ns)
        .fetch_one(&mut self.conn)
        .await
        .map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
        )
        .bind(ns)
        .fetch_all(&mut self.conn)
        .await
        .map_err(|e| e.to_string())?;
        Ok(Some(tables))
    }

    async fn read_back(&mut self, ns: &str, t: &TablePlan) -> Result<(u64, String), String> {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| match c.kind {
                TargetKind::Numeric => format!("CAST({} AS CHAR)", quote(&c.name)),
                _ => quote(&c.name),
            })
            .collect();
        let select = format!("SELECT {} FROM {}", cols.join(", "), qualified(ns, &t.name));
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let mut sum = Checksum::default();
        let mut stream = sqlx::raw_sql(AssertSqlSafe(select)).fetch(&mut self.conn);
        let mut values = Vec::with_capacity(kinds.len());
        while let Some(row) = stream.try_next().await.map_err(|e| e.to_string())? {
            values.clear();
            for (i, k) in kinds.iter().enumerate() {
                values.push(decode(&row, i, *k).map_err(|e| e.to_string())?);
            }
            sum.add_row(&values);
        }
        Ok((sum.rows(), sum.hex()))
    }

    async fn recreate_namespace(&mut self, ns: &str) -> Result<Vec<String>, String> {
        self.exec(format!("DROP DATABASE IF EXISTS {}", quote(ns)))
            .await
            .map_err(|e| format!("cannot drop database {}: {e}", quote(ns)))?;
        self.exec(format!(
            "CREATE DATABASE {} CHARACTER SET utf8mb4",
            quote(ns)
        ))
        .await
        .map_err(|e| format!("cannot create database {}: {e}", quote(ns)))?;
        Ok(Vec::new())
    }

    async fn create_table(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        self.pk_inline.remove(&t.name);
        if t.apply_pk && self.create(ns, t, true).await.is_ok() {
            self.pk_inline.insert(t.name.clone());
            return Ok(());
        }
        self.create(ns, t, false).await
    }

    async fn load(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        let first = self.insert_rows(ns, t).await;
        if first.is_err() && self.pk_inline.remove(&t.name) {
            // The declared key refused the data: load without it (the DDL
            // commits the shared transaction; the rest load table by table).
            // Foreign keys referring to it go first, then its own.
            self.in_load_tx = false;
            let referring: Vec<(String, usize)> = self
                .fk_inline
                .iter()
                .filter(|(child, k)| child == &t.name || self.parent_of(child, *k) == Some(&t.name))
                .cloned()
                .collect();
            for (child, k) in referring {
                self.fk_inline.remove(&(child.clone(), k));
                if child != t.name {
                    self.exec(format!(
                        "ALTER TABLE {} DROP FOREIGN KEY {}",
                        qualified(ns, &child),
                        quote(&fk_name(&child, k))
                    ))
                    .await?;
                }
            }
            self.exec(format!("DROP TABLE {}", qualified(ns, &t.name)))
                .await?;
            self.create(ns, t, false).await?;
            return self.insert_rows(ns, t).await;
        }
        first
    }

    async fn add_primary_key(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        if self.pk_inline.contains(&t.name) {
            return Ok(());
        }
        self.exec(format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            qualified(ns, &t.name),
            column_list(&t.primary_key.columns)
        ))
        .await
    }

    async fn add_foreign_key(&mut self, ns: &str, t: &TablePlan, k: usize) -> Result<(), String> {
        if self.fk_inline.contains(&(t.name.clone(), k)) {
            return Ok(());
        }
        let fk = &t.foreign_keys[k];
        // In place, without re-reading the rows (see the module's note;
        // `foreign_key_checks` is off until the migration commits).
        self.exec(format!(
            "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} ({})",
            qualified(ns, &t.name),
            column_list(&fk.columns),
            qualified(ns, &fk.parent_table),
            column_list(&fk.parent_columns)
        ))
        .await
    }
    async fn finish(&mut self, ns: &str, reader_ready: bool) -> (Vec<String>, Option<String>) {
        let collation: Option<String> = sqlx::query_scalar(
            "SELECT CAST(DEFAULT_COLLATION_NAME AS CHAR) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME = ?",
        )
        .bind(ns)
        .fetch_optional(&mut self.conn)
        .await
        .ok()
        .flatten();
        let granted = if reader_ready {
            sqlwitness_engines::grant_database_mysql(&mut self.conn, ns).await
        } else {
            sqlwitness_engines::grant_mysql(&mut self.conn, ns).await
        };
        let notes = match granted {
            Ok(notes) => notes,
            Err(e) => vec![format!(
                "could not grant read access to {}: {e}",
                sqlwitness_engines::READER_LOGIN
            )],
        };
        (notes, collation)
    }

    async fn drop_namespace(&mut self, ns: &str) -> Result<(), String> {
        self.exec(format!("DROP DATABASE IF EXISTS {}", quote(ns)))
            .await?;
        sqlwitness_engines::revoke_mysql(&mut self.conn, ns)
            .await
            .map_err(|e| e.to_string())
    }

    async fn lock(&mut self, ns: &str) -> Result<(), String> {
        // Lock names are at most 64 characters: a hash of the namespace.
        let got: Option<i64> = sqlx::query_scalar(
            "SELECT GET_LOCK(CONCAT('sqlwitness:', LEFT(SHA2(?, 256), 48)), 600)",
        )
        .bind(ns)
        .fetch_one(&mut self.conn)
        .await
        .map_err(|e| e.to_string())?;
        match got {
            Some(1) => Ok(()),
            _ => Err(format!(
                "another migration of {} held its lock for 10 minutes",
                quote(ns)
            )),
        }
    }

    async fn unlock(&mut self, ns: &str) {
        let _ = sqlx::query("DO RELEASE_LOCK(CONCAT('sqlwitness:', LEFT(SHA2(?, 256), 48)))")
            .bind(ns)
            .execute(&mut self.conn)
            .await;
    }

    // MySQL commits DDL as it goes: no transaction around a migration.
    async fn begin(&mut self) -> Result<(), String> {
        self.exec("SET SESSION foreign_key_checks = 0".into()).await
    }

    async fn commit(&mut self) -> Result<(), String> {
        self.exec("SET SESSION foreign_key_checks = 1".into()).await
    }

    async fn loads_begin(&mut self) -> Result<(), String> {
        self.exec("START TRANSACTION".into()).await?;
        self.in_load_tx = true;
        Ok(())
    }

    async fn loads_end(&mut self) -> Result<(), String> {
        self.in_load_tx = false;
        self.exec("COMMIT".into()).await
    }

    async fn ensure_reader(&mut self) -> Result<Vec<String>, String> {
        sqlwitness_engines::ensure_reader_mysql(&mut self.conn)
            .await
            .map(|()| Vec::new())
            .map_err(|e| e.to_string())
    }
}

impl MyDriver {
    /// `CREATE TABLE`, with the primary key declared when `with_pk`.
    /// The parent table of foreign key `k` of `child`, as planned.
    fn parent_of(&self, child: &str, k: usize) -> Option<&String> {
        self.plans.get(child)?.get(k)
    }

    /// `CREATE TABLE`, with the primary key and the foreign keys the plan
    /// applies declared when `with_pk`.
    async fn create(&mut self, ns: &str, t: &TablePlan, with_pk: bool) -> Result<(), String> {
        // Key columns NOT NULL, as `ADD PRIMARY KEY` makes them (MySQL 9
        // refuses a nullable one in `CREATE TABLE`; the plan found no NULL).
        let mut cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                let not_null = c.not_null || (with_pk && t.primary_key.columns.contains(&c.name));
                format!(
                    "{} {}{}",
                    quote(&c.name),
                    c.target_type,
                    if not_null { " NOT NULL" } else { " NULL" }
                )
            })
            .collect();
        let mut fks = Vec::new();
        if with_pk {
            cols.push(format!(
                "PRIMARY KEY ({})",
                column_list(&t.primary_key.columns)
            ));
            for (k, fk) in t.foreign_keys.iter().enumerate() {
                if t.apply_fk[k] {
                    cols.push(format!(
                        "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
                        quote(&fk_name(&t.name, k)),
                        column_list(&fk.columns),
                        qualified(ns, &fk.parent_table),
                        column_list(&fk.parent_columns)
                    ));
                    fks.push(k);
                }
            }
        }
        self.exec(format!(
            "CREATE TABLE {} ({}) ENGINE = InnoDB",
            qualified(ns, &t.name),
            cols.join(", ")
        ))
        .await?;
        self.plans.insert(
            t.name.clone(),
            t.foreign_keys
                .iter()
                .map(|f| f.parent_table.clone())
                .collect(),
        );
        for k in fks {
            self.fk_inline.insert((t.name.clone(), k));
        }
        Ok(())
    }

    /// The rows in batched multi-row INSERTs, one transaction.
    async fn insert_rows(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        let ncols = t.columns.len();
        if t.rows.is_empty() || ncols == 0 {
            return Ok(());
        }
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            qualified(ns, &t.name),
            column_list(&names)
        );
        let one_row = format!("({})", vec!["?"; ncols].join(","));
        let max_rows = BATCH_ROWS.min(MAX_PLACEHOLDERS / ncols).max(1);
        // One transaction per table unless the loads share one.
        let own_tx = !self.in_load_tx;
        if own_tx {
            self.exec("START TRANSACTION".into()).await?;
        }
        let mut start = 0;
        while start < t.rows.len() {
            let mut end = start;
            let mut bytes = 0;
            while end < t.rows.len()
                && end - start < max_rows
                && (bytes < BATCH_BYTES || end == start)
            {
                bytes += t.rows[end].iter().map(value_size).sum::<usize>();
                end += 1;
            }
            let mut sql = String::with_capacity(head.len() + (end - start) * (one_row.len() + 1));
            sql.push_str(&head);
            sql.push_str(&vec![one_row.as_str(); end - start].join(","));
            let mut q = sqlx::query(AssertSqlSafe(sql));
            for row in &t.rows[start..end] {
                for (v, k) in row.iter().zip(&kinds) {
                    q = bind(q, v, *k);
                }
            }
            q.execute(&mut self.conn)
                .await
                .map_err(|e| format!("rows {start}..{end}: {e}"))?;
            start = end;
        }
        if own_tx {
            self.exec("COMMIT".into()).await?;
        }
        Ok(())
    }
}
