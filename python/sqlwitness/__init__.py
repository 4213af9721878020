"""sqlwitness: a cross-dialect SQL execution differential tester for text-to-SQL
benchmarks, from Python.

The functions here run the command line's own library in this process (no
subprocess): :func:`evaluate` is ``sqlwitness eval``, :func:`audit` is
``sqlwitness audit``, :func:`migrate` is ``sqlwitness migrate``, :func:`diff`
is ``sqlwitness diff``, :func:`spider_eval` and :func:`bird_eval` are the official
evaluators' drop-ins, and :func:`run` any command by its arguments. A run releases
the GIL; Ctrl-C (KeyboardInterrupt) cancels it as SIGINT does on the command line
(its journal in ``out`` keeps what finished; the same call with ``resume=True``
continues). ``progress=`` shows how far a run is (a tqdm bar, or a callable).

Every option is a keyword argument with its type: a misspelt one is a
``TypeError``, a value out of range a ``ValueError`` naming the argument
(:class:`BadInputError`, before anything runs). A command that fails raises a
:class:`SqlwitnessError` subclass carrying the command line's exit code, its
message naming the Python arguments rather than the flags they became. Flags
the API does not name go in ``extra_args``, as on the command line.

Without ``out=``, a report lives in a temporary folder that is removed when the
returned object is garbage-collected (see :class:`Report`).
"""

# The API is imported when one of its names is first used (PEP 562), not
# when the package is: the wheel's `sqlwitness` command and `python -m
# sqlwitness` need only the extension module, and start without the rest.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._api import *  # noqa: F403
    from ._api import __all__ as __all__
    from ._api import __version__ as __version__
else:

    def __getattr__(name: str) -> object:
        # Private names are not the API's to give: the import system asks
        # for a submodule here before it imports one.
        if name.startswith("_") and name not in ("__all__", "__version__"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import sqlwitness._api as api

        try:
            value = getattr(api, name)
        except AttributeError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        globals()[name] = value
        return value

    def __dir__() -> list:
        import sqlwitness._api as api

        return sorted(set(globals()) | set(api.__all__) | {"__version__"})
