//! The MySQL / MariaDB adapter (sqlx, feature `mysql`).
//!
//! Each query runs after `USE \`<namespace>\`` inside `START TRANSACTION READ
//! ONLY` (and the session default is read-only too, so a DDL statement's
//! implicit commit cannot open a writable transaction), under a server-side
//! statement time limit (MariaDB `max_statement_time`, MySQL
//! `max_execution_time`, chosen once from `SELECT VERSION()`). The query is
//! one prepared statement (`COM_STMT_PREPARE` accepts one statement only).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt;
use sqlwitness_core::{
    Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits, ResultSet,
    Value,
};
use sqlwitness_dialect::Dialect;
use sqlx::mysql::{MySqlConnectOptions, MySqlDatabaseError, MySqlPool, MySqlPoolOptions, MySqlRow};
use sqlx::types::chrono;
use sqlx::{
    AssertSqlSafe, Column as _, ConnectOptions, Connection, Executor, Row, SqlSafeStr, Statement,
    TypeInfo, ValueRef,
};

use crate::server::{self, ConnGuard, BACKSTOP_GRACE};
use crate::EngineError;

/// Runs queries on a MySQL 8 or MariaDB server, one database per namespace.
pub struct MysqlEngine {
    info: EngineInfo,
    dialect: Arc<Dialect>,
    pool: MySqlPool,
    options: MySqlConnectOptions,
    mariadb: bool,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for MysqlEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlEngine")
            .field("info", &self.info)
            .field("mariadb", &self.mariadb)
            .finish_non_exhaustive()
    }
}

impl MysqlEngine {
    /// Connects a pool of at most `max_connections` (at least 1) to `url`,
    /// running the dialect's session statements on every new connection.
    pub fn connect(url: &str, max_connections: u32) -> Result<MysqlEngine, EngineError> {
        let kind = EngineKind::Mysql;
        let dialect = Arc::new(sqlwitness_dialect::builtin(kind));
        let rt = server::runtime().map_err(|e| EngineError::connect(kind, url, e))?;
        let options: MySqlConnectOptions = url
            .parse()
            .map_err(|e| EngineError::connect(kind, url, e))?;
        let mut session = dialect.session.clone();
        session.push("SET SESSION TRANSACTION READ ONLY".to_string());
        let opts = options.clone();
        let (pool, version) = rt
            .block_on(async {
                // One direct connection first: it fails fast where the pool
                // would retry until its acquire timeout.
                opts.connect().await?.close().await?;
                let pool = MySqlPoolOptions::new()
                    .max_connections(max_connections.max(1))
                    .acquire_timeout(Duration::from_secs(10))
                    .after_connect(move |conn, _meta| {
                        let session = session.clone();
                        Box::pin(async move {
                            for stmt in session {
                                conn.execute(sqlx::raw_sql(AssertSqlSafe(stmt))).await?;
                            }
                            Ok(())
                        })
                    })
                    .connect_with(opts)
                    .await?;
                let version: String = sqlx::query_scalar("SELECT VERSION()")
                    .fetch_one(&pool)
                    .await?;
                Ok::<_, sqlx::Error>((pool, version))
            })
            .map_err(|e| EngineError::connect(kind, url, e))?;
        let mariadb = version.to_ascii_lowercase().contains("mariadb");
        Ok(MysqlEngine {
            info: EngineInfo { kind, version },
            dialect,
            pool,
            options,
            mariadb,
            rt,
        })
    }

    /// True when the server is MariaDB (not MySQL).
    pub fn is_mariadb(&self) -> bool {
        self.mariadb
    }

    fn db_error(&self, e: sqlx::Error) -> DbError {
        if let Some(db) = e.as_database_error() {
            let message = db.message().to_string();
            let code = db
                .try_downcast_ref::<MySqlDatabaseError>()
                .map(|m| m.number().to_string());
            let class = self.dialect.classify(code.as_deref(), &message);
            return DbError::new(class, code, message);
        }
        DbError::new(ErrorClass::Other, None, e.to_string())
    }

