//! Bulk loads with `LOAD DATA LOCAL INFILE`: the server parses tab-separated
//! lines instead of `INSERT` statements, which is what makes its own bulk
//! loader several times faster than literals (see
//! `docs/measurements/scale.md`).
//!
//! sqlx does not speak the protocol's file exchange, so the load step alone
//! runs over a second connection made with `mysql_async`, which streams the
//! "file" from a channel: nothing is ever read from the client's disk, and
//! the connection answers a file request only while one of its own
//! `LOAD DATA` statements runs, and only for the name that statement gave.
//!
//! The loader is used only when it is proven to work: the server allows
//! `local_infile` (MariaDB's default; MySQL's default is off, and a
//! migration never changes a server's global settings) and a one-row probe
//! into a temporary table loads. Otherwise the migrator sends multi-row
//! `INSERT`s and says why in the migration log.
//!
//! With `LOCAL`, the server turns errors in the data (a value the column
//! cannot hold, a duplicate key) into warnings and goes on. A load that
//! leaves any warning is therefore an error here, naming the first one, and
//! its transaction is rolled back: the rows stored are exactly the rows sent.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use sqlwitness_core::{DbError, ErrorClass, RowSource, Value};
use sqlwitness_dialect::Dialect;

/// The name every `LOAD DATA` of this loader asks for; the connection
/// answers no other.
const STREAM_NAME: &str = "sqlwitness-rows";

/// About this many bytes of rows per chunk handed to the driver.
const CHUNK_BYTES: usize = 256 * 1024;

/// Chunks encoded ahead of the driver.
const CHUNKS_AHEAD: usize = 8;

/// The session of the load connection: the migration's own (strict, no
/// foreign-key checks, utf8mb4). `unique_checks` stays on: with it off,
/// MariaDB loads an empty table in its bulk mode, which sorts the rows
/// again, and measured slower here (the rows come in primary-key order).
const SESSION: &str = "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,\
NO_AUTO_VALUE_ON_ZERO', SESSION foreign_key_checks = 0, NAMES utf8mb4";

/// A connection that loads tables with `LOAD DATA LOCAL INFILE`.
pub(crate) struct InfileLoader {
    conn: mysql_async::Conn,
}

/// Appends `v` as one field of the tab-separated format `LOAD DATA` reads
/// by default: NULL as `\N`; backslash, tab, newline, carriage return and
/// NUL escaped with a backslash (so that no field is a bare `\N` but a
/// NULL's); bytes as they are; floats in their shortest exact form.
pub(crate) fn push_field(out: &mut Vec<u8>, v: &Value) -> Result<(), super::write::Unstorable> {
    use std::io::Write;
    match v {
        Value::Null => out.extend_from_slice(b"\\N"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Bool(b) => out.push(if *b { b'1' } else { b'0' }),
        Value::Float(f) if !f.is_finite() => return Err(super::write::Unstorable(*f)),
        Value::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Value::Bytes(b) => push_escaped(out, b),
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => push_escaped(out, s.as_bytes()),
    }
    Ok(())
}

fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len());
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'\\' => b"\\\\",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            0 => b"\\0",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escaped);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// How the server reads the stream's bytes: `binary` (as they are: UTF-8
/// text into utf8mb4 columns, bytes into binary ones), or `utf8mb4`
/// (converted into each text column's character set, as an `INSERT` over
/// the utf8mb4 session is: a latin1 column keeps `å` as `å`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamCharset {
    Binary,
    Utf8mb4,
}

