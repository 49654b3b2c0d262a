"""MkDocs hook: docstrings cite code with Sphinx roles (:class:`~pkg.Name`), which mkdocstrings leaves as
text; on the API pages the role is dropped and a leading ``~`` keeps only the last name, as Sphinx shows it."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj):<code>(~?)([\w.]+)</code>")


def _name(match: re.Match) -> str:
    tilde, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"


def on_page_content(html: str, **kwargs) -> str:
    return ROLE.sub(_name, html)
