//! PostgreSQL driver: one schema per namespace, `COPY … FROM STDIN` in text
//! format, typed read-back, the `sqlwitness_reader` role.

use chrono::{NaiveDate, NaiveDateTime};
use futures_util::TryStreamExt;
use sqlwitness_core::Value;
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::{AssertSqlSafe, Connection, Row};

use super::keys::TablePlan;
use super::log::TargetKind;
use super::run::Driver;
use super::temporal::{date_text, datetime_text};
use super::verify::Checksum;

pub(crate) struct PgDriver {
    conn: PgConnection,
    /// Inside the migration's transaction: statements run under a
    /// savepoint.
    in_tx: bool,
}

/// The advisory-lock key of migrations of `ns`.
fn lock_key(ns: &str) -> String {
    format!(
        "hashtextextended('sqlwitness migrate ' || {}, 0)",
        literal(ns)
    )
}

fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn qualified(ns: &str, table: &str) -> String {
    format!("{}.{}", quote(ns), quote(table))
}

fn column_list(cols: &[String]) -> String {
    cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")
}

/// A value as PostgreSQL's input functions read it (what `COPY … FROM`
/// text format hands them once unescaped); `None` for NULL; bytea in hex.
fn input_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => "NaN".into(),
        Value::Float(f) if f.is_infinite() => {
            if *f > 0.0 { "Infinity" } else { "-Infinity" }.into()
        }
        Value::Float(f) => format!("{f:?}"),
        Value::Bytes(b) => {
            let mut out = String::with_capacity(2 + 2 * b.len());
            out.push_str("\\x");
            for byte in b {
                out.push_str(&format!("{byte:02x}"));
            }
            out
        }
        Value::Bool(b) => if *b { "t" } else { "f" }.into(),
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => s.clone(),
    })
}

/// Rows per `INSERT … SELECT … FROM unnest(…)` (one text array a column).
const LOAD_BATCH: usize = 20_000;

fn decode(row: &PgRow, i: usize, kind: TargetKind) -> Result<Value, sqlx::Error> {
    Ok(match kind {
        TargetKind::Integer => row.try_get::<Option<i64>, _>(i)?.map(Value::Int),
        TargetKind::Real => row.try_get::<Option<f64>, _>(i)?.map(Value::Float),
        TargetKind::Text => row.try_get::<Option<String>, _>(i)?.map(Value::Text),
        // Selected as `::text` (see `read_back`).
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

impl PgDriver {
    pub(crate) async fn connect(url: &str) -> Result<PgDriver, String> {
        let conn = PgConnection::connect(url)
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        Ok(PgDriver { conn, in_tx: false })
    }

    async fn raw(&mut self, sql: String) -> Result<(), String> {
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut self.conn)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Runs `sql`; inside the transaction under a savepoint, rolled back to
    /// on failure (one round trip when it succeeds).
    async fn exec(&mut self, sql: String) -> Result<(), String> {
        if !self.in_tx {
            return self.raw(sql).await;
        }
        let result = self
            .raw(format!("SAVEPOINT sw; {sql}; RELEASE SAVEPOINT sw"))
            .await;
        if result.is_err() {
            self.raw("ROLLBACK TO SAVEPOINT sw; RELEASE SAVEPOINT sw".into())
                .await?;
        }
        result
    }
}

impl Driver for PgDriver {
    async fn server_version(&mut self) -> Result<String, String> {
        sqlx::query_scalar::<_, String>("SELECT version()")
            .fetch_one(&mut self.conn)
            .await
            .map_err(|e| e.to_string())
    }

    async fn existing_tables(&mut self, ns: &str) -> Result<Option<Vec<String>>, String> {
        let exists: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)")
                .bind(ns)
                .fetch_one(&mut self.conn)
                .await
                .map_err(|e| e.to_string())?;
        if !exists {
            return Ok(None);
        }
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')",
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
                TargetKind::Numeric => format!("{}::text", quote(&c.name)),
                _ => quote(&c.name),
            })
            .collect();
        let select = if cols.is_empty() {
            format!("SELECT FROM {}", qualified(ns, &t.name))
        } else {
            format!("SELECT {} FROM {}", cols.join(", "), qualified(ns, &t.name))
        };
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let mut sum = Checksum::default();
        let mut stream = sqlx::query(AssertSqlSafe(select)).fetch(&mut self.conn);
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
        self.exec(format!(
            "DROP SCHEMA IF EXISTS {q} CASCADE; CREATE SCHEMA {q}",
            q = quote(ns)
        ))
        .await
        .map_err(|e| format!("cannot create schema {}: {e}", quote(ns)))?;
        Ok(Vec::new())
    }

    async fn create_table(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    quote(&c.name),
                    c.target_type,
                    if c.not_null { " NOT NULL" } else { "" }
                )
            })
            .collect();
        self.exec(format!(
            "CREATE TABLE {} ({})",
            qualified(ns, &t.name),
            cols.join(", ")
        ))
        .await
    }

    async fn load(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        if t.rows.is_empty() || t.columns.is_empty() {
            return Ok(());
        }
        if self.in_tx {
            self.raw("SAVEPOINT sw".into()).await?;
        }
        let result = self.insert_rows(ns, t).await;
        if self.in_tx {
            let end = if result.is_ok() {
                "RELEASE SAVEPOINT sw"
            } else {
                "ROLLBACK TO SAVEPOINT sw; RELEASE SAVEPOINT sw"
            };
            self.raw(end.into()).await?;
        }
        result
    }

    async fn add_primary_key(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        self.exec(format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            qualified(ns, &t.name),
            column_list(&t.primary_key.columns)
        ))
        .await
    }

    async fn add_foreign_key(&mut self, ns: &str, t: &TablePlan, k: usize) -> Result<(), String> {
        let fk = &t.foreign_keys[k];
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
        let mut last = String::new();
        for _ in 0..2 {
            if self.in_tx {
                if let Err(e) = self.raw("SAVEPOINT swg".into()).await {
                    last = e;
                    break;
                }
            }
            let granted = if reader_ready {
                sqlwitness_engines::grant_schema_postgres(&mut self.conn, ns).await
            } else {
                sqlwitness_engines::grant_postgres(&mut self.conn, ns).await
            };
            match granted {
                Ok(notes) => {
                    if self.in_tx {
                        let _ = self.raw("RELEASE SAVEPOINT swg".into()).await;
                    }
                    return (notes, None);
                }
                Err(e) => {
                    last = e.to_string();
                    if self.in_tx {
                        let _ = self
                            .raw("ROLLBACK TO SAVEPOINT swg; RELEASE SAVEPOINT swg".into())
                            .await;
                    }
                }
            }
        }
        (
            vec![format!(
                "could not grant read access to {}: {last}",
                sqlwitness_engines::READER_LOGIN
            )],
            None,
        )
    }

    async fn drop_namespace(&mut self, ns: &str) -> Result<(), String> {
        self.exec(format!("DROP SCHEMA IF EXISTS {} CASCADE", quote(ns)))
            .await
    }

    async fn lock(&mut self, ns: &str) -> Result<(), String> {
        self.raw(format!("SELECT pg_advisory_lock({})", lock_key(ns)))
            .await
    }

    async fn unlock(&mut self, ns: &str) {
        let _ = self
            .raw(format!("SELECT pg_advisory_unlock({})", lock_key(ns)))
            .await;
    }

    async fn begin(&mut self) -> Result<(), String> {
        self.raw("BEGIN; SET LOCAL synchronous_commit = off".into())
            .await?;
        self.in_tx = true;
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), String> {
        self.in_tx = false;
        self.raw("COMMIT".into()).await
    }

    async fn ensure_reader(&mut self) -> Result<Vec<String>, String> {
        sqlwitness_engines::ensure_reader_postgres(&mut self.conn)
            .await
            .map_err(|e| e.to_string())
    }
}

