//! The built-in engines are the shipped dialect files: one engine for each
//! `dialects/<name>.yaml`. The four the code names itself (SQLite,
//! PostgreSQL, MySQL, MariaDB) come first, at fixed places; every other
//! file adds an engine after them, in name order, with a constant of its
//! name (`dialects/duckdb.yaml` → `EngineKind::Duckdb`). Adding an engine
//! is adding its dialect file; nothing in this crate names it.

use std::fmt::Write as _;
use std::path::Path;

mod dialect_files;

/// The engines at fixed places, with the other spellings they are known by.
const FIXED: [(&str, &[&str]); 4] = [
    ("sqlite", &[]),
    ("postgres", &["postgresql", "pg"]),
    ("mysql", &[]),
    ("mariadb", &[]),
];

fn main() {
    let (_, names) = dialect_files::dialect_files();
    for (fixed, _) in FIXED {
        assert!(
            names.iter().any(|n| n == fixed),
            "dialects/{fixed}.yaml is missing"
        );
    }
    let added: Vec<&String> = names
        .iter()
        .filter(|n| !FIXED.iter().any(|(f, _)| f == n))
        .collect();
    for n in &added {
        assert!(
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                && n.as_bytes()[0].is_ascii_lowercase(),
            "dialects/{n}.yaml: an engine's name is a lower-case word"
        );
    }
    let count = FIXED.len() + added.len();
    let mut out = String::new();
    let mut constants = String::new();
    let mut entries = String::new();
    let mut plain = String::new();
    for (name, aliases) in FIXED {
        let _ = writeln!(
            entries,
            "    Entry {{ name: {name:?}, aliases: &{aliases:?} }},"
        );
    }
    for (j, name) in added.iter().enumerate() {
        let i = FIXED.len() + j;
        let constant = camel(name);
        let _ = writeln!(
            constants,
            "    /// The engine of `dialects/{name}.yaml`.\n    pub const {constant}: EngineKind = EngineKind({i});"
        );
        let _ = writeln!(entries, "    Entry {{ name: {name:?}, aliases: &[] }},");
        let _ = writeln!(
            plain,
            "    pub const {constant}: EngineKind = EngineKind::{constant};"
        );
    }
    let kinds: String = (0..count)
        .map(|i| format!("        EngineKind({i}),\n"))
        .collect();
    let _ = writeln!(
        out,
        "#[allow(non_upper_case_globals)]\nimpl EngineKind {{\n{constants}}}\n\n\
         /// The built-in engines' registry entries, in the order engines are listed.\n\
         const BUILTIN: [Entry; {count}] = [\n{entries}];\n\n\
         #[allow(non_upper_case_globals)]\n\
         impl EngineKind {{\n    /// The built-in engines: one for each shipped dialect file.\n    \
         pub const BUILTIN: [EngineKind; {count}] = [\n{kinds}    ];\n}}\n\n\
         /// The engines after the four at fixed places, as plain constants.\n\
         #[allow(non_upper_case_globals)]\n\
         pub mod shipped_engines {{\n    use super::EngineKind;\n{plain}}}"
    );
    let path = Path::new(&std::env::var("OUT_DIR").expect("set by cargo")).join("engines.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `duck_db` → `DuckDb`, `duckdb` → `Duckdb`.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
