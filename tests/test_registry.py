"""Which tier a document belongs to: the registry first, then the document's own evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.knowledge.registry import classify, load_registry, tiers
from pipeline.records import BuildResult
from pipeline.stages.read import parse_bytes

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("document", "kind", "publisher"),
    [
        ("seeds/seed-ndv2-series-2020.txt", "official_spec", "Microsoft"),
        ("seeds/blog-nd-gb300-v6-ga-aggregator.txt", "vendor_blog", "Microsoft Tech Community (via a news aggregator)"),
        ("seeds/thirdparty-azure-ng-series.txt", "third_party", "unknown third party"),
        ("azure-docs/azure-docs/articles/virtual-machines/nd-series.md", "official_spec", "Microsoft"),
    ],
)
def test_shipped_documents_are_classified_by_the_registry(
    shipped: BuildResult, document: str, kind: str, publisher: str
) -> None:
    entries, diags = load_registry(ROOT / "sources")
    assert diags == []
    doc = next(d for d in shipped.documents if d.path == document)
    source, diag = classify(doc, entries)
    assert (source.kind, source.publisher, source.classified_by, diag) == (kind, publisher, "registry", None)
    assert source.trust == tiers()[kind].weight


@pytest.mark.parametrize(
    ("text", "kind", "because"),
    [
        (
            "---\ntitle: X\nms.date: 01/02/2024\nms.service: virtual-machines\n---\nbody\n",
            "official_spec",
            "Microsoft Learn ms.* keys",
        ),
        (
            "---\ntitle: X\ncanonical_url: https://techcommunity.microsoft.com/t5/x\n---\nbody\n",
            "vendor_blog",
            "techcommunity.microsoft.com",
        ),
        ("---\ntitle: X\ncanonical_url: https://example.com/gpus\n---\nbody\n", "third_party", "example.com"),
        ("# A page with no front-matter\n", "third_party", "no front-matter"),
        # One copied ms.date is not enough to pass for an official page.
        ("---\ntitle: X\nms.date: 01/02/2024\n---\nbody\n", "third_party", "names no known publisher"),
        ("---\nms.date: 01/02/2024\nms.custom: x\n---\nbody\n", "third_party", "names no known publisher"),
    ],
)
def test_unlisted_documents_are_classified_from_their_own_evidence(text: str, kind: str, because: str) -> None:
    doc, _ = parse_bytes("new/page.md", text.encode())
    assert doc is not None
    source, diag = classify(doc, [])
    assert source.kind == kind
    assert diag is not None and diag.code == "source-unregistered" and because in diag.message


def test_registry_trust_overrides_the_tier_weight(tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(
        '[[source]]\npath = "blogs/*"\npublisher = "NVIDIA"\nkind = "vendor_blog"\ntrust = 0.6\n'
    )
    entries, diags = load_registry(tmp_path)
    doc, _ = parse_bytes("blogs/post.md", b"# post\n")
    assert doc is not None and diags == []
    assert classify(doc, entries)[0].trust == 0.6


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[source]]\npath = "a/*"\nkind = "rumour"\n', "needs a path and a kind"),
        ('[[source]]\npath = "a/*"\nkind = "third_party"\ntrust = 3\n', "trust must be a number from 0 to 1"),
        ("[[source]\n", "not valid TOML"),
    ],
)
def test_a_broken_registry_is_a_diagnostic_not_a_crash(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "registry.toml").write_text(toml)
    _, diags = load_registry(tmp_path)
    assert [d.code for d in diags] == ["registry-invalid"] and message in diags[0].message
