"""Entry point of the ``pokerlab`` console script.

Command modules register themselves on :data:`pokerlab.cli.app.app` when imported; this module
imports them and turns :class:`~pokerlab.errors.PokerlabError` into a one-line message and exit
code 2 (no traceback).
"""

from __future__ import annotations

import sys

from rich.console import Console

from pokerlab.cli.app import app
from pokerlab.errors import PokerlabError

# Importing a command module registers its commands.
from pokerlab.cli import solve as _solve  # noqa: F401,E402  isort: skip
from pokerlab.cli import pushfold as _pushfold  # noqa: F401,E402  isort: skip
from pokerlab.cli import cards as _cards  # noqa: F401,E402  isort: skip
from pokerlab.cli import evolve as _evolve  # noqa: F401,E402  isort: skip


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the process exit code."""
    try:
        app(args=argv, standalone_mode=False)
    except PokerlabError as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
        return 2
    except KeyboardInterrupt:
        Console(stderr=True).print("interrupted")
        return 130
    except SystemExit as exc:  # typer/click exit paths
        return int(exc.code or 0)
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return 2
        if isinstance(exc, click.exceptions.Abort):
            return 130
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
