# The extension module (crates/sqlwitness-py): the command line's library.

from typing import Callable

__version__: str

def cli(argv: list[str]) -> int:
    """The command line (program name first), as the binary runs it; the exit code."""

def run(
    argv: list[str], progress: Callable[[str, int, int], object] | None = None
) -> tuple[int, str | None]:
    """One command in this process: (exit code, None) when it finished, (exit code,
    message) when it failed, (0, text) for --help and --version. Standard output is
    flushed before it returns. KeyboardInterrupt cancels it. ``progress`` is called
    as ``progress(stage, done, total)`` a few times a second while the run advances
    and once at its end; when it raises, the run is cancelled and its exception
    raised."""
