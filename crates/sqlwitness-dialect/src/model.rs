//! The dialect file model (`deny_unknown_fields` throughout).

use serde::Deserialize;
use std::path::Path;

use sqlwitness_core::ErrorClass;

#[derive(Debug, thiserror::Error)]
pub enum DialectError {
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// One engine's facts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dialect {
    /// The engine's registry name (`sqlite`, `postgres`, `mysql`, `mariadb`).
    pub name: String,
    /// Another dialect file whose keys this one starts from (maps merge
    /// key by key, lists and values are replaced): `extends: mysql`.
    #[serde(default)]
    pub extends: Option<String>,
    /// The built-in adapter family: unless `factory` names another, the
    /// connection layer that runs the engine (`sqlwitness-engines` asks it;
    /// nothing else does).
    pub adapter: Adapter,
    /// The grammar the engine's SQL is read in: how its text is parsed,
    /// rewritten and translated (`sqlite`, `postgres`, `mysql`, `duckdb`;
    /// `generic` for an engine no other fits).
    #[serde(default)]
    pub grammar: Grammar,
    /// The adapter that runs the engine when it is not a built-in one: the
    /// name its factory was registered under in `sqlwitness-engines`
    /// (`register_adapter`).
    #[serde(default)]
    pub factory: Option<String>,
    /// How the engine is reached: `embedded` (it opens the benchmark's
    /// files; no URL, no migration), `server` (a URL, a migrated copy; the
    /// default) or `files` (in process, on migrated copies in a folder).
    #[serde(default)]
    pub transport: Transport,
    /// The container a run may start for the engine (`--containers`):
    /// image, port, environment and health check. Absent: none.
    #[serde(default)]
    pub container: Option<Container>,
    /// How a connected server is recognised as this engine (not another
    /// that speaks the same protocol).
    #[serde(default)]
    pub server: ServerIdentity,
    /// How identifiers are quoted and how long a name may be.
    pub identifiers: Identifiers,
    /// Names a migrated copy's namespace may never take (the server's own
    /// schemas or databases).
    #[serde(default)]
    pub namespaces: Namespaces,
    /// The statement that limits the next statement's time, with `{millis}`
    /// or `{seconds}` for the limit; none where the adapter limits it
    /// itself.
    #[serde(default)]
    pub time_limit: Option<String>,
    /// How the adapter times a query for efficiency scores (VES): on the
    /// server where the engine can; absent: the client's wall time.
    #[serde(default)]
    pub timing: Option<sqlwitness_core::TimingMethod>,
    /// Where the engine departs from SQLite on the detected dialect
    /// features (`sqlwitness_sql::feature_table`): every other feature runs
    /// as written.
    #[serde(default)]
    pub features: FeatureSupport,
    /// Statements run once on every new connection, in order.
    #[serde(default)]
    pub session: Vec<String>,
    /// The name the engine goes by in a report's prose (`SQLite`);
    /// absent: `name`.
    #[serde(default)]
    pub display_name: Option<String>,
    /// How a finding's "run it yourself" line runs one query on the
    /// engine's copy with the engine's own command-line client. Absent: the
    /// line gives the query alone.
    #[serde(default)]
    pub rerun: Option<Rerun>,
    #[serde(default)]
    pub capabilities: Capabilities,
    /// Error classification rules; the first that matches wins.
    #[serde(default)]
    pub errors: Vec<ErrorRule>,
    /// Functions a predicted query may not call (lower case).
    #[serde(default)]
    pub denied_functions: Vec<String>,
    /// Functions the server calls when their name is written bare, without
    /// parentheses (lower case: `current_user`); the guard checks such a
    /// name, unquoted and unqualified, as a call.
    #[serde(default)]
    pub niladic_functions: Vec<String>,
    /// Name prefixes of function families a predicted query may not call
    /// (lower case): extensions and loadable functions that the server the
    /// list was derived from does not have installed.
    #[serde(default)]
    pub denied_function_prefixes: Vec<String>,
    /// Functions the catalogue review flags (side effects, session or
    /// server state) that stay allowed, each with the reason (lower-case
    /// name → why). Nothing reads them at run time; the live catalogue
    /// tests require every flagged function to be denied or listed here.
    #[serde(default)]
    pub allowed_functions: std::collections::BTreeMap<String, String>,
    /// Schemas a qualified function call may name besides the question's
    /// namespace (PostgreSQL `pg_catalog`).
    #[serde(default)]
    pub function_schemas: Vec<String>,
    /// Prefixes of the system catalogue's relations, which an unqualified
    /// table name reaches before the question's namespace (PostgreSQL
    /// `pg_`): refused.
    #[serde(default)]
    pub catalog_relation_prefixes: Vec<String>,
    /// Type names refused anywhere in a predicted query (lower case):
    /// PostgreSQL's `reg*` types look up a name given as text
    /// (`'other.t'::regclass`), out of the guard's sight.
    #[serde(default)]
    pub denied_types: Vec<String>,
    /// Functions that build a value whose size one argument states (lower
    /// case name → 1-based argument position): `repeat('x', 1000000000)`.
    /// The guard refuses a literal size over the result byte limit, so no
    /// single value the driver must buffer whole can outgrow it.
    #[serde(default)]
    pub sized_functions: std::collections::BTreeMap<String, usize>,
    /// How the server reads SQL text: comments, quotes, escapes. The guard
    /// lexes predicted SQL with these rules and refuses text its parser
    /// would read differently.
    #[serde(default)]
    pub lexical: Lexical,
    /// Migration target types per storage kind.
    #[serde(default)]
    pub types: TypeMap,
    /// How SQLite SQL is translated for this engine (`sqlwitness audit`).
    #[serde(default)]
    pub translations: Translations,
    /// How `sqlwitness import` carries this engine's dump column types into
    /// SQLite; absent: its dumps are not imported.
    #[serde(default)]
    pub dump_types: Option<crate::DumpTypes>,
    /// How this engine's column types read as the column model's kinds,
    /// and how each kind is written here ([`crate::ColumnModel`]).
    #[serde(default)]
    pub column_model: crate::ColumnModel,
}

