"""Entry point of the ``pokerlab`` console script.

Command modules register themselves on :data:`pokerlab.cli.app.app` when imported; this module
imports them and turns every way a command line can be wrong into a short message on stderr and
exit code 2, without a traceback:

* a :class:`~pokerlab.errors.PokerlabError` raised by a command (bad card, range, spec, file);
* a usage error found by the option parser (unknown command or option, missing argument, a value
  that is not a number or is out of its range);
* no arguments at all (the usage block is printed).

A :class:`~pokerlab.errors.PokerlabWarning` raised while a command runs (a range that gives a
combo twice with different weights, ...) is printed as one ``warning: ...`` line on stderr, once
per message; the command goes on.

The parser's exception classes are found through ``typer.BadParameter``'s class hierarchy rather
than imported by module path: typer 0.29 carries its own copy of click (``typer._click``) and no
longer depends on ``click``, while older typer versions raise ``click``'s classes. Both are
handled without importing ``click``.

Messages are printed without wrapping (a long file name stays on one line when stderr is a file
or a pipe); on a terminal the ``error:`` prefix is coloured.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

import typer

from pokerlab.cli.app import app, hide_flag_types, print_error, warn
from pokerlab.errors import NonFiniteError, PokerlabError, PokerlabWarning

# Importing a command module registers its commands.
from pokerlab.cli import solve as _solve  # noqa: F401,E402  isort: skip
from pokerlab.cli import show as _show  # noqa: F401,E402  isort: skip
from pokerlab.cli import pushfold as _pushfold  # noqa: F401,E402  isort: skip
from pokerlab.cli import cards as _cards  # noqa: F401,E402  isort: skip
from pokerlab.cli import evolve as _evolve  # noqa: F401,E402  isort: skip
from pokerlab.cli import postflop as _postflop  # noqa: F401,E402  isort: skip
from pokerlab.cli import postflop_search as _postflop_search  # noqa: F401,E402  isort: skip
from pokerlab.cli import postflop_show as _postflop_show  # noqa: F401,E402  isort: skip
from pokerlab.cli import serve as _serve  # noqa: F401,E402  isort: skip
from pokerlab.cli import train as _train  # noqa: F401,E402  isort: skip
from pokerlab.cli import limit_match as _limit_match  # noqa: F401,E402  isort: skip
from pokerlab.cli import play as _play  # noqa: F401,E402  isort: skip
from pokerlab.cli import limit_lbr as _limit_lbr  # noqa: F401,E402  isort: skip
from pokerlab.cli import report as _report  # noqa: F401,E402  isort: skip
from pokerlab.cli import blueprint as _blueprint  # noqa: E402  isort: skip
from pokerlab.cli import blueprint_train as _blueprint_train  # noqa: F401,E402  isort: skip
from pokerlab.cli import blueprint_eval as _blueprint_eval  # noqa: F401,E402  isort: skip
from pokerlab.cli import blueprint_play as _blueprint_play  # noqa: F401,E402  isort: skip
from pokerlab.cli import blueprint_show as _blueprint_show  # noqa: F401,E402  isort: skip
from pokerlab.cli import blueprint_acpc as _blueprint_acpc  # noqa: F401,E402  isort: skip

# ``pokerlab blueprint ...``: command modules of the no-limit blueprint add their commands to
# ``blueprint_app`` (pokerlab/cli/blueprint.py) when imported above this line.
app.add_typer(_blueprint.blueprint_app, name="blueprint")

#: Exit code of every usage error and every bad-input error.
USAGE_EXIT = 2


def _parser_class(name: str) -> type[BaseException] | None:
    """The option parser's exception class called ``name`` (``UsageError``, ``ClickException``).

    Found in the class hierarchy of ``typer.BadParameter``, which is ``typer._click``'s class on
    typer >= 0.29 and ``click``'s on older versions.
    """
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    return None


_USAGE_ERROR = _parser_class("UsageError") or typer.BadParameter
_PARSER_ERROR = _parser_class("ClickException") or _USAGE_ERROR


def _usage_message(exc: BaseException) -> str:
    """One line for a parser usage error: the parser's message and where to look for help."""
    format_message = getattr(exc, "format_message", None)
    text = format_message() if callable(format_message) else str(exc)
    text = " ".join(str(text).split())  # one line, whatever the parser put in
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", None) or "pokerlab"
    if not text.endswith((".", "!", "?")):
        text += "."
    return f"{text} Try '{command} --help'."


def _print_help_to_stderr() -> None:
    """The top-level usage block (commands and options) on stderr."""
    command = hide_flag_types(typer.main.get_command(app))
    with _stdout_to_stderr():  # typer's rich help renderer prints on stdout
        command.main(args=["--help"], prog_name="pokerlab", standalone_mode=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); return the process exit code.

    Exit codes: 0 success, 2 usage or input error, 130 interrupted (Ctrl-C); a command may also
    exit 1 when it ran but did not reach what was asked (e.g. a target exploitability).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print_error("no command given; the commands are:")
        _print_help_to_stderr()
        return USAGE_EXIT
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", PokerlabWarning)  # once per message and place
            warnings.showwarning = _show_warning
            command = hide_flag_types(typer.main.get_command(app))
            rv = command.main(args=args, prog_name="pokerlab", standalone_mode=False)
    except NonFiniteError as exc:  # it ran, and went wrong: not a usage error
        print_error(str(exc))
        return 1
    except PokerlabError as exc:
        print_error(str(exc))
        return USAGE_EXIT
    except KeyboardInterrupt:
        print_error("interrupted", prefix="")
        return 130
    except SystemExit as exc:  # a command's explicit exit (e.g. 130 after saving on Ctrl-C)
        return _exit_code(exc.code)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group called without a subcommand
            _print_help_to_stderr()
        else:
            print_error(_usage_message(exc))
        return USAGE_EXIT
    except _PARSER_ERROR as exc:  # e.g. a file option the parser could not open
        print_error(_usage_message(exc))
        return int(getattr(exc, "exit_code", 1) or 1)
    except typer.Abort:
        print_error("aborted", prefix="")
        return 130
    except typer.Exit as exc:
        return _exit_code(getattr(exc, "exit_code", 0))
    if rv == 130:  # the parser caught a KeyboardInterrupt itself and returned its code
        print_error("interrupted", prefix="")
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


_DEFAULT_SHOWWARNING = warnings.showwarning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` while a command runs: pokerlab's warnings as one
    ``warning: ...`` line on stderr, every other warning as Python prints it."""
    if issubclass(category, PokerlabWarning):
        warn(str(message))
    else:
        _DEFAULT_SHOWWARNING(message, category, filename, lineno, file, line)  # type: ignore[arg-type]


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print_error(str(code), prefix="")
    return 1


class _stdout_to_stderr:
    """Context manager: send ``sys.stdout`` to ``sys.stderr`` (typer's help renderer prints)."""

    def __enter__(self) -> None:
        self._saved = sys.stdout
        sys.stdout = sys.stderr

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self._saved


if __name__ == "__main__":
    sys.exit(main())
