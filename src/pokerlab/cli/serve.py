"""``pokerlab serve``: the local web viewer of a folder's strategies, spots, curves and games."""

from __future__ import annotations

from pathlib import Path

import typer

from pokerlab.cli.app import app
from pokerlab.errors import PokerlabError


@app.command()
def serve(
    folder: Path = typer.Argument(
        Path("."), help="Folder whose pokerlab files are served (nothing outside it is)."
    ),
    port: int = typer.Option(0, "--port", "-p", min=0, max=65535, help="Port (0: a free one)."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on; not loopback: a warning."
    ),
) -> None:
    """Browse solved strategies and spots, convergence curves, and play against the solution.

    Prints the URL on one line and serves until Ctrl-C. Needs the viewer extra:
    pip install "pokerlab[viewer]".
    """
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise PokerlabError(
            'the viewer needs FastAPI and uvicorn: pip install "pokerlab[viewer]"'
        ) from None
    from pokerlab.viewer.server import serve as run

    if not folder.is_dir():
        raise PokerlabError(f"{str(folder)!r} is not a folder")
    run(folder, host=host, port=port)
