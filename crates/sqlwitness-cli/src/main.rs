//! The `sqlwitness` binary: everything is in the library (`sqlwitness_cli`),
//! which the Python package's `sqlwitness` command calls too.

/// mimalloc returns freed memory to the system per thread and allocates the
/// many small values a streamed row is made of faster than the system
/// allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(sqlwitness_cli::main_with(std::env::args_os()));
}
