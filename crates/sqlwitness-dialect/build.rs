//! The shipped dialect files, embedded: one entry per `dialects/*.yaml`
//! (the same files `sqlwitness-core`'s build script makes the built-in
//! engines of), so that adding an engine's file ships its dialect without
//! naming it here.

use std::fmt::Write as _;
use std::path::Path;

#[path = "../sqlwitness-core/dialect_files.rs"]
mod dialect_files;

fn main() {
    let (dir, names) = dialect_files::dialect_files();
    let mut out = format!(
        "/// The shipped dialect files: `(engine name, file, text)`.\n\
         const SHIPPED: [(&str, &str, &str); {}] = [\n",
        names.len()
    );
    for n in &names {
        // An edit of the file rebuilds the crate (the compiler tracks what
        // `include_str!` reads); only a file added or removed runs this
        // script again.
        let file = dir.join(format!("{n}.yaml"));
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
