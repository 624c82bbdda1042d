"""Subcommands of the ``dbnet`` command line (see ``dbnet.cli``)."""
