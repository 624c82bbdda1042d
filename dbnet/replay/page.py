"""What every HTML page dbnet writes shares: one self-contained document that can make no
request of any kind, and text escaped for it.

A page is one file: its style, script, pictures (inline SVG) and data are inside it.
Its Content-Security-Policy allows nothing to be fetched (``default-src 'none'``),
inline style, and only the page's own script, by its SHA-256 hash; ``base-uri`` and
``form-action`` are closed too, since ``default-src`` does not cover them. So even a
name that slipped past the escaping could load nothing and run nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Final

from dbnet.text import markup as esc

__all__ = ["csp", "document", "script_data"]

NO_SCRIPT: Final = ""


def csp(script: str) -> str:
    """The policy of a page whose only script is ``script`` (none if empty)."""
    if script:
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        scripts = f"'sha256-{digest}'"
    else:
        scripts = "'none'"
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {scripts}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def script_data(value: object, element_id: str) -> str:
    """``value`` as JSON in a data block (``<script type="application/json">``, never run):
    ``</`` is written ``<\\/`` so no string in it can end the element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("</", "<\\/").replace("<!--", "<\\u0021--")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def document(title: str, style: str, body: str, script: str = NO_SCRIPT) -> str:
    """A whole page: ``title`` (escaped here), ``style`` and ``script`` (dbnet's own, as
    they are) and ``body`` (HTML, escaped by the caller)."""
    run = f"<script>{script}</script>" if script else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp(script)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{style}</style>\n</head>\n"
        f"<body>\n{body}\n{run}\n</body>\n</html>\n"
    )
