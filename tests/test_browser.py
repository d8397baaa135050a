"""The report a build writes, in a real headless Chromium: it renders without console errors,
shows the conflicts, runs its own little script, and runs no script that came from a document.

Skipped (with the reason) where Debian's chromium or chromedriver is not installed, or with
SKIP_BROWSER_TESTS=1. With REQUIRE_BROWSER=1 (set by .ci/run) a missing browser fails instead,
so CI cannot pass without having run these tests.
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pipeline.runner import build

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = ROOT / "test-artifacts"

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
ENTITY_SCRIPT = "&lt;script&gt;window.__pwned=3&lt;/script&gt;"
ENTITY_IMG = '&lt;img src=x onerror="window.__pwned=4"&gt;'
HOSTILE = f"""---
title: 'Hostile page {SCRIPT} {IMG}'
ms.date: 01/15/2024
---

# NDv2-series {SCRIPT}

| Size | vCPU | Memory: GiB | GPU | GPU Memory: GiB |
|---|---|---|---|---|
| Standard_ND40rs_v2 | 40 | 672 {SCRIPT} {ENTITY_IMG} | 8 V100 {IMG} | 24 {ENTITY_SCRIPT} |
"""
"""Markdown-it drops raw tags from a table cell but decodes entities, so the cells also carry
the escaped forms: after reading, they are a real `<script>` and `<img onerror>` in
`claims.raw_text`. The front-matter title keeps the raw tags as they are."""

REQUIRED = os.environ.get("REQUIRE_BROWSER") == "1"
MISSING = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]

if not REQUIRED:
    pytestmark = [
        pytest.mark.skipif(os.environ.get("SKIP_BROWSER_TESTS") == "1", reason="SKIP_BROWSER_TESTS=1 is set"),
        pytest.mark.skipif(
            bool(MISSING), reason=f"needs {' and '.join(MISSING)} (apt-get install chromium chromium-driver)"
        ),
    ]


def test_browser_is_installed() -> None:
    """Fails, rather than skips, where the browser tests are required and cannot run."""
    assert MISSING == [], f"{', '.join(MISSING)} missing: apt-get install chromium chromium-driver"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`build()` of the shipped sources plus one page whose front-matter title and table cells
    carry markup; the report.html that build wrote."""
    folder = tmp_path_factory.mktemp("browser")
    sources = folder / "sources"
    shutil.copytree(ROOT / "sources", sources)
    (sources / "seeds" / "hostile-page.md").write_text(HOSTILE, encoding="utf-8")
    out = folder / "output"
    build(sources, out)
    # The markup must really be in the data, or the test would prove nothing.
    docs = pd.read_parquet(out / "documents.parquet").set_index("document")
    title = str(docs.loc["seeds/hostile-page.md", "title"])
    assert "<script>window.__pwned=1</script>" in title and 'onerror="window.__pwned=2"' in title
    claims = pd.read_parquet(out / "claims.parquet")
    raw = " ".join(claims.loc[claims["document"] == "seeds/hostile-page.md", "raw_text"].dropna())
    assert "<script>window.__pwned=3</script>" in raw, "no table cell of the hostile page carries a <script>"
    assert '<img src=x onerror="window.__pwned=4">' in raw, "no table cell of the hostile page carries an <img>"
    return out / "report.html"


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # Imported here, not at the top, so SKIP_BROWSER_TESTS=1 works where selenium is not installed;
    # where the browser is installed, a missing selenium is an error, not a skip.
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1440,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield drv
    finally:
        drv.quit()


