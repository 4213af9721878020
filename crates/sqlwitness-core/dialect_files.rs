//! The shipped dialect files as the build scripts list them: those of
//! `sqlwitness-core` (the built-in engines) and of `sqlwitness-dialect`
//! (their embedded texts) read the same folder through this one function.

use std::path::{Path, PathBuf};

/// The folder `dialects/` of the workspace whose crate's manifest is in
/// `CARGO_MANIFEST_DIR`, and the names of its `*.yaml` files without the
/// extension, in name order. Tells cargo to run the build script again
/// when a file is added to the folder or removed from it.
pub fn dialect_files() -> (PathBuf, Vec<String>) {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("../../dialects");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".yaml"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    (dir, names)
}
