"""``python -m evo``: hands the command line to :func:`evo.cli.main` and exits with its status."""

from evo.cli import main

raise SystemExit(main())
