"""Each game's page for its referee (docs/supply/<game>.md) is current with the needs its module
declares: scripts/gen_supply_docs.py regenerates the part below the marker."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_games_supply_page_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_supply_docs", ROOT / "scripts" / "gen_supply_docs.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    pages = generator.pages()
    assert pages, "no game declares what its referee supplies"
    for name, text in pages.items():
        path = ROOT / "docs" / "supply" / name
        assert path.exists(), f"docs/supply/{name} is missing: run scripts/gen_supply_docs.py"
        assert path.read_text(encoding="utf-8") == text, f"docs/supply/{name} is stale: run scripts/gen_supply_docs.py"
        assert "not the book's values" in text
