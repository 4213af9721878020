//! Loading a MySQL or MariaDB dump ([`MysqlDumpNamespace`]): a database
//! created and stamped as every migrated copy is ([`MysqlMigrator`]), and a
//! fresh login granted what a dump's tables, views, routines and triggers
//! need on that database and nothing else — no global privilege, so no
//! `FILE` (`LOAD DATA INFILE`, `INTO OUTFILE`), no `SUPER`, no `PROCESS`,
//! no user or grant changes, no `EVENT`; its `DEFINER`s cannot name another
//! account. Its sessions carry limits: MariaDB's `MAX_STATEMENT_TIME` on the
//! login and `max_session_mem_used`, MySQL's `max_execution_time` (which
//! bounds its `SELECT`s; other statements are stopped by the client).
//!
//! The dump runs over that login one statement at a time, each prepared
//! first (the server's statement protocol refuses a text it parses as
//! several statements; one it cannot prepare, such as `CREATE TRIGGER` on
//! MySQL, is then sent as the single statement the server just parsed);
//! the dump's own code runs with the loader's rights. The loaded database
//! is read as a [`Source`] by the administrative login — base tables and
//! the catalogue only, which run nothing the dump defined (a generated
//! column may not call a routine) — and its views by a fresh session of the
//! loader; then it is dropped with the login.
//!
//! A live database a benchmark names ([`MysqlDumpNamespace::attach`]) is
//! read the same way over the login its URL gives, in a read-only session;
//! nothing is created in it, and closing it only ends the sessions.

use std::sync::Arc;
use std::time::Duration;

use sqlwitness_core::{
    CopiedColumn, CopiedTable, DbError, DumpNamespace, ErrorClass, KeyFn, LexSettings, Migrator,
    ScanBatch, ServerSource, Source, SourceColumn, SourceForeignKey, SourceSchema, SourceTable,
    SourceView, Stamp, TargetKind, STAMP_TABLE,
};
use sqlwitness_core::{EngineKind, ResultSet};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection};
use sqlx::{AssertSqlSafe, ConnectOptions, Connection, Executor, Row};

use super::lease;
use super::login::grant_db;
use super::read::decode_row;
use super::write::{quote, MysqlMigrator};
use crate::dump::{
    open, past_limit, scan_in_batches, server_limit, server_limit_ms, within, KeySql, LOADER_ENDED,
};
use crate::lease::Leased;
use crate::login::literal;

/// Rows per scan batch.
const SCAN_BATCH: usize = 1000;
/// The privileges the loader has on its database (`ALL` but `EVENT` and
/// `GRANT OPTION`).
const LOADER_PRIVILEGES: &str = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, \
     CREATE TEMPORARY TABLES, LOCK TABLES, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, \
     EXECUTE, TRIGGER, REFERENCES";
/// MariaDB: the memory one loader session may use.
const LOADER_MEMORY: u64 = 1 << 30;
/// The time reading the loader's session settings back may take.
const SETTINGS_LIMIT: Duration = Duration::from_secs(30);
/// The server's error for a statement its prepared-statement protocol does
/// not take (it parsed the text as one statement first).
const NOT_PREPARABLE: &str = "1295";

/// The loader's statement, bound to `@sqlwitness_statement`, prepared and
/// run in one request.
const PREPARE_AND_EXECUTE: &str = "PREPARE sqlwitness_statement FROM @sqlwitness_statement; \
                                   EXECUTE sqlwitness_statement";

/// Key checks in MySQL's SQL.
const KEY_SQL: KeySql = KeySql {
    quote,
    int: |e| format!("CAST({e} AS SIGNED)"),
};

/// A MySQL/MariaDB database made for one dump, with its loader login.
pub struct MysqlDumpNamespace {
    rt: tokio::runtime::Runtime,
    migrator: MysqlMigrator,
    admin: MySqlConnection,
    loader: Option<MySqlConnection>,
    loader_id: u64,
    /// How the loader connects (its password).
    loader_opts: Option<MySqlConnectOptions>,
    /// The loader's statement limit.
    statement_limit: Duration,
    mariadb: bool,
    database: String,
    user: String,
    closed: bool,
    /// A live database's reader session (its URL's login, read-only);
    /// `None` for a loaded dump, read by the administrative login.
    reader: Option<MySqlConnection>,
}

/// The session a source is read over: a live database's reader, else the
/// administrative login.
fn src<'a>(
    reader: &'a mut Option<MySqlConnection>,
    admin: &'a mut MySqlConnection,
) -> &'a mut MySqlConnection {
    match reader {
        Some(r) => r,
        None => admin,
    }
}

impl std::fmt::Debug for MysqlDumpNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlDumpNamespace")
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

/// The server's error number of a driver error.
fn my_error_code(e: &sqlx::Error) -> Option<String> {
    e.as_database_error()?
        .try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
        .map(|m| m.number().to_string())
}

fn my_error(e: sqlx::Error) -> DbError {
    match e.as_database_error() {
        Some(db) => {
            let code = db
                .try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
                .map(|m| m.number().to_string());
            let class = match code.as_deref() {
                // Access denied (command, database, table, global privilege).
                Some("1044" | "1045" | "1142" | "1143" | "1227" | "1370") => ErrorClass::Refused,
                Some("1317" | "3024") => ErrorClass::Timeout,
                _ => ErrorClass::Other,
            };
            DbError::new(class, code, db.message().to_string())
        }
        None => crate::server::driver_error(e),
    }
}

