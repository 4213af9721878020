//! sqlwitness-dialect: the facts about each engine, loaded from
//! `dialects/<engine>.yaml` (parsed with `serde-saphyr`).
//!
//! Code asks a [`Dialect`] by name (`dialect.capabilities.nulls_sort_first`,
//! `dialect.classify(code, message)`) and never tests which engine it is.
//! The YAML files are embedded at build time so the binary works from any
//! directory; [`Dialect::load_file`] reads an edited copy instead.

mod model;

pub use model::{
    Capabilities, Dialect, DialectError, ErrorRule, FunctionRename, Lexical, StrftimeRule,
    Translations, TypeMap,
};

use sqlwitness_core::EngineKind;

const SQLITE_YAML: &str = include_str!("../../../dialects/sqlite.yaml");
const POSTGRES_YAML: &str = include_str!("../../../dialects/postgres.yaml");
const MYSQL_YAML: &str = include_str!("../../../dialects/mysql.yaml");

/// The built-in dialect of an engine, from the YAML shipped in `dialects/`.
///
/// # Panics
/// Never for the shipped files: a test loads each of them.
pub fn builtin(kind: EngineKind) -> Dialect {
    let (name, text) = match kind {
        EngineKind::Sqlite => ("dialects/sqlite.yaml", SQLITE_YAML),
        EngineKind::Postgres => ("dialects/postgres.yaml", POSTGRES_YAML),
        EngineKind::Mysql => ("dialects/mysql.yaml", MYSQL_YAML),
    };
    Dialect::from_yaml(name, text).expect("shipped dialect file is valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::ErrorClass;

    #[test]
    fn shipped_dialects_load() {
        for kind in EngineKind::ALL {
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
}