impl PgDriver {
    /// The rows as one bound statement per [`LOAD_BATCH`] rows: every column
    /// a text array, cast to the column's type by its input function (as
    /// `COPY` does), so a batch is one message and one answer. (`COPY`
    /// itself sends its end as a second small write, which Nagle's
    /// algorithm holds for the server's delayed acknowledgement: 40 ms a
    /// table on a TCP connection without `TCP_NODELAY`, as sqlx 0.9 opens
    /// them.)
    async fn insert_rows(&mut self, ns: &str, t: &TablePlan) -> Result<(), String> {
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let args: Vec<String> = (1..=names.len()).map(|i| format!("${i}::text[]")).collect();
        let casts: Vec<String> = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| format!("u.c{i}::{}", c.target_type))
            .collect();
        let aliases: Vec<String> = (0..names.len()).map(|i| format!("c{i}")).collect();
        let sql = format!(
            "INSERT INTO {} ({}) SELECT {} FROM unnest({}) AS u({})",
            qualified(ns, &t.name),
            column_list(&names),
            casts.join(", "),
            args.join(", "),
            aliases.join(", ")
        );
        for (b, batch) in t.rows.chunks(LOAD_BATCH).enumerate() {
            let mut q = sqlx::query(AssertSqlSafe(sql.clone()));
            for c in 0..names.len() {
                let column: Vec<Option<String>> = batch
                    .iter()
                    .map(|r| r.get(c).and_then(input_text))
                    .collect();
                q = q.bind(column);
            }
            q.execute(&mut self.conn).await.map_err(|e| {
                let first = b * LOAD_BATCH;
                format!("rows {first}..{}: {e}", first + batch.len())
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_text_of_each_kind() {
        let texts: Vec<Option<String>> = [
            Value::Text("a\tb\\c\nd".into()),
            Value::Null,
            Value::Bytes(vec![0, 255]),
            Value::Float(0.1),
            Value::Float(f64::NEG_INFINITY),
            Value::Bool(true),
        ]
        .iter()
        .map(input_text)
        .collect();
        assert_eq!(
            texts,
            [
                Some("a\tb\\c\nd".to_string()),
                None,
                Some("\\x00ff".into()),
                Some("0.1".into()),
                Some("-Infinity".into()),
                Some("t".into()),
            ]
        );
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    }
}