impl MysqlDumpNamespace {
    /// Creates database `database` stamped with `stamp` (an existing one
    /// only when sqlwitness made it; anything else is refused and left
    /// untouched) and its loader login; connects both.
    pub fn create(
        dialect: sqlwitness_dialect::Dialect,
        admin_url: &str,
        database: &str,
        stamp: &Stamp,
        statement_limit: Duration,
    ) -> Result<Self, DbError> {
        let kind = EngineKind::parse(&dialect.name).unwrap_or(EngineKind::Mysql);
        let rt = crate::server::blocking_runtime()?;
        let base: MySqlConnectOptions = admin_url
            .parse()
            .map_err(|e| DbError::connection(format!("{}: {e}", crate::mask_url(admin_url))))?;
        let mut admin = rt
            .block_on(base.connect())
            .map_err(|e| DbError::connection(e.to_string()))?;
        let user = format!("sw_load_{}", &crate::fresh_password()[..16]);
        // Recorded under a lease the administrative connection holds,
        // before either exists (a run killed from here on leaves them to
        // the next sweep).
        let items = vec![
            Leased::Database(database.to_string()),
            Leased::Login(user.clone()),
        ];
        rt.block_on(lease::record(&mut admin, database, &items))
            .map_err(my_error)?;
        crate::lease::hold(kind, admin_url, database, items);
        let made = (|| {
            let mut migrator = MysqlMigrator::connect(dialect, admin_url)?;
            migrator.lock(database)?;
            migrator.drop_namespace(database)?;
            migrator.create_namespace(database, stamp)?;
            Ok::<_, DbError>(migrator)
        })();
        let migrator = match made {
            Ok(m) => m,
            Err(e) => {
                // The lease ends with this connection: the next sweep drops
                // whatever of it was made.
                crate::lease::let_go(database);
                return Err(e);
            }
        };
        let mut ns = MysqlDumpNamespace {
            rt,
            migrator,
            admin,
            loader: None,
            loader_id: 0,
            loader_opts: None,
            statement_limit,
            mariadb: false,
            database: database.to_string(),
            user,
            closed: false,
            reader: None,
        };
        if let Err(e) = ns.prepare(&base) {
            let _ = ns.close();
            return Err(e);
        }
        Ok(ns)
    }

    /// A live database (`source_url`: its login and database) read as a
    /// [`ServerSource`] in a read-only session. Its tables are copied by
    /// `INSERT … SELECT` over the administrative `admin_url`, which must
    /// reach the same server.
    pub fn attach(
        dialect: sqlwitness_dialect::Dialect,
        admin_url: &str,
        source_url: &str,
    ) -> Result<Self, DbError> {
        let migrator = MysqlMigrator::connect(dialect, admin_url)?;
        let rt = crate::server::blocking_runtime()?;
        let connect = |url: &str| -> Result<MySqlConnection, DbError> {
            let opts: MySqlConnectOptions = url
                .parse()
                .map_err(|e| DbError::connection(format!("{}: {e}", crate::mask_url(url))))?;
            rt.block_on(opts.connect()).map_err(|e| {
                DbError::connection(format!("cannot connect to {}: {e}", crate::mask_url(url)))
            })
        };
        let mut admin = connect(admin_url)?;
        let mut reader = connect(source_url)?;
        rt.block_on(reader.execute("SET SESSION TRANSACTION READ ONLY"))
            .map_err(my_error)?;
        let database: Option<String> = rt
            .block_on(sqlx::query_scalar("SELECT CAST(DATABASE() AS CHAR)").fetch_one(&mut reader))
            .map_err(my_error)?;
        let database = database.ok_or_else(|| {
            DbError::refused(format!(
                "{}: the URL names no database",
                crate::mask_url(source_url)
            ))
        })?;
        let server = "SELECT CAST(CONCAT(@@hostname, ':', @@port, ' ', @@version) AS CHAR)";
        let here: String = rt
            .block_on(sqlx::query_scalar(server).fetch_one(&mut admin))
            .map_err(my_error)?;
        let there: String = rt
            .block_on(sqlx::query_scalar(server).fetch_one(&mut reader))
            .map_err(my_error)?;
        if here != there {
            return Err(DbError::refused(format!(
                "{}: another server ({there}) than the administrative login's ({here}): a \
                 live MySQL or MariaDB source is copied on its own server",
                crate::mask_url(source_url)
            )));
        }
        Ok(MysqlDumpNamespace {
            rt,
            migrator,
            admin,
            loader: None,
            loader_id: 0,
            loader_opts: None,
            statement_limit: Duration::ZERO,
            mariadb: false,
            database,
            user: String::new(),
            closed: false,
            reader: Some(reader),
        })
    }

