//! The `sqlwitness` binary: everything is in the library (`sqlwitness_cli`),
//! which the Python package's `sqlwitness` command calls too.

fn main() {
    std::process::exit(sqlwitness_cli::main_with(std::env::args_os()));
}