/// SQLite → this engine: which translations apply, and the function tables.
/// The AST work lives in `sqlwitness-sql` (`translate`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Translations {
    /// `"word"` naming no table, column or alias becomes `'word'`.
    #[serde(default)]
    pub double_quoted_strings: bool,
    /// A TEXT-affinity column compared with a number: the number becomes
    /// text (a literal) or is cast to text (a column), as SQLite's affinity
    /// rules compare them.
    #[serde(default)]
    pub text_comparisons: bool,
    /// `avg`/`sum`/`min`/`max` of a TEXT-affinity column: cast the argument
    /// to this type (SQLite reads numeric text as numbers).
    #[serde(default)]
    pub numeric_aggregate_cast: Option<String>,
    /// Bare columns of a grouped block are added to its GROUP BY.
    #[serde(default)]
    pub complete_group_by: bool,
    /// Qualifiers are respelled as their alias is declared (case-sensitive
    /// aliases).
    #[serde(default)]
    pub alias_case: bool,
    /// A derived table without an alias gets one.
    #[serde(default)]
    pub derived_table_alias: bool,
    /// `JOIN t` without `ON`/`USING` becomes `CROSS JOIN t`.
    #[serde(default)]
    pub join_without_constraint_is_cross: bool,
    /// `iif(c, a, b)` becomes `CASE WHEN c THEN a ELSE b END`.
    #[serde(default)]
    pub iif_to_case: bool,
    /// `a || b` becomes `<function>(a, b)` (MySQL: `concat`).
    #[serde(default)]
    pub concat_function: Option<String>,
    /// SQLite function (lower case) → this engine's name and extra arguments.
    #[serde(default)]
    pub functions: std::collections::BTreeMap<String, FunctionRename>,
    /// `strftime(format, value)`.
    #[serde(default)]
    pub strftime: Option<StrftimeRule>,
    /// `CAST(x AS type)`: SQLite's type name (lower case, without its
    /// arguments) → this engine's type with the same meaning (MySQL has no
    /// `CAST … AS TEXT`; MariaDB no `AS REAL`; PostgreSQL's `REAL` is
    /// single precision where SQLite's is double).
    #[serde(default)]
    pub casts: std::collections::BTreeMap<String, String>,
    /// Print the query back from its syntax tree even when no other step
    /// applies (MySQL: `MAX (x)` with a space is an unknown function unless
    /// `IGNORE_SPACE`; the printed form has none).
    #[serde(default)]
    pub reprint: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionRename {
    pub name: String,
    /// SQL literals appended to the arguments (`string_agg(x, ',')`).
    #[serde(default)]
    pub append_args: Vec<String>,
    /// Cast the first argument to this type first.
    #[serde(default)]
    pub cast_first: Option<String>,
}