    fn prepare(&mut self, base: &MySqlConnectOptions) -> Result<(), DbError> {
        let password = crate::fresh_password();
        let version: String = self
            .rt
            .block_on(
                sqlx::query_scalar("SELECT CAST(VERSION() AS CHAR)").fetch_one(&mut self.admin),
            )
            .map_err(my_error)?;
        self.mariadb = version.contains("MariaDB");
        // MariaDB stops the loader's statements itself (a little after the
        // client would, so that a client that died does not leave one
        // running).
        let statement_time = if self.mariadb {
            format!(
                " MAX_STATEMENT_TIME {}",
                server_limit(self.statement_limit).as_secs_f64()
            )
        } else {
            String::new()
        };
        for host in ["%", "localhost"] {
            for sql in [
                format!(
                    "CREATE USER '{u}'@'{host}' IDENTIFIED BY {p} WITH MAX_USER_CONNECTIONS 3{statement_time}",
                    u = self.user,
                    p = literal(&password, true),
                ),
                format!(
                    "GRANT {LOADER_PRIVILEGES} ON {db}.* TO '{u}'@'{host}'",
                    u = self.user,
                    db = grant_db(&self.database),
                ),
            ] {
                self.rt
                    .block_on(self.admin.execute(AssertSqlSafe(sql)))
                    .map_err(my_error)?;
            }
        }
        let opts = base
            .clone()
            .username(&self.user)
            .password(&password)
            .database(&self.database)
            .statement_cache_capacity(8);
        let (loader, id) = self.connect_loader(&opts)?;
        self.loader = Some(loader);
        self.loader_id = id;
        self.loader_opts = Some(opts);
        Ok(())
    }

    /// A session of the loader with its limits set: the connection and its
    /// id.
    fn connect_loader(
        &self,
        opts: &MySqlConnectOptions,
    ) -> Result<(MySqlConnection, u64), DbError> {
        let mut loader = self
            .rt
            .block_on(opts.connect())
            .map_err(|e| DbError::connection(format!("the loader login cannot connect: {e}")))?;
        let limits = if self.mariadb {
            format!("SET SESSION max_session_mem_used = {LOADER_MEMORY}")
        } else {
            // After the client's own limit, which reports the statement as
            // stopped (MySQL's ends a `SLEEP` as if it had finished).
            format!(
                "SET SESSION max_execution_time = {}",
                server_limit_ms(self.statement_limit)
            )
        };
        self.rt
            .block_on(loader.execute(AssertSqlSafe(limits)))
            .map_err(my_error)?;
        let id = self
            .rt
            .block_on(sqlx::query_scalar("SELECT CONNECTION_ID()").fetch_one(&mut loader))
            .map_err(my_error)?;
        Ok((loader, id))
    }

    fn stop_loader(&mut self) {
        let id = self.loader_id;
        let _ = self
            .rt
            .block_on(self.admin.execute(AssertSqlSafe(format!("KILL {id}"))));
        self.loader = None;
    }

    fn qualified(&self, table: &str) -> String {
        format!("{}.{}", quote(&self.database), quote(table))
    }

    fn count(&mut self, sql: String) -> Result<u64, DbError> {
        let n: Option<i64> = self
            .rt
            .block_on(
                sqlx::query_scalar(AssertSqlSafe(sql))
                    .fetch_one(src(&mut self.reader, &mut self.admin)),
            )
            .map_err(my_error)?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    /// The expression a column is read with: types the driver does not
    /// decode into a typed value are read as their text or number.
    fn read_expr(c: &SourceColumn) -> String {
        let t = c.declared.to_ascii_lowercase();
        let q = quote(&c.name);
        if t.starts_with("bit") {
            format!("CAST({q} AS UNSIGNED)")
        } else if t.starts_with("enum") || t.starts_with("set") || t == "json" {
            format!("CAST({q} AS CHAR)")
        } else if is_spatial(&t) {
            // Degraded to its WKT (the dialect file's `dump_types` says so).
            format!("ST_AsText({q})")
        } else {
            q
        }
    }
}

impl Source for MysqlDumpNamespace {
    fn schema(&mut self) -> Result<SourceSchema, DbError> {
        let db = self.database.clone();
        let rt = &self.rt;
        let conn = src(&mut self.reader, &mut self.admin);
        let tables = rt.block_on(base_tables(conn, &db))?;
        let mut out = SourceSchema::default();
        for name in tables {
            let columns = rt.block_on(table_columns(conn, &db, &name))?;
            let keys = rt.block_on(key_columns(conn, &db, &name))?;
            let mut table = SourceTable {
                name: name.clone(),
                columns,
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                unique: Vec::new(),
            };
            add_keys(&mut table, keys);
            out.tables.push(table);
        }
        Ok(out)
    }

    fn scan(&mut self, table: &SourceTable, batch: &mut ScanBatch<'_>) -> Result<u64, DbError> {
        let list = table
            .columns
            .iter()
            .map(Self::read_expr)
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!("SELECT {list} FROM {}", self.qualified(&table.name));
        let rt = &self.rt;
        let conn = src(&mut self.reader, &mut self.admin);
        let rows = sqlx::raw_sql(AssertSqlSafe(sql)).fetch(&mut *conn);
        rt.block_on(scan_in_batches(
            rows, decode_row, my_error, SCAN_BATCH, batch,
        ))
    }

    /// Counted on the server with its own equality.
    fn key_violations(
        &mut self,
        table: &SourceTable,
        cols: &[usize],
        _kinds: &[TargetKind],
        _key: &Arc<KeyFn>,
    ) -> Result<(u64, u64), DbError> {
        let (nulls, dups) = KEY_SQL.violations(&self.qualified(&table.name), table, cols);
        Ok((self.count(nulls)?, self.count(dups)?))
    }

