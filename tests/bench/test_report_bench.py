"""`arena bench report`'s figures come from the two reports it writes: the first into
a new folder writes every file it lists, the second (the league grown by a match)
builds only the new match's games and writes fewer files than it lists; nothing is
timed here."""

from __future__ import annotations

from arena.bench.report import bench_report


def test_the_report_bench_reports_a_first_and_a_grown_report() -> None:
    bench = bench_report(games=8, jobs=1)
    first, grown = bench.runs
    assert (first.games, grown.games) == (8, 12)  # two matches, then one more
    assert first.result.built_games == 8
    assert first.result.written_files == first.result.files > 8
    assert first.result.written_bytes == first.result.bytes
    assert grown.result.built_games == 4  # only the new match's games are built again
    assert 0 < grown.result.written_files < grown.result.files
    assert grown.result.files > first.result.files
    lines = bench.lines()
    assert len(lines) == 4 and lines[2].startswith("first report")
    assert lines[3].split()[-1] == "4"  # the grown report's games built, as printed
