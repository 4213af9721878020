//! sqlwitness-dialect: the facts about each engine, loaded from
//! `dialects/<engine>.yaml` (parsed with `serde-saphyr`).
//!
//! Code asks a [`Dialect`] by name (`dialect.capabilities.nulls_sort_first`,
//! `dialect.classify(code, message)`) and never tests which engine it is.
//! The YAML files are embedded at build time so the binary works from any
//! directory; [`Dialect::load_file`] reads an edited copy instead.

mod column_model;
mod dump_types;
mod model;

pub use column_model::{
    inline_labels, ColumnModel, ColumnType, DecimalMax, Kind, MissingCollation, Reads, TargetType,
    TypeRule, TypeShape,
};
pub use dump_types::{
    DumpCarry, DumpTypeDecision, DumpTypeRule, DumpTypes, DumpWide, SqliteDeclared, SqliteStorage,
};
pub use model::{
    Adapter, Capabilities, Container, Dialect, DialectError, ErrorRule, FeatureSupport,
    FunctionRename, Grammar, Identifiers, Lexical, NameCase, Namespaces, Rerun, ServerIdentity,
    StrftimeRule, Support, Translations, Transport, TypeMap,
};

use sqlwitness_core::EngineKind;

// The shipped dialect files, `SHIPPED`: every `dialects/*.yaml`, embedded
// by build.rs.
include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// The shipped file of the engine named `name`: `(file, text)`.
pub(crate) fn builtin_text(name: &str) -> Option<(&'static str, &'static str)> {
    SHIPPED
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, f, t)| (*f, *t))
}

/// The built-in dialect of an engine, from the YAML shipped in `dialects/`.
///
/// # Panics
/// Never for the shipped files: a test loads each of them.
pub fn builtin(kind: EngineKind) -> Dialect {
    shipped(kind).clone()
}

/// The engine whose dialect `kind`'s file extends (MariaDB → MySQL), if any.
pub fn parent(kind: EngineKind) -> Option<EngineKind> {
    shipped(kind).extends.as_deref().and_then(EngineKind::parse)
}

/// `kind`'s entry of `map`, else the entry of the engine its dialect
/// extends: a MySQL dialect gold or prediction file serves MariaDB.
pub fn own_or_parent<T>(
    map: &std::collections::BTreeMap<EngineKind, T>,
    kind: EngineKind,
) -> Option<&T> {
    map.get(&kind)
        .or_else(|| parent(kind).and_then(|p| map.get(&p)))
}

/// Dialects registered at run time with their engines ([`register`]).
static REGISTERED: std::sync::RwLock<Vec<(EngineKind, &'static Dialect)>> =
    std::sync::RwLock::new(Vec::new());

/// Why [`register`] refused a dialect.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error(transparent)]
    Name(#[from] sqlwitness_core::RegisterError),
    #[error("{0}: a registered engine runs in process (`transport: embedded`) on a registered adapter (`factory: NAME`)")]
    NotPluggable(String),
}

/// Adds an engine to the registry from its dialect (its `name` is the
/// engine's): from then on every command knows it by that name, asks this
/// dialect about it, and opens it with the adapter its `factory` names
/// (registered in `sqlwitness-engines`). A registered engine is embedded:
/// it reads the benchmark's files, as SQLite does.
pub fn register(dialect: Dialect) -> Result<EngineKind, RegisterError> {
    if dialect.transport != Transport::Embedded || dialect.factory.is_none() {
        return Err(RegisterError::NotPluggable(dialect.name));
    }
    let kind = EngineKind::register(&dialect.name)?;
    REGISTERED
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .push((kind, Box::leak(Box::new(dialect))));
    Ok(kind)
}

/// The dialect of an engine: a shipped file (parsed once per process, when
/// its engine is first asked about) or the one it was registered with.
///
/// # Panics
/// Never for the shipped files (a test loads each of them) or a
/// registered engine; an [`EngineKind`] is made by the registry only.
pub fn shipped(kind: EngineKind) -> &'static Dialect {
    use std::sync::OnceLock;
    static PARSED: OnceLock<Vec<(EngineKind, OnceLock<Dialect>)>> = OnceLock::new();
    let all = PARSED.get_or_init(|| {
        EngineKind::BUILTIN
            .iter()
            .map(|&k| (k, OnceLock::new()))
            .collect()
    });
    if let Some((_, d)) = all.iter().find(|(k, _)| *k == kind) {
        return d.get_or_init(|| {
            let (file, text) =
                builtin_text(kind.as_str()).expect("every engine has a dialect file");
            Dialect::from_yaml(file, text).expect("shipped dialect file is valid")
        });
    }
    REGISTERED
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, d)| *d)
        .expect("every engine has a dialect")
}

