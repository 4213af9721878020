//! Schema facts the readers of a query's meaning use (the nondeterminism
//! rules, translation, temporal comparisons): tables, columns, keys.
//!
//! Built by the caller (the audit crate reads them from the SQLite file's
//! `pragma table_info / index_list / index_info / foreign_key_list`, so they
//! hold for any benchmark). Names are looked up ASCII-case-insensitively, as
//! SQLite resolves them.

/// One foreign key: `columns` of the owning table reference `ref_columns`
/// of `ref_table`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub ref_table: String,
    pub ref_columns: Vec<String>,
}

/// One table: its columns and the column sets that are unique (the primary
/// key and every unique constraint or unique index).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableInfo {
    pub name: String,
    pub columns: Vec<String>,
    /// Declared types, parallel to `columns` (empty text when undeclared).
    pub types: Vec<String>,
    /// Primary-key columns, in key order; empty when the table has none.
    pub primary_key: Vec<String>,
    /// Unique constraints and unique indexes (other than the primary key).
    pub uniques: Vec<Vec<String>>,
    pub foreign_keys: Vec<ForeignKey>,
}

impl TableInfo {
    /// Every column set that is unique in this table: the primary key and
    /// the unique constraints.
    pub fn keys(&self) -> impl Iterator<Item = &Vec<String>> {
        std::iter::once(&self.primary_key)
            .filter(|k| !k.is_empty())
            .chain(self.uniques.iter().filter(|k| !k.is_empty()))
    }

    pub fn has_column(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c.eq_ignore_ascii_case(name))
    }

    /// SQLite's affinity of a column's declared type (§3.1 of "Datatypes
    /// In SQLite"): `integer`, `text`, `blob`, `real` or `numeric`.
    pub fn affinity(&self, column: &str) -> Option<&'static str> {
        let i = self
            .columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(column))?;
        let t = self
            .types
            .get(i)
            .map(|t| t.to_ascii_uppercase())
            .unwrap_or_default();
        Some(if t.contains("INT") {
            "integer"
        } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
            "text"
        } else if t.contains("BLOB") || t.is_empty() {
            "blob"
        } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
            "real"
        } else {
            "numeric"
        })
    }

    /// The column's exact spelling.
    pub fn column(&self, name: &str) -> Option<&str> {
        self.columns
            .iter()
            .find(|c| c.eq_ignore_ascii_case(name))
            .map(String::as_str)
    }
}

/// The schema of one database.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaInfo {
    pub tables: Vec<TableInfo>,
}

impl SchemaInfo {
    pub fn new(tables: Vec<TableInfo>) -> Self {
        SchemaInfo { tables }
    }

    /// The table named `name` (ASCII case-insensitive).
    pub fn table(&self, name: &str) -> Option<&TableInfo> {
        self.tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }
}
