"""The documentation is self-contained: every link between README.md and docs/*.md points at a file of the
repository and, with #anchor, at a heading (or an explicit <a id>) that exists there; no page cites the
contract documents the project started from or a tracker's issue numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # headings inside code blocks are not headings
    out = {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}
    return out | set(re.findall(r'<a id="([^"]+)"></a>', text))


def _links():
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            yield pytest.param(page, target, id=f"{page.name}->{target}")


@pytest.mark.parametrize("page,target", list(_links()))
def test_link_resolves(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.is_file(), f"{page.name}: {target}: no such file"
    assert ROOT in dest.parents, f"{page.name}: {target} points outside the repository"
    if anchor:
        assert anchor in anchors(dest), f"{page.name}: {target}: no such section in {dest.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_outside_citations(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(?<![\w/])(FORMAT|RULES)\.md", text), "cite docs/format.md or docs/rules.md"
    assert not re.search(r"\bissue \d", text, re.I), "tracker issue numbers mean nothing to a reader"
    # nothing above the repository: no parent-folder path (a clone elsewhere has no sibling folders) and no
    # absolute path of the machine the docs were written on
    assert not re.search(r"\.\./", text) and "/work/" not in text, "a page names a path outside the repository"


def test_format_and_rules_pages_exist_and_cite_rules():
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for number in (
        "510.1a",
        "510.1c",
        "510.1e",
        "702.19b",
        "702.19c",
        "702.19d",
        "702.19e",
        "702.19f",
        "702.2c",
        "701.17",
        "701.57",
        "506.4c",
    ):
        assert number in rules, number
    assert "## JSON Schemas" in (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