    fn orphans(
        &mut self,
        child: &SourceTable,
        cols: &[usize],
        parent: &SourceTable,
        pcols: &[usize],
        _kinds: &[TargetKind],
        _key: &Arc<KeyFn>,
        _exact: bool,
    ) -> Result<u64, DbError> {
        let (c, p) = (self.qualified(&child.name), self.qualified(&parent.name));
        self.count(KEY_SQL.orphans((&c, child), cols, (&p, parent), pcols))
    }
}

/// The base tables of database `db` but sqlwitness's stamp, by name.
async fn base_tables(conn: &mut MySqlConnection, db: &str) -> Result<Vec<String>, DbError> {
    sqlx::query_scalar(
        "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> ? \
         ORDER BY TABLE_NAME",
    )
    .bind(db)
    .bind(STAMP_TABLE)
    .fetch_all(conn)
    .await
    .map_err(my_error)
}

/// A table's columns in order, with their declared types.
async fn table_columns(
    conn: &mut MySqlConnection,
    db: &str,
    table: &str,
) -> Result<Vec<SourceColumn>, DbError> {
    let cols = sqlx::query(
        "SELECT CAST(COLUMN_NAME AS CHAR), CAST(COLUMN_TYPE AS CHAR), \
           CAST(IS_NULLABLE AS CHAR) FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
    )
    .bind(db)
    .bind(table)
    .fetch_all(conn)
    .await
    .map_err(my_error)?;
    Ok(cols
        .iter()
        .map(|r| SourceColumn {
            name: r.get(0),
            declared: r.get(1),
            not_null: r.get::<String, _>(2) == "NO",
        })
        .collect())
}

/// One column of a key constraint: the constraint's name and type, the
/// column, and for a foreign key the parent table and column.
type KeyRow = (String, String, String, Option<String>, Option<String>);

/// The columns of a table's key constraints, by type, name and position;
/// a unique key with a part that is an expression (MySQL lists only its
/// plain columns, which alone are not unique) is left out.
async fn key_columns(
    conn: &mut MySqlConnection,
    db: &str,
    table: &str,
) -> Result<Vec<KeyRow>, DbError> {
    let keys = sqlx::query(
        "SELECT CAST(k.CONSTRAINT_NAME AS CHAR), CAST(t.CONSTRAINT_TYPE AS CHAR), \
           CAST(k.COLUMN_NAME AS CHAR), CAST(k.REFERENCED_TABLE_NAME AS CHAR), \
           CAST(k.REFERENCED_COLUMN_NAME AS CHAR) \
         FROM information_schema.KEY_COLUMN_USAGE k \
         JOIN information_schema.TABLE_CONSTRAINTS t \
           ON t.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND t.TABLE_NAME = k.TABLE_NAME \
          AND t.CONSTRAINT_NAME = k.CONSTRAINT_NAME \
         WHERE k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? \
           AND NOT (t.CONSTRAINT_TYPE = 'UNIQUE' AND EXISTS (SELECT 1 \
             FROM information_schema.STATISTICS s WHERE s.TABLE_SCHEMA = k.TABLE_SCHEMA \
             AND s.TABLE_NAME = k.TABLE_NAME AND s.INDEX_NAME = k.CONSTRAINT_NAME \
             AND s.COLUMN_NAME IS NULL)) \
         ORDER BY t.CONSTRAINT_TYPE, k.CONSTRAINT_NAME, k.ORDINAL_POSITION",
    )
    .bind(db)
    .bind(table)
    .fetch_all(conn)
    .await
    .map_err(my_error)?;
    Ok(keys
        .iter()
        .map(|k| (k.get(0), k.get(1), k.get(2), k.get(3), k.get(4)))
        .collect())
}

/// The key columns onto the table, a constraint's rows in a run: the
/// primary key (unique too), the unique keys, the foreign keys.
fn add_keys(table: &mut SourceTable, keys: Vec<KeyRow>) {
    let mut current: Option<(String, String)> = None;
    let mut unique: Vec<usize> = Vec::new();
    for (cname, kind, col, parent, parent_column) in keys {
        let ci = table.columns.iter().position(|c| c.name == col);
        if current.as_ref().map(|c| &c.0) != Some(&cname) {
            flush_unique(table, &current, &mut unique);
            current = Some((cname.clone(), kind.clone()));
            if kind == "FOREIGN KEY" {
                table.foreign_keys.push(SourceForeignKey {
                    columns: Vec::new(),
                    parent_table: parent.unwrap_or_default(),
                    parent_columns: Vec::new(),
                });
            }
        }
        match kind.as_str() {
            "PRIMARY KEY" => table.primary_key.extend(ci),
            "UNIQUE" => unique.extend(ci),
            "FOREIGN KEY" => {
                if let Some(fk) = table.foreign_keys.last_mut() {
                    fk.columns.push(col);
                    fk.parent_columns.push(parent_column);
                }
            }
            _ => {}
        }
    }
    flush_unique(table, &current, &mut unique);
    if !table.primary_key.is_empty() {
        table.unique.push(table.primary_key.clone());
    }
}

/// Ends a constraint's run: a unique key's columns become a unique set.
fn flush_unique(table: &mut SourceTable, kind: &Option<(String, String)>, u: &mut Vec<usize>) {
    if let Some((_, k)) = kind {
        if k == "UNIQUE" && !u.is_empty() {
            table.unique.push(std::mem::take(u));
        }
    }
    u.clear();
}

/// Whether a MySQL `COLUMN_TYPE` is a spatial type.
fn is_spatial(t: &str) -> bool {
    let base = t.split([' ', '(']).next().unwrap_or("");
    matches!(
        base,
        "geometry"
            | "point"
            | "linestring"
            | "polygon"
            | "multipoint"
            | "multilinestring"
            | "multipolygon"
            | "geometrycollection"
            | "geomcollection"
    )
}

/// The storage engines a copied table may use: the server's own. A table of
/// another engine (`FEDERATED`, `MERGE`, `CONNECT` …) reads data that is
/// not in its table and is not copied.
const COPIED_ENGINES: [&str; 4] = ["innodb", "myisam", "aria", "memory"];

impl MysqlDumpNamespace {
    /// The rows of the loaded `table` into `target` (quoted) over the
    /// quoted columns `names`, as the dump's load left them: a zero date or
    /// a value its own `sql_mode` allowed is copied as it is (the columns
    /// are of the same types; the checksums after it see any change).
    fn copy_rows(&mut self, target: &str, table: &str, names: &[String]) -> Result<(), DbError> {
        self.admin_exec(
            "SET @sw_copy_mode = @@SESSION.sql_mode, \
             SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'"
                .into(),
        )?;
        let copied = self.admin_exec(format!(
            "INSERT INTO {target} ({list}) SELECT {list} FROM {}",
            self.qualified(table),
            list = names.join(", ")
        ));
        self.admin_exec("SET SESSION sql_mode = @sw_copy_mode".into())?;
        copied
    }