    fn time_limit_sql(&self, timeout: Duration) -> String {
        if self.mariadb {
            format!(
                "SET SESSION max_statement_time = {:.3}",
                timeout.as_secs_f64().max(0.001)
            )
        } else {
            format!(
                "SET SESSION max_execution_time = {}",
                timeout.as_millis().max(1)
            )
        }
    }

    /// Stops the statement running on connection `id` from a new connection.
    async fn kill_query(&self, id: u64) {
        if let Ok(mut c) = self.options.connect().await {
            let _ = c
                .execute(sqlx::raw_sql(AssertSqlSafe(format!("KILL QUERY {id}"))))
                .await;
        }
    }

    async fn run(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        conn_id: &AtomicU64,
    ) -> Result<ResultSet, DbError> {
        let conn = self.pool.acquire().await.map_err(|e| self.db_error(e))?;
        let mut guard = ConnGuard::new(conn);
        let setup = format!(
            "USE {}; {}; START TRANSACTION READ ONLY",
            quote_ident(&db.namespace),
            self.time_limit_sql(limits.timeout)
        );
        let setup = async {
            guard
                .conn()
                .execute(sqlx::raw_sql(AssertSqlSafe(setup)))
                .await?;
            sqlx::query_scalar::<_, u64>("SELECT CONNECTION_ID()")
                .fetch_one(guard.conn())
                .await
        };
        match setup.await {
            Ok(id) => conn_id.store(id, Ordering::Relaxed),
            Err(e) => {
                let err = self.db_error(e);
                rollback(guard).await;
                return Err(err);
            }
        }
        match self.query(&mut guard, db, sql, limits).await {
            Ok(rs) => {
                rollback(guard).await;
                Ok(rs)
            }
            Err((err, keep)) => {
                if keep {
                    rollback(guard).await;
                } else {
                    if let Some(id) = live_id(conn_id) {
                        self.kill_query(id).await;
                    }
                    guard.discard();
                }
                Err(err)
            }
        }
    }

