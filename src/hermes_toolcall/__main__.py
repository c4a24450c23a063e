"""``python -m hermes_toolcall`` runs the command line."""

from .cli import main

raise SystemExit(main())