    fn admin_exec(&mut self, sql: String) -> Result<(), DbError> {
        self.rt
            .block_on(self.admin.execute(AssertSqlSafe(sql)))
            .map(|_| ())
            .map_err(my_error)
    }

    /// `(rows, checksum)` of `from` over the quoted `cols`: the row count
    /// and the sum of each row's SHA-256 (of its columns' bytes in hex, `N`
    /// for NULL) cut to 60 bits (SHA-256: MySQL 9.7 has no `MD5()`; hex:
    /// its `QUOTE()` refuses bytes that are not text).
    fn checksum(
        &mut self,
        on_source: bool,
        from: &str,
        cols: &[String],
    ) -> Result<(u64, String), DbError> {
        let quoted = cols
            .iter()
            .map(|c| format!("IFNULL(HEX(CAST({c} AS BINARY)), 'N')"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT CAST(COUNT(*) AS SIGNED), CAST(COALESCE(SUM(CAST(CONV(LEFT(SHA2(CONCAT_WS(',', {quoted}), 256), 15), 16, 10) \
             AS UNSIGNED)), 0) AS CHAR) FROM {from}"
        );
        let row = self
            .rt
            .block_on(sqlx::query(AssertSqlSafe(sql)).fetch_one(if on_source {
                src(&mut self.reader, &mut self.admin)
            } else {
                &mut self.admin
            }))
            .map_err(my_error)?;
        Ok((row.get::<i64, _>(0).max(0) as u64, row.get(1)))
    }
}

/// How a foreign key is added to a copy.
enum Adding {
    /// Every row of the copy matches the parent: added with the table's
    /// other such keys in one `ALTER TABLE`, the rows not checked again.
    Checked(String),
    /// The parent's copy has no index on the key's columns (the server
    /// refuses such a key): added alone, the server checking it.
    ByServer(String),
}

impl MysqlDumpNamespace {
    /// Adds foreign keys `keys` of `table` to its copy in `ns`: one outcome
    /// each. mysqldump's preamble sets `FOREIGN_KEY_CHECKS=0`, so a dump's
    /// rows may break its keys: each key is checked on the copy first, and
    /// one that a row breaks is not added. The keys
    /// that hold are then added together with the session's
    /// `foreign_key_checks` off, which MySQL and MariaDB do in place —
    /// with it on, each key rebuilds the table.
    fn add_foreign_keys(
        &mut self,
        ns: &str,
        table: &SourceTable,
        keys: &[usize],
    ) -> Vec<Result<(), DbError>> {
        let target = format!("{}.{}", quote(ns), quote(&table.name));
        let mut outcomes = Vec::with_capacity(keys.len());
        let mut checked = Vec::new();
        for (i, &k) in keys.iter().enumerate() {
            outcomes.push(match self.adding(ns, table, k) {
                Ok(Adding::Checked(clause)) => {
                    checked.push((i, clause));
                    Ok(())
                }
                Ok(Adding::ByServer(clause)) => {
                    self.admin_exec(format!("ALTER TABLE {target} ADD {clause}"))
                }
                Err(e) => Err(e),
            });
        }
        // Together (InnoDB builds the keys' indexes in one pass); when the
        // server refuses that (a key's types, say), each alone, so that
        // each refusal is its own key's.
        let all = checked
            .iter()
            .map(|(_, clause)| format!("ADD {clause}"))
            .collect::<Vec<_>>()
            .join(", ");
        if checked.len() > 1
            && self
                .without_key_checks(format!("ALTER TABLE {target} {all}"))
                .is_ok()
        {
            return outcomes;
        }
        for (i, clause) in checked {
            outcomes[i] = self.without_key_checks(format!("ALTER TABLE {target} ADD {clause}"));
        }
        outcomes
    }

    /// How foreign key `k` of `table` is added to its copy in `ns`, or why
    /// not (it names no parent column, or a row of the copy breaks it).
    fn adding(&mut self, ns: &str, table: &SourceTable, k: usize) -> Result<Adding, DbError> {
        let clause = crate::dump::foreign_key_clause(ns, table, k, quote, true)?;
        let fk = &table.foreign_keys[k];
        let parent_columns: Vec<&str> = fk
            .parent_columns
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        if !self.has_index(ns, &fk.parent_table, &parent_columns)? {
            return Ok(Adding::ByServer(clause));
        }
        match self.orphan(ns, table, k, &parent_columns)? {
            None => Ok(Adding::Checked(clause)),
            Some(key) => Err(DbError::refused(format!(
                "a row's key ({}) matches no row of {}",
                key.as_deref().unwrap_or("…"),
                fk.parent_table
            ))),
        }
    }

