"""Replay files: the reader and writer (``file``) and the standalone verifier (``verify``)."""
