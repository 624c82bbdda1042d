"""``python -m dbnet`` runs the ``dbnet`` command."""

import sys

from dbnet.cli import main

sys.exit(main())
