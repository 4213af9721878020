//! `dump_types`: how `sqlwitness import` carries a dump's column types into
//! SQLite (docs/dumps.md, "The type map"): per source base type, the SQLite
//! declared type and storage class with what the rendering changes, or why
//! the type is refused.
//!
//! What stays code (`sqlwitness_migrate::map_type`), because it reads the
//! shape of a declared type rather than its name: arrays (`integer[]`,
//! `_int4`) and ranges (`int4range`, `tstzmultirange`) are refused, and the
//! base name is cut from the declared type (lower case, without its
//! parenthesised list and a trailing `unsigned`). The precision and
//! `unsigned` alternatives are data here (`wide`, `unsigned`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How a column's values are stored in SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SqliteStorage {
    Integer,
    Real,
    /// REAL when exact, else TEXT.
    Decimal,
    Text,
    Blob,
}

/// The declared type a carried column gets in SQLite.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "String")]
pub enum SqliteDeclared {
    /// `as_declared`: the source's declared type, as SQLite reads one
    /// (words, then at most one parenthesised list at the end:
    /// `bigint(20) unsigned` → `bigint unsigned`).
    AsDeclared,
    /// `untyped`: no declared type (no affinity: each value stays as
    /// stored).
    Untyped,
    /// Any other word: that type (`TEXT`, `BOOLEAN`).
    Named(String),
}

impl From<String> for SqliteDeclared {
    fn from(s: String) -> Self {
        match s.as_str() {
            "as_declared" => SqliteDeclared::AsDeclared,
            "untyped" => SqliteDeclared::Untyped,
            _ => SqliteDeclared::Named(s),
        }
    }
}

/// A carried type: `{ sqlite, storage, note? }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpCarry {
    pub sqlite: SqliteDeclared,
    pub storage: SqliteStorage,
    /// What the rendering loses or changes, for the import report.
    #[serde(default)]
    pub note: Option<String>,
}

/// `wide`: the carry for a column whose precision is not written or is
/// over `above` digits (`numeric`, `numeric(30,10)`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpWide {
    pub above: u32,
    pub sqlite: SqliteDeclared,
    pub storage: SqliteStorage,
    #[serde(default)]
    pub note: Option<String>,
}

/// One rule: the base types it names, and either how they are carried
/// (`sqlite`, `storage`, `note`, with the alternatives `unsigned`, `wide`
/// and `fallback`) or why they are refused (`refuse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpTypeRule {
    /// Base type names, lower case (`bigint`, `double precision`).
    pub types: Vec<String>,
    #[serde(default)]
    pub sqlite: Option<SqliteDeclared>,
    #[serde(default)]
    pub storage: Option<SqliteStorage>,
    #[serde(default)]
    pub note: Option<String>,
    /// The carry when the declared type says `unsigned` (MySQL `bigint
    /// unsigned`: a value past 2⁶³−1 fits no SQLite INTEGER).
    #[serde(default)]
    pub unsigned: Option<DumpCarry>,
    /// The carry when the precision is not written or is over a bound.
    #[serde(default)]
    pub wide: Option<DumpWide>,
    /// With `sqlite: as_declared`: the declared type to use instead when
    /// SQLite's affinity rules would not read the source's declared type
    /// with this rule's storage.
    #[serde(default)]
    pub fallback: Option<String>,
    /// Why the types are refused; the report reads "`<type>` <refuse>".
    /// A refused column is left out of its table (the table keeps its
    /// other columns), and named.
    #[serde(default)]
    pub refuse: Option<String>,
    /// With a carry: how the carried form degrades the type (geometry as
    /// WKT, a full-text vector as its text). A degraded column is named in
    /// the import report and in every copy's report; a query that reads it
    /// is not portable to an engine that holds it degraded.
    #[serde(default)]
    pub degraded: Option<String>,
}

/// The `dump_types` section.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpTypes {
    /// How a type that no rule names is carried (enum and other named
    /// types: the server's text rendering).
    pub default: DumpCarry,
    /// Rules by name (a name, not a list, so that a dialect that
    /// `extends` another can replace one rule).
    #[serde(default)]
    pub rules: BTreeMap<String, DumpTypeRule>,
}

/// What the map decides for one base type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpTypeDecision<'a> {
    Carry(&'a DumpTypeRule),
    Default(&'a DumpCarry),
    Refuse(&'a str),
}

impl DumpTypes {
    /// The rule or default for `base` (lower case, as
    /// `sqlwitness_migrate::map_type` cuts it).
    pub fn decide(&self, base: &str) -> DumpTypeDecision<'_> {
        match self
            .rules
            .values()
            .find(|r| r.types.iter().any(|t| t == base))
        {
            Some(r) => match &r.refuse {
                Some(why) => DumpTypeDecision::Refuse(why),
                None => DumpTypeDecision::Carry(r),
            },
            None => DumpTypeDecision::Default(&self.default),
        }
    }

    /// Lower-cases the type names and checks each rule carries or refuses,
    /// and that no type is named twice; an error is `(key path, message)`.
    pub(crate) fn validate(&mut self) -> Result<(), (String, String)> {
        let named_empty = |d: Option<&SqliteDeclared>| matches!(d, Some(SqliteDeclared::Named(n)) if n.trim().is_empty());
        const EMPTY: &str = "an empty type: write `untyped` for none";
        if named_empty(Some(&self.default.sqlite)) {
            return Err(("dump_types.default.sqlite".into(), EMPTY.into()));
        }
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for (name, rule) in &mut self.rules {
            let key = format!("dump_types.rules.{name}");
            for (sub, d) in [
                ("sqlite", rule.sqlite.as_ref()),
                ("unsigned.sqlite", rule.unsigned.as_ref().map(|u| &u.sqlite)),
                ("wide.sqlite", rule.wide.as_ref().map(|w| &w.sqlite)),
            ] {
                if named_empty(d) {
                    return Err((format!("{key}.{sub}"), EMPTY.into()));
                }
            }
            if rule.types.is_empty() {
                return Err((key, "`types` names no type".into()));
            }
            let carry = rule.sqlite.is_some() || rule.storage.is_some();
            match (&rule.refuse, carry) {
                (Some(_), true) => {
                    return Err((key, "`refuse` and `sqlite`/`storage` both given".into()))
                }
                (Some(_), false)
                    if rule.note.is_some()
                        || rule.degraded.is_some()
                        || rule.unsigned.is_some()
                        || rule.wide.is_some()
                        || rule.fallback.is_some() =>
                {
                    return Err((key, "a refused type takes only `types` and `refuse`".into()))
                }
                (None, _) if rule.sqlite.is_none() || rule.storage.is_none() => {
                    return Err((
                        key,
                        "needs `sqlite` and `storage` (carried) or `refuse`".into(),
                    ))
                }
                _ => {}
            }
            if rule.fallback.is_some() && rule.sqlite != Some(SqliteDeclared::AsDeclared) {
                return Err((
                    format!("{key}.fallback"),
                    "only with `sqlite: as_declared`".into(),
                ));
            }
            for t in &mut rule.types {
                *t = t.trim().to_ascii_lowercase();
                if let Some(other) = seen.insert(t.clone(), name.clone()) {
                    return Err((
                        format!("{key}.types"),
                        format!("`{t}` is named by rule `{other}` too"),
                    ));
                }
            }
        }
        Ok(())
    }
}