    async fn query(
        &self,
        guard: &mut ConnGuard<sqlx::MySql>,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ResultSet, (DbError, bool)> {
        let conn = guard.conn();
        let stmt = conn
            .prepare(AssertSqlSafe(server::keyed_sql(&db.namespace, sql)).into_sql_str())
            .await
            .map_err(|e| (self.db_error(e), true))?;
        let mut columns: Vec<Column> = stmt
            .columns()
            .iter()
            .map(|c| Column::new(c.name(), Some(c.type_info().name().to_string())))
            .collect();
        let mut rows = Vec::new();
        let mut stream = stmt.query().fetch(&mut *conn);
        while let Some(row) = stream
            .try_next()
            .await
            .map_err(|e| (self.db_error(e), true))?
        {
            if rows.len() >= limits.max_rows {
                return Err((
                    DbError::new(
                        ErrorClass::Other,
                        None,
                        format!("result exceeds {} rows", limits.max_rows),
                    ),
                    false,
                ));
            }
            if rows.is_empty() {
                // The executed statement's metadata is authoritative.
                columns = row
                    .columns()
                    .iter()
                    .map(|c| Column::new(c.name(), Some(c.type_info().name().to_string())))
                    .collect();
            }
            rows.push(decode_row(&row));
        }
        Ok(ResultSet::new(columns, rows))
    }
}

/// Prepared statements a connection may hold before it is retired.
///
/// sqlx evicts the least recently used statement once its per-connection
/// cache (100 by default) is full, sending `COM_STMT_CLOSE`, which has no
/// reply; sqlx does not set `TCP_NODELAY`, so the next command then waits for
/// the server's delayed ACK (about 40 ms on Linux). Every query here has its
/// own text, so the cache fills after 100 queries and every later query paid
/// those 40 ms. Retiring the connection before the cache is full avoids the
/// eviction altogether; a new connection costs well under a millisecond.
const STATEMENT_BUDGET: usize = 90;

async fn rollback(mut guard: ConnGuard<sqlx::MySql>) {
    match guard.conn().execute(sqlx::raw_sql("ROLLBACK")).await {
        Ok(_) if guard.conn().cached_statements_size() < STATEMENT_BUDGET => guard.release(),
        _ => guard.discard(),
    }
}

impl Engine for MysqlEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn execute(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ResultSet, DbError> {
        let backstop = limits.timeout + BACKSTOP_GRACE;
        let conn_id = AtomicU64::new(0);
        self.rt.block_on(async {
            match tokio::time::timeout(backstop, self.run(db, sql, limits, &conn_id)).await {
                Ok(r) => r,
                Err(_) => {
                    if let Some(id) = live_id(&conn_id) {
                        self.kill_query(id).await;
                    }
                    Err(DbError::timeout(format!(
                        "no answer within {} ms (client-side backstop; query killed, connection dropped)",
                        backstop.as_millis()
                    )))
                }
            }
        })
    }
}

/// The connection id recorded for a running query (0 = none yet).
fn live_id(conn_id: &AtomicU64) -> Option<u64> {
    Some(conn_id.load(Ordering::Relaxed)).filter(|id| *id != 0)
}

/// A backquoted identifier (`` ` `` doubled).
pub(crate) fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn decode_row(row: &MySqlRow) -> Vec<Value> {
    (0..row.len()).map(|i| decode_cell(row, i)).collect()
}

fn decode_cell(row: &MySqlRow, i: usize) -> Value {
    let raw = match row.try_get_raw(i) {
        Ok(raw) => raw,
        Err(e) => return Value::Text(format!("<undecodable: {e}>")),
    };
    if raw.is_null() {
        return Value::Null;
    }
    let type_name = raw.type_info().name().to_string();
    let typed: Result<Value, sqlx::Error> = match type_name.as_str() {
        "BOOLEAN" | "TINYINT" | "SMALLINT" | "INT" | "MEDIUMINT" | "BIGINT" | "YEAR" => {
            row.try_get_unchecked::<i64, _>(i).map(Value::Int)
        }
        "TINYINT UNSIGNED" | "SMALLINT UNSIGNED" | "INT UNSIGNED" | "MEDIUMINT UNSIGNED"
        | "BIGINT UNSIGNED" | "BIT" => row.try_get_unchecked::<u64, _>(i).map(|v| {
            i64::try_from(v)
                .map(Value::Int)
                .unwrap_or_else(|_| Value::Decimal(v.to_string()))
        }),
        "FLOAT" => row
            .try_get::<f32, _>(i)
            .map(|v| Value::Float(server::widen_f32(v))),
        "DOUBLE" => row.try_get::<f64, _>(i).map(Value::Float),
        "DECIMAL" => row.try_get_unchecked::<String, _>(i).map(Value::Decimal),
        "DATE" => row
            .try_get::<chrono::NaiveDate, _>(i)
            .map(|v| Value::Date(server::date_text(v))),
        "TIME" => row.try_get::<sqlx::mysql::types::MySqlTime, _>(i).map(|t| {
            let text = server::hms(
                t.hours(),
                t.minutes().into(),
                t.seconds().into(),
                t.microseconds(),
            );
            // Not `is_negative()`: sqlx 0.9.0 returns `is_positive()` there.
            let negative = matches!(t.sign(), sqlx::mysql::types::MySqlTimeSign::Negative);
            Value::Time(if negative { format!("-{text}") } else { text })
        }),
        "DATETIME" | "TIMESTAMP" => row
            .try_get::<chrono::NaiveDateTime, _>(i)
            .map(|v| Value::Timestamp(server::timestamp_text(v))),
        "JSON" => row
            .try_get_unchecked::<Vec<u8>, _>(i)
            .map(|b| Value::Text(String::from_utf8_lossy(&b).into_owned())),
        // Character and binary strings: text unless the charset is binary.
        _ => row
            .try_get::<String, _>(i)
            .map(Value::Text)
            .or_else(|_| row.try_get::<Vec<u8>, _>(i).map(Value::Bytes)),
    };
    typed.unwrap_or_else(|_| {
        let bytes = row.try_get_unchecked::<Vec<u8>, _>(i).ok();
        Value::Text(server::fallback_text(&type_name, bytes.as_deref()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_backquoted() {
        assert_eq!(quote_ident("concert_singer"), "`concert_singer`");
        assert_eq!(quote_ident("a`b"), "`a``b`");
    }
}