    /// The first row of the copy of `table` in `ns` whose foreign key `k`
    /// matches no row of the parent's copy on `parent_columns` (its key's
    /// values, as text where they have one); `None` when every row does.
    /// A key with a NULL in it references nothing (MATCH SIMPLE, as the
    /// server's own check).
    fn orphan(
        &mut self,
        ns: &str,
        table: &SourceTable,
        k: usize,
        parent_columns: &[&str],
    ) -> Result<Option<Option<String>>, DbError> {
        let fk = &table.foreign_keys[k];
        let c: Vec<String> = fk
            .columns
            .iter()
            .map(|n| format!("c.{}", quote(n)))
            .collect();
        let p: Vec<String> = parent_columns
            .iter()
            .map(|n| format!("p.{}", quote(n)))
            .collect();
        let on = c
            .iter()
            .zip(&p)
            .map(|(c, p)| format!("{p} = {c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let set = c
            .iter()
            .map(|c| format!("{c} IS NOT NULL"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let sql = format!(
            "SELECT CAST(CONCAT_WS(', ', {}) AS CHAR) FROM {}.{} c LEFT JOIN {}.{} p ON {on} \
             WHERE {set} AND {} IS NULL LIMIT 1",
            c.join(", "),
            quote(ns),
            quote(&table.name),
            quote(ns),
            quote(&fk.parent_table),
            p[0],
        );
        self.rt
            .block_on(sqlx::query_scalar(AssertSqlSafe(sql)).fetch_optional(&mut self.admin))
            .map_err(my_error)
    }

    /// Whether `table` of the copy in `ns` has an index whose first columns
    /// are `columns`.
    fn has_index(&mut self, ns: &str, table: &str, columns: &[&str]) -> Result<bool, DbError> {
        let parts: Vec<(String, Option<String>)> = self
            .rt
            .block_on(
                sqlx::query_as(
                    "SELECT CAST(INDEX_NAME AS CHAR), CAST(COLUMN_NAME AS CHAR) \
                     FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? \
                     ORDER BY INDEX_NAME, SEQ_IN_INDEX",
                )
                .bind(ns)
                .bind(table)
                .fetch_all(&mut self.admin),
            )
            .map_err(my_error)?;
        let mut indexes: Vec<(&str, Vec<&str>)> = Vec::new();
        for (index, column) in &parts {
            let column = column.as_deref().unwrap_or("");
            match indexes.last_mut() {
                Some((name, cols)) if name == index => cols.push(column),
                _ => indexes.push((index, vec![column])),
            }
        }
        Ok(indexes.iter().any(|(_, cols)| {
            cols.len() >= columns.len()
                && cols
                    .iter()
                    .zip(columns)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        }))
    }

    /// Runs `sql` on the administrative session with `foreign_key_checks`
    /// off, then on again.
    fn without_key_checks(&mut self, sql: String) -> Result<(), DbError> {
        self.admin_exec("SET SESSION foreign_key_checks = 0".into())?;
        let ran = self.admin_exec(sql);
        let restored = self.admin_exec("SET SESSION foreign_key_checks = 1".into());
        ran.and(restored)
    }
}

impl DumpNamespace for MysqlDumpNamespace {
    fn run(&mut self, sql: String, limit: Duration) -> Result<(), DbError> {
        let rt = &self.rt;
        let loader = open(&mut self.loader, LOADER_ENDED)?;
        let work = async {
            // The server's `PREPARE` parses the text as one statement or
            // refuses it; a statement it does not take was parsed whole
            // first, and is then sent as the one statement it is. (Through
            // a session variable: the protocol's own prepare-execute-close
            // leaves a close unanswered, which stalls every statement on
            // TCP's delayed acknowledgement.) Two round trips: the
            // variable, then `PREPARE` and `EXECUTE` as one request of our
            // own text (the server stops at a `PREPARE` it refuses, so the
            // `EXECUTE` never runs a previous statement). The variable and
            // the prepared statement are replaced by the next statement's
            // (a `PREPARE` of a name in use deallocates it first) and end
            // with the loader's session.
            sqlx::query("SET @sqlwitness_statement = ?")
                .bind(sql.as_str())
                .execute(&mut *loader)
                .await?;
            let ran = loader.execute(sqlx::raw_sql(PREPARE_AND_EXECUTE)).await;
            match ran {
                Err(e) if my_error_code(&e).as_deref() == Some(NOT_PREPARABLE) => loader
                    .execute(sqlx::raw_sql(AssertSqlSafe(sql)))
                    .await
                    .map(|_| ()),
                Err(e) => Err(e),
                Ok(_) => Ok(()),
            }
        };
        match within(rt, limit, work) {
            Some(r) => r.map_err(my_error),
            None => {
                self.stop_loader();
                Err(past_limit("statement", limit))
            }
        }
    }

    fn lexing(&mut self) -> Result<LexSettings, DbError> {
        let rt = &self.rt;
        let loader = open(&mut self.loader, LOADER_ENDED)?;
        let work = sqlx::query_as::<_, (String, String)>(
            "SELECT CAST(@@SESSION.sql_mode AS CHAR), CAST(@@SESSION.character_set_client AS CHAR)",
        )
        .fetch_one(&mut *loader);
        let (mode, charset) = match within(rt, SETTINGS_LIMIT, work) {
            Some(r) => r.map_err(my_error)?,
            None => {
                self.stop_loader();
                return Err(past_limit("settings read", SETTINGS_LIMIT));
            }
        };
        let modes: Vec<String> = mode
            .split(',')
            .map(|m| m.trim().to_ascii_uppercase())
            .collect();
        let has = |m: &str| modes.iter().any(|x| x == m);
        Ok(LexSettings {
            standard_strings: true,
            no_backslash_escapes: has("NO_BACKSLASH_ESCAPES"),
            ansi_quotes: has("ANSI_QUOTES") || has("ANSI"),
            client_charset: charset,
        })
    }

    fn finish_load(&mut self) -> Result<(), DbError> {
        // Views are read in a fresh session of the loader (no temporary
        // table or variable of the load's).
        if let Some(l) = self.loader.take() {
            let _ = self.rt.block_on(l.close());
        }
        let opts = self
            .loader_opts
            .clone()
            .ok_or_else(|| DbError::connection(LOADER_ENDED))?;
        let (loader, id) = self.connect_loader(&opts)?;
        self.loader = Some(loader);
        self.loader_id = id;
        Ok(())
    }

    fn copy_in(
        &mut self,
        _sql: &str,
        _data: &mut dyn FnMut() -> Result<Option<Vec<u8>>, DbError>,
        _limit: Duration,
    ) -> Result<u64, DbError> {
        Err(DbError::refused(
            "COPY is PostgreSQL's: not a MySQL statement",
        ))
    }
}

impl ServerSource for MysqlDumpNamespace {
    fn server_version(&mut self) -> Result<String, DbError> {
        self.migrator.server_version()
    }

    fn other_objects(&mut self) -> Result<Vec<String>, DbError> {
        let db = self.database.clone();
        self.rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT CAST(CONCAT('view ', TABLE_NAME) AS CHAR) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? \
                     UNION ALL SELECT CAST(CONCAT('trigger ', TRIGGER_NAME) AS CHAR) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? \
                     UNION ALL SELECT CAST(CONCAT(LOWER(ROUTINE_TYPE), ' ', ROUTINE_NAME) AS CHAR) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? \
                     UNION ALL SELECT CAST(CONCAT('event ', EVENT_NAME) AS CHAR) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?",
                )
                .bind(&db)
                .bind(&db)
                .bind(&db)
                .bind(&db)
                .fetch_all(src(&mut self.reader, &mut self.admin)),
            )
            .map_err(my_error)
    }

    fn views(&mut self) -> Result<Vec<SourceView>, DbError> {
        let db = self.database.clone();
        let names: Vec<String> = self
            .rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.VIEWS \
                     WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME",
                )
                .bind(&db)
                .fetch_all(src(&mut self.reader, &mut self.admin)),
            )
            .map_err(my_error)?;
        let mut out = Vec::new();
        for name in names {
            let row = self
                .rt
                .block_on(
                    sqlx::query(AssertSqlSafe(format!(
                        "SHOW CREATE VIEW {}",
                        self.qualified(&name)
                    )))
                    .fetch_one(src(&mut self.reader, &mut self.admin)),
                )
                .map_err(my_error)?;
            let create: String = row
                .try_get::<String, _>(1)
                .or_else(|_| {
                    row.try_get::<Vec<u8>, _>(1)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                })
                .map_err(|e| DbError::new(ErrorClass::Other, None, e.to_string()))?;
            out.push(SourceView {
                definition: crate::dump::view_select(&create, &db),
                name,
            });
        }
        Ok(out)
    }