impl StreamCharset {
    /// The character set a table's stream is read in, from its columns'
    /// types as created; `None` when neither is right (text in another
    /// character set, or a `uuid` or `json`, beside binary columns): the
    /// rows go as `INSERT`s.
    pub(crate) fn of(t: &sqlwitness_core::TableDef) -> Option<StreamCharset> {
        let other_text = t.columns.iter().any(|c| {
            let s = c.sql_type.to_ascii_lowercase();
            s.split("character set ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .is_some_and(|cs| !matches!(cs, "utf8mb4" | "binary"))
        });
        // Types that read a binary string as bytes of their own (MariaDB's
        // `uuid`: 16 bytes; MySQL's `json` refuses one): sent as text.
        let parsed_from_text = t.columns.iter().any(|c| {
            matches!(
                sqlwitness_dialect::TypeShape::of(&c.sql_type).base.as_str(),
                "uuid" | "json"
            )
        });
        let bytes = t.columns.iter().any(|c| {
            let s = c.sql_type.to_ascii_lowercase();
            c.kind == sqlwitness_core::TargetKind::Blob
                || s.contains("blob")
                || s.contains("binary")
        });
        match (other_text || parsed_from_text, bytes) {
            (false, _) => Some(StreamCharset::Binary),
            (true, false) => Some(StreamCharset::Utf8mb4),
            (true, true) => None,
        }
    }

    fn sql(self) -> &'static str {
        match self {
            StreamCharset::Binary => "binary",
            StreamCharset::Utf8mb4 => "utf8mb4",
        }
    }
}

/// The `LOAD DATA` statement for `table` (quoted and qualified) and its
/// quoted `columns`, the stream read in `charset`.
fn statement(table: &str, columns: &str, charset: StreamCharset) -> String {
    format!(
        "LOAD DATA LOCAL INFILE '{STREAM_NAME}' INTO TABLE {table} CHARACTER SET {} \
         FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({columns})",
        charset.sql()
    )
}

pub(crate) fn server_error(dialect: &Dialect, e: mysql_async::Error) -> DbError {
    match e {
        mysql_async::Error::Server(s) => {
            let code = s.code.to_string();
            let class = dialect.classify(Some(&code), &s.message);
            DbError::new(class, Some(code), s.message)
        }
        e => DbError::connection(format!("the bulk-load connection: {e}")),
    }
}

impl InfileLoader {
    /// Connects to `url` and proves that a local load works there (a row
    /// into a temporary table of namespace `ns`, which the URL need not
    /// name); `Err` says why it does not, for the log.
    pub(crate) async fn connect(url: &str, ns: &str) -> Result<InfileLoader, DbError> {
        let opts = mysql_async::Opts::from_url(url).map_err(|e| {
            DbError::connection(format!("the bulk loader cannot use the URL ({e})"))
        })?;
        let conn = mysql_async::Conn::new(opts)
            .await
            .map_err(|e| DbError::connection(format!("the bulk loader could not connect ({e})")))?;
        let mut loader = InfileLoader { conn };
        loader.probe(ns).await.map_err(|e| {
            DbError::refused(format!("the server refused LOAD DATA LOCAL INFILE ({e})"))
        })?;
        Ok(loader)
    }

    /// Says goodbye to the server (a connection merely dropped is counted
    /// and logged as aborted there).
    pub(crate) async fn close(self) {
        let _ = self.conn.disconnect().await;
    }

    async fn probe(&mut self, ns: &str) -> Result<(), mysql_async::Error> {
        let table = format!("{}.`sqlwitness_probe`", super::write::quote(ns));
        self.conn.query_drop(SESSION).await?;
        self.conn
            .query_drop(format!("CREATE TEMPORARY TABLE {table} (v INT)"))
            .await?;
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let _ = tx.send(Ok(Bytes::from_static(b"1\n"))).await;
        drop(tx);
        self.send(&statement(&table, "v", StreamCharset::Binary), rx)
            .await?;
        self.conn
            .query_drop(format!("DROP TEMPORARY TABLE {table}"))
            .await
    }

    /// Runs the `LOAD DATA` statement `sql` with the chunks `rx` hands out
    /// as its file. The receiver is dropped when the statement ends, even
    /// when the server never asked for the file.
    async fn send(&mut self, sql: &str, rx: Chunks) -> Result<(), mysql_async::Error> {
        let slot = Arc::new(Mutex::new(Some(rx)));
        let handed = Arc::clone(&slot);
        self.conn.set_infile_handler(async move {
            let rx = handed
                .lock()
                .ok()
                .and_then(|mut r| r.take())
                .ok_or_else(|| {
                    mysql_async::Error::from(mysql_async::LocalInfileError::other(
                        std::io::Error::other("a second file request"),
                    ))
                })?;
            let stream = futures_util::stream::unfold(rx, |mut rx| async move {
                rx.recv().await.map(|chunk| (chunk, rx))
            });
            Ok(stream.boxed())
        });
        let done = self.conn.query_drop(sql).await;
        if let Ok(mut r) = slot.lock() {
            r.take();
        }
        done
    }