/// `strftime(fmt, v)` → `function(CAST(v AS cast), fmt')` with each SQLite
/// conversion (`%Y`) replaced by this engine's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrftimeRule {
    pub function: String,
    #[serde(default)]
    pub cast: Option<String>,
    #[serde(default)]
    pub formats: std::collections::BTreeMap<String, String>,
}

/// Named capabilities; defaults are the SQL standard's answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    #[serde(default)]
    pub nulls_sort_first: bool,
    #[serde(default)]
    pub case_sensitive_like: bool,
    #[serde(default)]
    pub integer_division_truncates: bool,
    #[serde(default)]
    pub double_quotes_are_identifiers: bool,
    #[serde(default)]
    pub string_concat_operator: bool,
    /// `t.f` calls the function `f(t)` when `t` has no column `f`
    /// (PostgreSQL's attribute notation).
    #[serde(default)]
    pub attribute_calls: bool,
}

/// How the server's own lexer reads SQL text (the facts behind the guard's
/// comment and quoting checks). Defaults are the SQL standard's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lexical {
    /// `--` starts a comment only when followed by an ASCII space or
    /// control character (MySQL/MariaDB); otherwise always.
    #[serde(default)]
    pub dash_comment_needs_space: bool,
    /// `#` starts a comment to the end of the line (MySQL/MariaDB).
    #[serde(default)]
    pub hash_comments: bool,
    /// Characters that end a `--` (or `#`) comment, besides the end of the
    /// text (PostgreSQL: newline and carriage return).
    #[serde(default = "default_line_comment_ends")]
    pub line_comment_ends: String,
    /// `/* /* */ */` nests (PostgreSQL).
    #[serde(default)]
    pub nested_block_comments: bool,
    /// What follows `/*` to make a block comment code the server executes
    /// or obeys (MySQL `/*!`, MariaDB `/*M!`, optimizer hints `/*+`).
    #[serde(default)]
    pub executable_comments: Vec<String>,
    /// A backslash escapes the next character in `'…'` and `"…"` strings
    /// (MySQL without `NO_BACKSLASH_ESCAPES`).
    #[serde(default)]
    pub backslash_escapes: bool,
    /// `E'…'` strings with backslash escapes (PostgreSQL).
    #[serde(default)]
    pub escape_string_prefix: bool,
    /// `$tag$ … $tag$` strings (PostgreSQL).
    #[serde(default)]
    pub dollar_quotes: bool,
    /// `` `name` `` identifiers.
    #[serde(default)]
    pub backtick_identifiers: bool,
    /// `[name]` identifiers (SQLite).
    #[serde(default)]
    pub bracket_identifiers: bool,
    /// The server stops reading the text at a NUL byte (SQLite).
    #[serde(default)]
    pub nul_ends_text: bool,
    /// `U&"…"` identifiers and `U&'…'` strings with `\XXXX` and
    /// `\+XXXXXX` escapes, the escape character set by `UESCAPE '…'`
    /// (PostgreSQL).
    #[serde(default)]
    pub unicode_escapes: bool,
    /// `@@name` reads a server variable (MySQL, MariaDB).
    #[serde(default)]
    pub system_variables: bool,
}

fn default_line_comment_ends() -> String {
    "\n".to_string()
}

impl Default for Lexical {
    fn default() -> Self {
        Lexical {
            dash_comment_needs_space: false,
            hash_comments: false,
            line_comment_ends: default_line_comment_ends(),
            nested_block_comments: false,
            executable_comments: Vec::new(),
            backslash_escapes: false,
            escape_string_prefix: false,
            dollar_quotes: false,
            backtick_identifiers: false,
            bracket_identifiers: false,
            nul_ends_text: false,
            unicode_escapes: false,
            system_variables: false,
        }
    }
}