    fn view_rows(&mut self, name: &str, limit: Duration) -> Result<ResultSet, DbError> {
        let sql = format!("SELECT * FROM {}", self.qualified(name));
        // A dump's views are read by its loader (the login confined to its
        // database); a live database's by its own login.
        let dump = self.reader.is_none();
        let rt = &self.rt;
        let conn = match &mut self.reader {
            Some(r) => r,
            None => open(&mut self.loader, LOADER_ENDED)?,
        };
        let work = sqlx::query(AssertSqlSafe(sql)).fetch_all(conn);
        match within(rt, limit, work) {
            Some(r) => {
                let rows = r.map_err(my_error)?;
                Ok(crate::server::result_set(&rows, decode_row))
            }
            None => {
                if dump {
                    self.stop_loader();
                } else {
                    self.reader = None;
                }
                Err(past_limit("view", limit))
            }
        }
    }

    fn copy_table(&mut self, ns: &str, table: &SourceTable) -> Result<CopiedTable, DbError> {
        let db = self.database.clone();
        let engine: Option<String> = self
            .rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT CAST(ENGINE AS CHAR) FROM information_schema.TABLES \
                     WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
                )
                .bind(&db)
                .bind(&table.name)
                .fetch_optional(src(&mut self.reader, &mut self.admin)),
            )
            .map_err(my_error)?
            .flatten();
        let engine = engine.unwrap_or_default();
        if !COPIED_ENGINES.contains(&engine.to_ascii_lowercase().as_str()) {
            return Err(DbError::refused(format!(
                "its storage engine {engine} keeps data outside the table"
            )));
        }
        let cols = self
            .rt
            .block_on(
                sqlx::query(
                    "SELECT CAST(COLUMN_NAME AS CHAR), CAST(COLUMN_TYPE AS CHAR), \
                       CAST(CHARACTER_SET_NAME AS CHAR), CAST(COLLATION_NAME AS CHAR), \
                       CAST(IS_NULLABLE AS CHAR) FROM information_schema.COLUMNS \
                     WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                )
                .bind(&db)
                .bind(&table.name)
                .fetch_all(src(&mut self.reader, &mut self.admin)),
            )
            .map_err(my_error)?;
        let mut columns = Vec::new();
        for c in &cols {
            let column_type: String = c.get(1);
            let charset: Option<String> = c.get(2);
            let collation: Option<String> = c.get(3);
            let sql_type = match (charset, collation) {
                (Some(cs), Some(co)) => format!("{column_type} CHARACTER SET {cs} COLLATE {co}"),
                _ => column_type,
            };
            columns.push(CopiedColumn {
                name: c.get(0),
                sql_type,
                labels: Vec::new(),
                not_null: c.get::<String, _>(4) == "NO",
            });
        }
        let target = format!("{}.{}", quote(ns), quote(&table.name));
        let names: Vec<String> = columns.iter().map(|c| quote(&c.name)).collect();
        let defs = crate::dump::column_defs(&columns, quote, " NULL");
        let mut notes = Vec::new();
        // InnoDB clusters rows by the primary key: declared before the rows.
        let mut primary_key = !table.primary_key.is_empty();
        let with_key = format!(
            "CREATE TABLE {target} ({defs}, PRIMARY KEY ({})) ENGINE=InnoDB",
            crate::dump::column_list(table, &table.primary_key, quote)
        );
        let plain = format!("CREATE TABLE {target} ({defs}) ENGINE=InnoDB");
        if primary_key {
            if let Err(e) = self.admin_exec(with_key) {
                notes.push(format!("primary key not added: {}", e.message));
                primary_key = false;
                self.admin_exec(plain)?;
            }
        } else {
            self.admin_exec(plain)?;
        }
        self.copy_rows(&target, &table.name, &names)?;
        let (rows_source, checksum_source) =
            self.checksum(true, &self.qualified(&table.name), &names)?;
        let (rows_target, checksum_target) = self.checksum(false, &target, &names)?;
        crate::dump::add_unique_keys(
            table,
            &target,
            quote,
            |sql| self.admin_exec(sql),
            &mut notes,
        );
        Ok(CopiedTable {
            name: table.name.clone(),
            columns,
            rows_source,
            rows_target,
            checksum_source,
            checksum_target,
            primary_key,
            notes,
        })
    }

