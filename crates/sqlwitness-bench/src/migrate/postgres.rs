//! PostgreSQL driver: one schema per namespace, `COPY … FROM STDIN` in text
//! format, typed read-back, the `sqlwitness_reader` role.

use chrono::{NaiveDate, NaiveDateTime};
use futures_util::TryStreamExt;
use sqlwitness_core::Value;
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::{AssertSqlSafe, Connection, Row};

use super::keys::TablePlan;
use super::log::{ForeignKeyReport, TargetKind};
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

/// COPY text format: backslash, newline, carriage return and tab escaped;
/// `\N` is NULL; bytea as `\\x…` (the escaped form of `\x…`).
fn copy_field(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("\\N"),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => {
            if f.is_nan() {
                out.push_str("NaN")
            } else if f.is_infinite() {
                out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
            } else {
                out.push_str(&format!("{f:?}"))
            }
        }
        Value::Bytes(b) => {
            out.push_str("\\\\x");
            for byte in b {
                out.push_str(&format!("{byte:02x}"));
            }
        }
        Value::Bool(b) => out.push_str(if *b { "t" } else { "f" }),
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => {
            for ch in s.chars() {
                match ch {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c => out.push(c),
                }
            }
        }
    }
}

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
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let stmt = format!(
            "COPY {} ({}) FROM STDIN",
            qualified(ns, &t.name),
            column_list(&names)
        );
        if self.in_tx {
            self.raw("SAVEPOINT sw".into()).await?;
        }
        let result = self.copy(&stmt, t).await;
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

    async fn add_foreign_key(
        &mut self,
        ns: &str,
        t: &TablePlan,
        fk: &ForeignKeyReport,
    ) -> Result<(), String> {
        self.exec(format!(
            "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} ({})",
            qualified(ns, &t.name),
            column_list(&fk.columns),
            qualified(ns, &fk.parent_table),
            column_list(&fk.parent_columns)
        ))
        .await
    }

    async fn finish(&mut self, ns: &str) -> (Vec<String>, Option<String>) {
        let mut last = String::new();
        for _ in 0..2 {
            if self.in_tx {
                if let Err(e) = self.raw("SAVEPOINT swg".into()).await {
                    last = e;
                    break;
                }
            }
            match sqlwitness_engines::grant_postgres(&mut self.conn, ns).await {
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
    /// `COPY … FROM STDIN` of the table's rows, in 1 MiB messages.
    async fn copy(&mut self, stmt: &str, t: &TablePlan) -> Result<(), String> {
        let mut copy = self
            .conn
            .copy_in_raw(stmt)
            .await
            .map_err(|e| e.to_string())?;
        let mut buf = String::with_capacity(1 << 20);
        for row in &t.rows {
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    buf.push('\t');
                }
                copy_field(&mut buf, v);
            }
            buf.push('\n');
            if buf.len() >= 1 << 20 {
                copy.send(buf.as_bytes()).await.map_err(|e| e.to_string())?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            copy.send(buf.as_bytes()).await.map_err(|e| e.to_string())?;
        }
        copy.finish().await.map_err(|e| e.to_string())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_escaping() {
        let mut s = String::new();
        for v in [
            Value::Text("a\tb\\c\nd\re".into()),
            Value::Null,
            Value::Bytes(vec![0, 255]),
            Value::Float(0.1),
        ] {
            copy_field(&mut s, &v);
            s.push('|');
        }
        assert_eq!(s, "a\\tb\\\\c\\nd\\re|\\N|\\\\x00ff|0.1|");
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    }
}