@pytest.fixture(scope="module")
def opened(driver: Any, report: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The page loaded once; the console log is read once, because reading it empties it."""
    driver.get(report.as_uri())
    driver.execute_script("return document.readyState")
    return driver, driver.get_log("browser")


def test_no_console_errors(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    _, log = opened
    severe = [entry for entry in log if entry.get("level") == "SEVERE"]
    assert severe == []


def test_no_document_script_runs(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    driver, _ = opened
    # Each script or handler of the hostile page would set this marker (to 1, 2, 3 or 4).
    assert driver.execute_script("return window.__pwned") is None
    # Nothing of the document became an element: our own script is the only one, and no image.
    assert driver.execute_script("return document.scripts.length") == 1
    assert driver.execute_script("return document.images.length") == 0
    # The markup is on the page as text, where a reader can see what the document said:
    # the front-matter title in the documents table, the table cells in the conflict.
    assert 'Hostile page <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2">' in (
        driver.find_element("id", "documents").text
    )
    conflict = driver.find_element(
        "css selector", '#conflicts .conflict[data-entity="Standard_ND40rs_v2"][data-attribute="gpu_memory_gib"]'
    ).text
    assert "<script>window.__pwned=3</script>" in conflict


def test_nd40rs_v2_gpu_memory_conflict_is_listed(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    driver, _ = opened
    from selenium.webdriver.common.by import By

    blocks = driver.find_elements(
        By.CSS_SELECTOR,
        '#conflicts .conflict[data-entity="Standard_ND40rs_v2"][data-attribute="gpu_memory_gib"]',
    )
    assert len(blocks) == 1
    assert blocks[0].is_displayed()
    values = {v.get_attribute("data-value") for v in blocks[0].find_elements(By.CSS_SELECTOR, ".value")}
    assert {"32", "16"} <= values
    # As a reader sees it: the size, the attribute, the winner and the third-party line behind 16.
    shown = blocks[0].text
    assert "Standard_ND40rs_v2" in shown and "gpu_memory_gib" in shown
    assert "32 GiB" in shown and "16 GiB" in shown and "chosen" in shown
    assert "seeds/thirdparty-azure-nd-series.txt:58" in shown
    overview = driver.find_element(By.ID, "conflicts-index").text
    assert "Standard_ND40rs_v2 gpu_memory_gib 32 GiB" in overview


def test_sorting_script_runs(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    """Our own script is allowed by the page's content security policy, and works."""
    driver, _ = opened
    from selenium.webdriver.common.by import By

    def vcpus() -> list[float]:
        # One round trip, not one per cell: the order of the rows as they now stand.
        keys = driver.execute_script(
            "return Array.from(document.querySelectorAll('#sizes-1 tbody td[data-attribute=\"vcpus\"]'))"
            ".map(td => td.getAttribute('data-sort'))"
        )
        return [float(k) for k in keys if k]

    header = driver.find_element(By.CSS_SELECTOR, "#sizes-1 thead th:nth-child(2) button")
    driver.execute_script("arguments[0].click()", header)
    assert vcpus() == sorted(vcpus())
    driver.execute_script("arguments[0].click()", header)
    assert vcpus() == sorted(vcpus(), reverse=True)


def test_filter_hides_other_rows(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    driver, _ = opened
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, 'input[data-filter="conflicts"]')
    box.send_keys("ND40rs_v2")
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#conflicts article.conflict'))"
        ".map(a => [a.dataset.entity, !a.hidden, a.textContent.toLowerCase().includes('nd40rs_v2')])"
    )
    visible = {entity for entity, show, _ in shown if show}
    # Its own disputes, and those of sizes whose text names it (ND40s_v2 was "superseded by the ND40rs_v2").
    assert "Standard_ND40rs_v2" in visible and len(visible) < len({entity for entity, _, _ in shown})
    assert all(show == mentions for _, show, mentions in shown)
    box.clear()
    box.send_keys(" ")  # an input event with an empty query shows everything again
    hidden = driver.execute_script("return document.querySelectorAll('#conflicts [data-item][hidden]').length")
    assert hidden == 0


def test_screenshot(opened: tuple[Any, list[dict[str, Any]]]) -> None:
    """A full-page picture for a person to look at (test-artifacts/ is git-ignored)."""
    driver, _ = opened
    driver.refresh()  # as first opened: earlier tests sorted and filtered it
    driver.execute_script("window.scrollTo(0, 0)")
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics["cssContentSize"]
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / "report.png"
    out.write_bytes(base64.b64decode(shot["data"]))
    assert out.stat().st_size > 10_000
