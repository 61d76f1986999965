"""``facilitator content check`` proves every card solvable; broken decks name file, entry, reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import ROOT, run_cli

TILES = "content/lantern-links/tiles.toml"
ROUTES = "content/lantern-links/routes.toml"


@pytest.mark.slow
def test_content_check_reports_solutions_per_card() -> None:
    result = run_cli(["content", "check"])
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("lantern-links:")]
    assert len(lines) == 13
    assert "card  1: 2 full-score solutions (CBFHIJ, FBCHIJ)" in lines[1]
    assert "card 12: 4 full-score solutions" in lines[12]
    assert all("all ending on END" in line and "scores 8" in line for line in lines[1:])
    assert "card  7: 2 full-score solutions (DBFIGE, GEFIDB); 12 complete chains" in result.stdout


def broken(tmp_path: Path, relpath: str, old: str, new: str) -> Path:
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    path = tmp_path / relpath
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return content


CASES = [
    (TILES, 'words = ["SUN", "SUN"]', 'words = ["SUN", "STAR"]',
     f"problem: {TILES}: tiles entry 1 (letter 'A') words: word 'STAR' is not one of SUN, MOON, LEAF, KEY"),
    (TILES, 'letter = "J"', 'letter = "A"', f"problem: {TILES}: tiles entry 10 (letter 'A'): letter 'A' is used twice (also entry 1)"),
    (ROUTES, 'start = "LEAF"', 'begin = "LEAF"', f"problem: {ROUTES}: routes entry 1 (number 1) start: field required"),
    (ROUTES, 'end = "KEY"', 'end = "SUN"',
     f"problem: {ROUTES}: routes entry 1 (number 1): no order of its tiles meets START, CHECKPOINT and END"),
    (ROUTES, 'solution = ["C", "B", "F", "H", "I", "J"]', 'solution = ["H", "C", "B", "F", "I", "J"]',
     f"problem: {ROUTES}: routes entry 1 (number 1): solution HCBFIJ is not a full-score route"),
    (ROUTES, 'solution = ["C", "B", "F", "H", "I", "J"]', 'solution = ["C", "B", "F", "H", "I", "A"]',
     f"problem: {ROUTES}: routes entry 1 (number 1): solution CBFHIA does not use the card's tiles"),
    (ROUTES, 'tiles = ["B", "C", "F", "H", "I", "J"]', 'tiles = ["B", "C", "F", "H", "I"]',
     f"problem: {ROUTES}: routes entry 1 (number 1) tiles: needs 6 different tiles"),
    (ROUTES, "number = 12", "number = 11", f"problem: {ROUTES}: routes entry 12 (number 11): number 11 is used twice (also entry 11)"),
    (ROUTES, "number = 12", "number = 13", f"problem: {ROUTES}: routes entry 12 (number 13): number must be 1 to 12"),
    (TILES, 'words = ["KEY", "KEY"]', 'words = ["KEY", "SUN"]',
     f"problem: {TILES}: tiles entry 10 (letter 'J'): shows the same words as entry 4: KEY SUN"),
    (ROUTES, "[[routes]]\nnumber = 1", "[[routes]\nnumber = 1", f"problem: {ROUTES}: not valid TOML"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("relpath", "old", "new", "message"), CASES)
def test_broken_deck_names_file_entry_and_reason(tmp_path: Path, relpath: str, old: str, new: str,
                                                 message: str) -> None:
    content = broken(tmp_path, relpath, old, new)
    result = run_cli(["content", "check", "--content-dir", str(content)])
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert message.replace("problem: ", f"problem: {tmp_path}/", 1) in result.stderr, result.stderr  # the path given


@pytest.mark.slow
def test_missing_file_is_named(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    (content / "lantern-links" / "tiles.toml").unlink()
    result = run_cli(["content", "check", "--content-dir", str(content)])
    assert result.returncode != 0
    assert f"problem: {tmp_path / TILES}: file is missing" in result.stderr   # named by the directory given


@pytest.mark.slow
def test_play_refuses_a_broken_deck_with_one_line(tmp_path: Path) -> None:
    content = broken(tmp_path, ROUTES, 'checkpoint = "LEAF"', 'checkpoint = "STAR"')
    result = run_cli(["play", "lantern-links", "--text"], "pass\n",
                     env={"FACILITATOR_CONTENT_DIR": str(content)})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        (f"facilitator: {ROUTES}: routes entry 1 (number 1) checkpoint: word 'STAR' is not one of "
         "SUN, MOON, LEAF, KEY (upper case)")]
