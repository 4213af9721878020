# The extension module (crates/sqlwitness-py): the command line's library.

__version__: str

def cli(argv: list[str]) -> int:
    """The command line (program name first), as the binary runs it; the exit code."""

def run(argv: list[str]) -> tuple[int, str | None]:
    """One command in this process: (exit code, None) when it finished, (exit code,
    message) when it failed, (0, text) for --help and --version. Standard output is
    flushed before it returns. KeyboardInterrupt cancels it."""