/// How an engine is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// In process, on the benchmark's own files.
    Embedded,
    /// Over a URL, on copies migrated there.
    #[default]
    Server,
    /// In process, on copies migrated into files of its own (one file per
    /// database) in a folder its URL names (`duckdb:/path/to/folder`).
    Files,
}

/// A command line that runs one query on an engine's copy with the
/// engine's own client (`rerun` in a dialect file). In `command`, `{sql}`
/// is the query (after `namespace`), shell-quoted; `{file}` the benchmark's
/// SQLite file, shell-quoted; `{namespace}` the copy's namespace as it is,
/// shell-quoted; `{url_env}` the environment variable holding the engine's
/// URL (`SQLWITNESS_POSTGRES_URL`); `{client_options}` the client's
/// connection options, each shell-quoted after a space (the mysql client,
/// which takes no URL). In `namespace`, `{ns}` is the copy's namespace
/// quoted as an identifier of the engine.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rerun {
    pub command: String,
    /// What goes before the query so that it reads the copy's namespace
    /// (`SET search_path TO {ns}; `).
    #[serde(default)]
    pub namespace: Option<String>,
}

/// A server's container: the image a run starts unless `--image` names
/// another, the port the server listens on inside it, its environment and
/// its health check, in which `{user}`, `{password}` and `{database}` stand
/// for the run's administrative login.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Container {
    /// `repository:tag`.
    pub image: String,
    pub port: u16,
    /// `[NAME, value]` pairs, in order.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// The command run inside the container; exit 0 is healthy.
    pub health: Vec<String>,
}

impl Container {
    /// `text` with the placeholders filled in.
    pub fn fill(text: &str, user: &str, password: &str, database: &str) -> String {
        text.replace("{user}", user)
            .replace("{password}", password)
            .replace("{database}", database)
    }
}

/// A name a dialect file gives (its adapter, its grammar), kept once for
/// the process: the same text is the same `&'static str` however many
/// times a file is loaded.
fn intern(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(n);
    n
}

/// A name read from a dialect file: a lower-case word (a-z, 0-9, `_`).
fn word<'de, D: serde::Deserializer<'de>>(d: D, what: &str) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    let ok = s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !ok {
        return Err(serde::de::Error::custom(format!(
            "{what} `{s}` is not a lower-case word (a-z, 0-9, _)"
        )));
    }
    Ok(intern(&s))
}

/// `postgres` → `Postgres`, as `{:?}` prints a name.
fn capitalised(f: &mut std::fmt::Formatter<'_>, name: &str) -> std::fmt::Result {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => write!(f, "{}{}", c.to_ascii_uppercase(), chars.as_str()),
        None => Ok(()),
    }
}

/// The SQL grammar `sqlwitness-sql` reads an engine's SQL in: the name of
/// a `sqlparser` dialect (`sqlwitness_sql::parser_dialect`). The grammars
/// the rewrites and translations treat as families of their own are
/// constants; any other name `sqlparser` knows is read with its dialect
/// and rewritten as `generic`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grammar(&'static str);

#[allow(non_upper_case_globals)]
impl Grammar {
    pub const Sqlite: Grammar = Grammar("sqlite");
    pub const Postgres: Grammar = Grammar("postgres");
    pub const Mysql: Grammar = Grammar("mysql");
    pub const Generic: Grammar = Grammar("generic");

    /// The grammar's name, as the dialect file writes it.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl Default for Grammar {
    fn default() -> Grammar {
        Grammar::Generic
    }
}

impl std::fmt::Debug for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        capitalised(f, self.0)
    }
}

impl<'de> Deserialize<'de> for Grammar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        word(d, "grammar").map(Grammar)
    }
}

/// The adapter module of `sqlwitness-engines` that runs an engine: the name
/// its family is registered under there. The families the engines crate
/// itself tells apart are constants; another is named by its module
/// ([`Adapter::named`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Adapter(&'static str);

