"""Exceptions of the Python API, one class per exit-code class of the command line
(the README's exit-code table). Every one carries ``exit_code`` and the message the
command line prints."""

from __future__ import annotations


class SqlwitnessError(Exception):
    """A command that failed: ``exit_code`` is the command line's (1 internal error)."""

    exit_code: int = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class BadInputError(SqlwitnessError, ValueError):
    """Exit 2: a bad argument, benchmark or prediction file (the message names the
    file and the place)."""

    exit_code = 2


class EngineError(SqlwitnessError):
    """Exit 3: an engine could not be reached, its login may do more than read, or a
    migration did not verify."""

    exit_code = 3


class ContainerError(SqlwitnessError):
    """Exit 6: no Docker daemon answers, or a container did not start."""

    exit_code = 6


class Interrupted(SqlwitnessError):
    """Exit 130: the run was interrupted; its journal holds what finished."""

    exit_code = 130


_BY_CODE: dict[int, type[SqlwitnessError]] = {
    2: BadInputError,
    3: EngineError,
    6: ContainerError,
    130: Interrupted,
}


def error_for(exit_code: int, message: str) -> SqlwitnessError:
    """The exception of a command that failed with ``exit_code``."""
    return _BY_CODE.get(exit_code, SqlwitnessError)(message, exit_code)