    fn copy_foreign_key(&mut self, ns: &str, table: &SourceTable, k: usize) -> Result<(), DbError> {
        self.add_foreign_keys(ns, table, &[k])
            .pop()
            .unwrap_or(Ok(()))
    }

    fn copy_foreign_keys(&mut self, ns: &str, table: &SourceTable) -> Vec<Result<(), DbError>> {
        let keys: Vec<usize> = (0..table.foreign_keys.len()).collect();
        self.add_foreign_keys(ns, table, &keys)
    }

    fn close(&mut self) -> Result<(), DbError> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        if let Some(r) = self.reader.take() {
            // A live database: only the sessions end.
            let _ = self.rt.block_on(r.close());
            return Ok(());
        }
        if let Some(l) = self.loader.take() {
            let _ = self.rt.block_on(l.close());
        }
        let mut first_error = self.migrator.drop_namespace(&self.database).err();
        self.migrator.unlock(&self.database);
        for host in ["%", "localhost"] {
            let sql = format!("DROP USER IF EXISTS '{}'@'{host}'", self.user);
            if let Err(e) = self.rt.block_on(self.admin.execute(AssertSqlSafe(sql))) {
                first_error.get_or_insert(my_error(e));
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => {
                // Both gone: their record and lease too.
                let _ = self
                    .rt
                    .block_on(lease::release(&mut self.admin, &self.database));
                crate::lease::let_go(&self.database);
                Ok(())
            }
        }
    }
}

impl Drop for MysqlDumpNamespace {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constraint's rows make one key; unique keys of several columns
    /// stay whole, the primary key is unique too, a foreign key keeps its
    /// parent's columns in order.
    #[test]
    fn add_keys_groups_a_constraints_rows() {
        let mut t = SourceTable {
            name: "t".into(),
            columns: ["a", "b", "c"]
                .iter()
                .map(|c| SourceColumn {
                    name: c.to_string(),
                    declared: "int".into(),
                    not_null: false,
                })
                .collect(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            unique: Vec::new(),
        };
        let row = |name: &str, kind: &str, col: &str, parent: Option<&str>, pc: Option<&str>| {
            (
                name.to_string(),
                kind.to_string(),
                col.to_string(),
                parent.map(String::from),
                pc.map(String::from),
            )
        };
        add_keys(
            &mut t,
            vec![
                row("fk", "FOREIGN KEY", "a", Some("p"), Some("x")),
                row("fk", "FOREIGN KEY", "b", Some("p"), Some("y")),
                row("PRIMARY", "PRIMARY KEY", "c", None, None),
                row("u1", "UNIQUE", "b", None, None),
                row("u1", "UNIQUE", "a", None, None),
                row("u2", "UNIQUE", "gone", None, None),
                row("u3", "UNIQUE", "c", None, None),
            ],
        );
        assert_eq!(t.primary_key, [2]);
        assert_eq!(t.unique, [vec![1, 0], vec![2], vec![2]]);
        assert_eq!(
            t.foreign_keys,
            [SourceForeignKey {
                columns: vec!["a".into(), "b".into()],
                parent_table: "p".into(),
                parent_columns: vec![Some("x".into()), Some("y".into())],
            }]
        );
    }
}