#[allow(non_upper_case_globals)]
impl Adapter {
    pub const Sqlite: Adapter = Adapter("sqlite");
    pub const Postgres: Adapter = Adapter("postgres");
    pub const Mysql: Adapter = Adapter("mysql");

    /// The adapter registered as `name`.
    pub const fn named(name: &'static str) -> Adapter {
        Adapter(name)
    }

    /// The adapter's name, as the dialect file writes it.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Debug for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        capitalised(f, self.0)
    }
}

impl<'de> Deserialize<'de> for Adapter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        word(d, "adapter").map(Adapter)
    }
}

/// `version_contains` / `version_lacks`: substrings of the server's version
/// string (case-insensitive). MySQL and MariaDB speak one protocol; this is
/// how a URL that reaches the other one is refused.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerIdentity {
    #[serde(default)]
    pub version_contains: Vec<String>,
    #[serde(default)]
    pub version_lacks: Vec<String>,
}

impl ServerIdentity {
    /// True when a server reporting `version` is this engine.
    pub fn matches(&self, version: &str) -> bool {
        let v = version.to_ascii_lowercase();
        self.version_contains
            .iter()
            .all(|s| v.contains(&s.to_ascii_lowercase()))
            && !self
                .version_lacks
                .iter()
                .any(|s| v.contains(&s.to_ascii_lowercase()))
    }
}

/// Identifier quoting and length.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identifiers {
    /// The quote character (`"` or `` ` ``); doubled inside a name.
    pub quote: char,
    /// The longest name in bytes (PostgreSQL 63, MySQL 64).
    pub max_length: usize,
    /// Whether the server cuts a longer name to `max_length` silently
    /// (PostgreSQL) instead of refusing it (MySQL): two long names may
    /// then become one.
    #[serde(default)]
    pub truncate: bool,
    /// Whether a migrated benchmark's names are quoted as they are
    /// (false: the engine reads the original files by their own names).
    #[serde(default = "yes")]
    pub rewrite: bool,
    /// How a name written in a query finds a schema or table name.
    #[serde(default)]
    pub case: NameCase,
}

fn yes() -> bool {
    true
}

/// How the server compares a name written in a query with the name of a
/// schema or table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameCase {
    /// As written, quoted or not (MySQL and MariaDB on Linux:
    /// `lower_case_table_names = 0`).
    #[default]
    Exact,
    /// Unquoted names in lower case, quoted names as written (PostgreSQL).
    FoldLower,
    /// ASCII letters in any case (SQLite).
    Insensitive,
}

impl Identifiers {
    /// `name` quoted.
    pub fn quote(&self, name: &str) -> String {
        let q = self.quote;
        let doubled: String = [q, q].iter().collect();
        format!("{q}{}{q}", name.replace(q, &doubled))
    }

    /// True when `written` (quoted or not, its quotes removed) names
    /// `name` on this server.
    pub fn names(&self, written: &str, quoted: bool, name: &str) -> bool {
        match self.case {
            NameCase::Exact => written == name,
            NameCase::FoldLower if quoted => written == name,
            NameCase::FoldLower => written.to_ascii_lowercase() == name,
            NameCase::Insensitive => written.eq_ignore_ascii_case(name),
        }
    }
}

/// The server's own namespaces: never dropped, created or written by a
/// migration, whatever a benchmark calls its databases.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Namespaces {
    /// Names compared case-insensitively (`mysql`, `pg_catalog`).
    #[serde(default)]
    pub reserved: Vec<String>,
    /// Prefixes the server keeps for itself (`pg_`).
    #[serde(default)]
    pub reserved_prefixes: Vec<String>,
}

impl Namespaces {
    /// Why `name` may not be a copy's namespace, if it may not.
    pub fn refuses(&self, name: &str) -> Option<String> {
        let lower = name.to_lowercase();
        if let Some(r) = self.reserved.iter().find(|r| r.to_lowercase() == lower) {
            return Some(format!("`{name}` is the server's own namespace `{r}`"));
        }
        self.reserved_prefixes
            .iter()
            .find(|p| lower.starts_with(&p.to_lowercase()))
            .map(|p| format!("`{name}` starts with `{p}`, a prefix the server keeps for itself"))
    }
}