/// What an engine's dialect says about it, asked of the engine.
pub trait EngineFacts {
    /// The engine's dialect ([`shipped`]).
    fn dialect(self) -> &'static Dialect;
    /// True for an engine reached over a URL, holding migrated copies
    /// (`transport: server`): logins, containers and services are its.
    #[allow(clippy::wrong_self_convention)] // `EngineKind` is `Copy`
    fn is_server(self) -> bool;
    /// True for an engine that reads copies migrated to it, on a server or
    /// in files of its own (`transport: server` or `files`), not the
    /// benchmark's own files: it needs a URL (a files engine has a default)
    /// and a migration.
    fn holds_copies(self) -> bool;
}

impl EngineFacts for EngineKind {
    fn dialect(self) -> &'static Dialect {
        shipped(self)
    }

    fn is_server(self) -> bool {
        shipped(self).transport == Transport::Server
    }

    fn holds_copies(self) -> bool {
        shipped(self).transport != Transport::Embedded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::ErrorClass;

    #[test]
    fn only_embedded_engines_with_a_factory_register() {
        let server = Dialect::from_yaml(
            "x.yaml",
            "name: unit_server\nadapter: postgres\nidentifiers: {quote: '\"', max_length: 9}\n",
        )
        .unwrap();
        assert!(matches!(
            register(server),
            Err(RegisterError::NotPluggable(_))
        ));
        let ok = Dialect::from_yaml(
            "x.yaml",
            "name: unit_embedded\nadapter: sqlite\nfactory: unit\ntransport: embedded\nidentifiers: {quote: '\"', max_length: 9}\n",
        )
        .unwrap();
        let kind = register(ok).unwrap();
        assert_eq!(shipped(kind).name, "unit_embedded");
        assert!(!kind.is_server());
        assert!(EngineKind::Postgres.is_server());
        assert!(!EngineKind::Sqlite.is_server());
    }

    #[test]
    fn a_dialect_read_once_is_the_dialect_read_as_yaml() {
        // `from_yaml` reads a file's document once and takes the dialect
        // from that value: the same dialect as reading the YAML typed.
        for kind in EngineKind::BUILTIN {
            let (file, text) = builtin_text(kind.as_str()).unwrap();
            let raw: serde_json::Value = serde_saphyr::from_str(text).unwrap();
            if raw.get("extends").is_some() {
                continue;
            }
            let from_value: Dialect = serde_json::from_value(raw).unwrap();
            let typed: Dialect = serde_saphyr::from_str(text).unwrap();
            assert_eq!(format!("{from_value:?}"), format!("{typed:?}"), "{file}");
        }
    }

    #[test]
    fn shipped_dialects_load() {
        for kind in EngineKind::BUILTIN {
            let d = builtin(kind);
            assert_eq!(d.name, kind.as_str());
            assert!(!d.errors.is_empty());
        }
    }

    #[test]
    fn classification_follows_the_tables() {
        let pg = builtin(EngineKind::Postgres);
        assert_eq!(
            pg.classify(Some("42703"), "column \"x\" does not exist"),
            ErrorClass::UndefinedColumn
        );
        assert_eq!(
            pg.classify(Some("42883"), "operator does not exist: text = integer"),
            ErrorClass::TypeMismatch
        );
        assert_eq!(
            pg.classify(Some("42883"), "function strftime(unknown) does not exist"),
            ErrorClass::UndefinedFunction
        );
        assert_eq!(pg.classify(Some("99999"), "whatever"), ErrorClass::Other);
        let my = builtin(EngineKind::Mysql);
        assert_eq!(my.classify(Some("1055"), "..."), ErrorClass::GroupBy);
        let lite = builtin(EngineKind::Sqlite);
        assert_eq!(
            lite.classify(None, "no such column: foo"),
            ErrorClass::UndefinedColumn
        );
        assert_eq!(
            lite.classify(None, "near \"x\": syntax error"),
            ErrorClass::Syntax
        );
        assert!(lite.denies_function("LOAD_EXTENSION"));
    }

    #[test]
    fn denied_families_and_allowed_functions() {
        let pg = builtin(EngineKind::Postgres);
        assert!(pg.denies_function("PG_LOGICAL_EMIT_MESSAGE"));
        assert!(pg.denies_function("pg_stat_get_activity"));
        assert!(pg.denies_function("dblink_exec"));
        assert!(!pg.denies_function("pg_sleep"));
        assert!(pg.allowed_functions.contains_key("pg_sleep"));
        assert!(pg.denies_type("RegClass"));
        let yaml = "name: x\nadapter: sqlite\nidentifiers: {quote: '\"', max_length: 9}\n\
                    denied_function_prefixes: [Pg_]\nallowed_functions: {pg_sleep: waits}\n";
        let err = Dialect::from_yaml("x.yaml", yaml).unwrap_err().to_string();
        assert!(
            err.contains("pg_sleep") && err.contains("denied too"),
            "{err}"
        );
    }

    #[test]
    fn names_compare_as_each_server_resolves_them() {
        let pg = builtin(EngineKind::Postgres).identifiers;
        assert!(pg.names("Car_1", false, "car_1"));
        assert!(!pg.names("Car_1", true, "car_1"));
        assert!(pg.names("Car_1", true, "Car_1"));
        let my = builtin(EngineKind::Mysql).identifiers;
        assert!(!my.names("Car_1", false, "car_1"));
        assert!(my.names("car_1", true, "car_1"));
        let lite = builtin(EngineKind::Sqlite).identifiers;
        assert!(lite.names("MAIN", true, "main"));
    }

    #[test]
    fn unknown_keys_are_errors_naming_file_and_key() {
        let err = Dialect::from_yaml(
            "x.yaml",
            "name: x\nsession: []\nerrors: []\ncapabilities: {nulls_sort_first: true, bogus: 1}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("x.yaml"), "{err}");
        assert!(err.contains("bogus"), "{err}");
    }

    #[test]
    fn dump_types_are_validated_naming_the_key() {
        let head = "name: x\nadapter: mysql\nidentifiers: {quote: '`', max_length: 9}\n\
                    dump_types:\n  default: {sqlite: TEXT, storage: text}\n  rules:\n";
        let err = |rules: &str| {
            Dialect::from_yaml("x.yaml", &format!("{head}{rules}"))
                .unwrap_err()
                .to_string()
        };
        let e = err("    a: {types: [int], sqlite: as_declared, storage: integer, bogus: 1}\n");
        assert!(e.contains("x.yaml") && e.contains("bogus"), "{e}");
        let e = err("    a: {types: [int], sqlite: TEXT, storage: text, refuse: no}\n");
        assert!(
            e.contains("dump_types.rules.a") && e.contains("both"),
            "{e}"
        );
        let e = err("    a: {types: [int], storage: text}\n");
        assert!(
            e.contains("dump_types.rules.a") && e.contains("needs"),
            "{e}"
        );
        let e = err("    a: {types: [Int], sqlite: TEXT, storage: text}\n    b: {types: [int], refuse: no}\n");
        assert!(
            e.contains("dump_types.rules.b.types") && e.contains("`a`"),
            "{e}"
        );
        let e = err("    a: {types: [int], sqlite: TEXT, storage: text, fallback: TEXT}\n");
        assert!(e.contains("dump_types.rules.a.fallback"), "{e}");
        let e = err("    a: {types: [int], sqlite: '', storage: text}\n");
        assert!(e.contains("dump_types.rules.a.sqlite"), "{e}");
        let e = err("    a: {types: [int], sqlite: TEXT, storage: string}\n");
        assert!(e.contains("x.yaml") && e.contains("string"), "{e}");
    }

    #[test]
    fn mariadb_adds_a_dump_type_rule_to_mysqls() {
        let my = builtin(EngineKind::Mysql).dump_types.unwrap();
        let maria = builtin(EngineKind::Mariadb).dump_types.unwrap();
        assert!(!my.rules.contains_key("uuid"));
        assert_eq!(maria.rules.len(), my.rules.len() + 1);
        assert!(matches!(maria.decide("uuid"), DumpTypeDecision::Carry(_)));
        assert!(matches!(
            maria.decide("point"),
            DumpTypeDecision::Carry(r) if r.degraded.is_some()
        ));
        assert!(matches!(my.decide("uuid"), DumpTypeDecision::Default(_)));
        assert!(builtin(EngineKind::Sqlite).dump_types.is_none());
    }
}
