"""The `sqlwitness` command of the wheel: the same command line as the binary."""

import sys

from . import _native


def main() -> None:
    sys.exit(_native.cli(["sqlwitness", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
