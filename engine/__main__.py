"""``python -m engine`` runs the ``logitgeom`` command."""

import sys

from engine.cli.main import main

sys.exit(main())