/// How a dialect feature runs on this engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    Yes,
    No,
    /// Runs, with another meaning (MySQL `length` counts bytes, PostgreSQL
    /// `LIKE` is case-sensitive).
    Differs,
}

/// Feature names (as `sqlwitness_sql::feature_table` spells them) that do
/// not run, or run with another meaning.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureSupport {
    #[serde(default)]
    pub unsupported: Vec<String>,
    #[serde(default)]
    pub differs: Vec<String>,
}

/// `{ code: "42703", contains: "…", class: undefined_column }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorRule {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub contains: Option<String>,
    pub class: ErrorClass,
}

/// Target column type for each storage kind a migrated column can get.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeMap {
    pub integer: String,
    pub real: String,
    pub numeric: String,
    pub text: String,
    pub blob: String,
    pub boolean: String,
    pub date: String,
    pub timestamp: String,
    /// A key on a `text` column needs a sized type (MySQL and MariaDB index
    /// no TEXT/BLOB without a prefix length): the widest VARCHAR a key
    /// column may get; longer text leaves the key undeclared.
    #[serde(default)]
    pub key_varchar_max: Option<usize>,
    /// Text values cannot hold NUL characters (PostgreSQL): they are removed
    /// and the change recorded.
    #[serde(default)]
    pub text_rejects_nul: bool,
    /// A date or datetime with a zero month or day (`1948-01-00`,
    /// `0000-00-00`: what a MySQL-family dump may keep) is held as written
    /// (MySQL, MariaDB: the migration's session leaves out
    /// `NO_ZERO_IN_DATE` and `NO_ZERO_DATE`).
    #[serde(default)]
    pub zero_in_dates: bool,
    /// Foreign keys are declared only in `CREATE TABLE` (DuckDB has no
    /// `ALTER TABLE … ADD FOREIGN KEY`), and a migration adds its keys
    /// after the load: none is carried, each named with why.
    #[serde(default)]
    pub foreign_keys_at_create_only: bool,
}

