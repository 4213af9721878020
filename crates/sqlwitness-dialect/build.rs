//! The shipped dialect files, embedded: one entry per `dialects/*.yaml`
//! (the same files `sqlwitness-core`'s build script makes the built-in
//! engines of), so that adding an engine's file ships its dialect without
//! naming it here.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
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
    let mut out = format!(
        "/// The shipped dialect files: `(engine name, file, text)`.\n\
         const SHIPPED: [(&str, &str, &str); {}] = [\n",
        names.len()
    );
    for n in &names {
        let file = dir.join(format!("{n}.yaml"));
        println!("cargo:rerun-if-changed={}", file.display());
        let _ = writeln!(
            out,
            "    ({n:?}, \"dialects/{n}.yaml\", include_str!({:?})),",
            file.display().to_string()
        );
    }
    out.push_str("];\n");
    let path = Path::new(&std::env::var("OUT_DIR").expect("set by cargo")).join("shipped.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