    /// Loads the rows of `rows` into `table` (quoted, qualified) with its
    /// column `names`, in one transaction: the rows the server stored.
    /// Any warning (a value changed or skipped) rolls the load back and is
    /// the error.
    pub(crate) fn load(
        &mut self,
        rt: &tokio::runtime::Runtime,
        dialect: &Dialect,
        table: &str,
        names: &[String],
        charset: StreamCharset,
        rows: &mut dyn RowSource,
    ) -> Result<u64, DbError> {
        let columns: Vec<String> = names.iter().map(|n| super::write::quote(n)).collect();
        let sql = statement(table, &columns.join(", "), charset);
        rt.block_on(self.conn.query_drop("START TRANSACTION"))
            .map_err(|e| server_error(dialect, e))?;
        let (tx, rx) = tokio::sync::mpsc::channel(CHUNKS_AHEAD);
        let (sent, encoded) = std::thread::scope(|s| {
            let conn = &mut *self;
            let sender = s.spawn(move || {
                rt.block_on(async {
                    conn.send(&sql, rx).await?;
                    Ok::<_, mysql_async::Error>((
                        conn.conn.affected_rows(),
                        conn.conn.get_warnings(),
                    ))
                })
            });
            let encoded = encode(rows, names, &tx);
            if let Err(Some(e)) = &encoded {
                let _ = tx.blocking_send(Err(std::io::Error::other(e.message.clone())));
            }
            drop(tx);
            let sent = sender.join().unwrap_or_else(|_| {
                Err(mysql_async::Error::Other(Box::new(std::io::Error::other(
                    "the bulk-load thread panicked",
                ))))
            });
            (sent, encoded)
        });
        let outcome = match (encoded, sent) {
            (Err(Some(e)), _) => Err(e),
            (_, Err(e)) => Err(server_error(dialect, e)),
            (Err(None), Ok(_)) => Err(DbError::new(
                ErrorClass::Other,
                None,
                "the server ended the load before every row was sent",
            )),
            (Ok(_), Ok((stored, 0))) => Ok(stored),
            (Ok(_), Ok((stored, _))) => match rt.block_on(self.first_warning()) {
                Ok(None) => Ok(stored),
                Ok(Some(w)) => Err(w),
                Err(e) => Err(server_error(dialect, e)),
            },
        };
        let end = if outcome.is_ok() {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        let ended = rt.block_on(self.conn.query_drop(end));
        let stored = outcome?;
        ended.map_err(|e| server_error(dialect, e))?;
        Ok(stored)
    }

    /// The first warning (not note) of the last statement, as an error.
    async fn first_warning(&mut self) -> Result<Option<DbError>, mysql_async::Error> {
        let warnings: Vec<(String, u32, String)> = self.conn.query("SHOW WARNINGS").await?;
        let total = warnings.len();
        Ok(warnings
            .into_iter()
            .find(|(level, _, _)| !level.eq_ignore_ascii_case("note"))
            .map(|(_, code, message)| {
                DbError::new(
                    ErrorClass::TypeMismatch,
                    Some(code.to_string()),
                    format!("{message} (the load left {total} warnings and was rolled back)"),
                )
            }))
    }
}

/// The chunks of a load, or the error that stops it.
type Chunks = tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>;

/// Encodes every row of `rows` into chunks sent on `tx`; the row count.
/// `Err(None)`: the statement ended before taking every chunk (its own
/// error says why).
fn encode(
    rows: &mut dyn RowSource,
    names: &[String],
    tx: &tokio::sync::mpsc::Sender<std::io::Result<Bytes>>,
) -> Result<u64, Option<DbError>> {
    let stopped = || None;
    let mut buf = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
    let mut row_no = 0u64;
    while let Some(batch) = rows.next_batch().map_err(Some)? {
        for row in batch {
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    buf.push(b'\t');
                }
                push_field(&mut buf, v).map_err(|m| {
                    Some(DbError::new(
                        ErrorClass::TypeMismatch,
                        None,
                        format!("row {row_no}, column `{}`: {m}", names[i]),
                    ))
                })?;
            }
            buf.push(b'\n');
            row_no += 1;
            if buf.len() >= CHUNK_BYTES {
                let chunk =
                    std::mem::replace(&mut buf, Vec::with_capacity(CHUNK_BYTES + 64 * 1024));
                tx.blocking_send(Ok(Bytes::from(chunk)))
                    .map_err(|_| stopped())?;
            }
        }
    }
    if !buf.is_empty() {
        tx.blocking_send(Ok(Bytes::from(buf)))
            .map_err(|_| stopped())?;
    }
    Ok(row_no)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(values: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(b'\t');
            }
            push_field(&mut out, v).unwrap();
        }
        out
    }

    #[test]
    fn fields_escape_what_the_format_reads() {
        let out = line(&[
            Value::Text("a\tb\nc\\d\re\0f".into()),
            Value::Null,
            Value::Text("\\N".into()),
            Value::Text(String::new()),
            Value::Bytes(vec![0, 9, 10, 92, 255]),
            Value::Int(-3),
            Value::Bool(true),
            Value::Float(0.1),
            Value::Float(1e300),
            Value::Float(-0.0),
            Value::Date("2020-02-29".into()),
        ]);
        assert_eq!(
            out,
            b"a\\tb\\nc\\\\d\\re\\0f\t\\N\t\\\\N\t\t\\0\\t\\n\\\\\xff\t-3\t1\t0.1\t1e300\t-0.0\t2020-02-29"
        );
        assert!(push_field(&mut Vec::new(), &Value::Float(f64::INFINITY)).is_err());
    }

    #[test]
    fn text_in_another_character_set_is_converted_from_the_stream() {
        use sqlwitness_core::{ColumnDef, TableDef, TargetKind};
        let table = |types: &[(&str, TargetKind)]| TableDef {
            name: "t".into(),
            columns: types
                .iter()
                .map(|(t, k)| ColumnDef {
                    name: "c".into(),
                    kind: *k,
                    sql_type: t.to_string(),
                    not_null: false,
                })
                .collect(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
        };
        let text = TargetKind::Text;
        assert_eq!(
            StreamCharset::of(&table(&[
                ("LONGTEXT", text),
                ("LONGBLOB", TargetKind::Blob)
            ])),
            Some(StreamCharset::Binary)
        );
        let latin1 = (
            "varchar(50) CHARACTER SET latin1 COLLATE latin1_swedish_ci",
            text,
        );
        assert_eq!(
            StreamCharset::of(&table(&[latin1, ("int", TargetKind::Integer)])),
            Some(StreamCharset::Utf8mb4)
        );
        assert_eq!(
            StreamCharset::of(&table(&[latin1, ("mediumblob", TargetKind::Blob)])),
            None
        );
        assert_eq!(
            StreamCharset::of(&table(&[(
                "varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                text
            )])),
            Some(StreamCharset::Binary)
        );
        // A uuid or a JSON document is parsed from text, not bytes.
        for parsed in ["uuid", "json"] {
            assert_eq!(
                StreamCharset::of(&table(&[(parsed, text), ("int", TargetKind::Integer)])),
                Some(StreamCharset::Utf8mb4)
            );
            assert_eq!(
                StreamCharset::of(&table(&[(parsed, text), ("longblob", TargetKind::Blob)])),
                None
            );
        }
    }

    #[test]
    fn the_statement_names_the_stream_and_the_format() {
        let sql = statement("`d`.`t`", "`a`, `b`", StreamCharset::Binary);
        assert_eq!(
            sql,
            "LOAD DATA LOCAL INFILE 'sqlwitness-rows' INTO TABLE `d`.`t` CHARACTER SET binary \
             FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (`a`, `b`)"
        );
    }
}