/// Merges `child` over `base`: maps key by key, anything else replaced.
fn merge(base: &mut serde_json::Value, child: serde_json::Value) {
    match (base, child) {
        (serde_json::Value::Object(b), serde_json::Value::Object(c)) => {
            for (k, v) in c {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

impl Dialect {
    /// Parses a dialect file's text; `file` names it in errors. A file
    /// that `extends` another is resolved among the shipped dialects.
    pub fn from_yaml(file: &str, text: &str) -> Result<Dialect, DialectError> {
        Dialect::from_yaml_with(file, text, &|name| {
            crate::builtin_text(name).map(|(f, t)| (f.to_string(), t.to_string()))
        })
    }

    /// [`Dialect::from_yaml`], with `base(name)` giving the file name and
    /// text of the dialect an `extends` names.
    pub fn from_yaml_with(
        file: &str,
        text: &str,
        base: &dyn Fn(&str) -> Option<(String, String)>,
    ) -> Result<Dialect, DialectError> {
        let parse_err = |message: String| DialectError::Parse {
            file: file.to_string(),
            message,
        };
        let raw: serde_json::Value =
            serde_saphyr::from_str(text).map_err(|e| parse_err(e.to_string()))?;
        let extends = raw
            .get("extends")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let mut d: Dialect = match extends {
            // The document read once; read again as YAML where the value
            // does not fit (a scalar YAML reads as text), and to place an
            // error (the YAML reader names the line).
            None => match serde_json::from_value(raw) {
                Ok(d) => d,
                Err(_) => serde_saphyr::from_str(text).map_err(|e| parse_err(e.to_string()))?,
            },
            Some(name) => {
                let (base_file, base_text) = base(&name)
                    .ok_or_else(|| parse_err(format!("extends: no dialect named `{name}`")))?;
                let mut merged: serde_json::Value = serde_saphyr::from_str(&base_text)
                    .map_err(|e| parse_err(format!("{base_file}: {e}")))?;
                if merged.get("extends").is_some() {
                    return Err(parse_err(format!(
                        "extends: `{name}` extends another dialect (one level only)"
                    )));
                }
                merge(&mut merged, raw);
                serde_json::from_value(merged).map_err(|e| parse_err(e.to_string()))?
            }
        };
        for f in d
            .denied_functions
            .iter_mut()
            .chain(&mut d.denied_function_prefixes)
            .chain(&mut d.denied_types)
        {
            *f = f.to_ascii_lowercase();
        }
        d.allowed_functions = std::mem::take(&mut d.allowed_functions)
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        if let Some(both) = d.allowed_functions.keys().find(|f| d.denies_function(f)) {
            return Err(parse_err(format!(
                "allowed_functions: `{both}` is denied too (denied_functions or denied_function_prefixes)"
            )));
        }
        d.sized_functions = std::mem::take(&mut d.sized_functions)
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        if let Some(map) = &mut d.dump_types {
            map.validate()
                .map_err(|(key, message)| parse_err(format!("{key}: {message}")))?;
        }
        for rule in &d.errors {
            if rule.code.is_none() && rule.contains.is_none() {
                return Err(DialectError::Parse {
                    file: file.to_string(),
                    message: format!(
                        "errors: a rule for class `{}` needs `code` or `contains`",
                        rule.class
                    ),
                });
            }
        }
        Ok(d)
    }

    /// Reads and parses a dialect file; a dialect it `extends` is read
    /// from the same directory, or else taken from the shipped ones.
    pub fn load_file(path: &Path) -> Result<Dialect, DialectError> {
        let file = path.display().to_string();
        let limit = sqlwitness_core::input::MANIFEST_FILE;
        let text = sqlwitness_core::read_input_to_string(path, limit).map_err(|source| {
            DialectError::Io {
                file: file.clone(),
                source,
            }
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Dialect::from_yaml_with(&file, &text, &|name| {
            let sibling = dir.join(format!("{name}.yaml"));
            match sqlwitness_core::read_input_to_string(&sibling, limit) {
                Ok(t) => Some((sibling.display().to_string(), t)),
                Err(_) => crate::builtin_text(name).map(|(f, t)| (f.to_string(), t.to_string())),
            }
        })
    }

    /// How `feature` (a `sqlwitness_sql::feature_table` name) runs here.
    pub fn feature_support(&self, feature: &str) -> Support {
        if self.features.unsupported.iter().any(|f| f == feature) {
            Support::No
        } else if self.features.differs.iter().any(|f| f == feature) {
            Support::Differs
        } else {
            Support::Yes
        }
    }

    /// The statement that limits the next statement to `timeout`, from
    /// `time_limit`.
    pub fn time_limit_sql(&self, timeout: std::time::Duration) -> Option<String> {
        self.time_limit.as_ref().map(|t| {
            t.replace("{millis}", &timeout.as_millis().max(1).to_string())
                .replace(
                    "{seconds}",
                    &format!("{:.3}", timeout.as_secs_f64().max(0.001)),
                )
        })
    }

    /// The class of an error from the engine's code and message, by the
    /// first matching rule; `other` when none matches.
    pub fn classify(&self, code: Option<&str>, message: &str) -> ErrorClass {
        let lower = message.to_ascii_lowercase();
        self.errors
            .iter()
            .find(|r| {
                let code_ok = match (&r.code, code) {
                    (Some(want), Some(got)) => want.eq_ignore_ascii_case(got),
                    (Some(_), None) => false,
                    (None, _) => true,
                };
                let msg_ok = r
                    .contains
                    .as_ref()
                    .is_none_or(|c| lower.contains(&c.to_ascii_lowercase()));
                code_ok && msg_ok
            })
            .map(|r| r.class)
            .unwrap_or(ErrorClass::Other)
    }

    /// True when a predicted query may not call `name` on this engine: a
    /// denied function, or one of a denied family (any letter case).
    pub fn denies_function(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.denied_functions.contains(&name)
            || self
                .denied_function_prefixes
                .iter()
                .any(|p| name.starts_with(p.as_str()))
    }

    /// True when `name` (any letter case) is a type a predicted query may
    /// not name.
    pub fn denies_type(&self, name: &str) -> bool {
        self.denied_types.contains(&name.to_ascii_lowercase())
    }
}
