"""The plan folder is owned, locked and followed through no link (issue 19): a link planted as
`winner.yaml`, as a cache entry or as `cache/` never makes plan write outside DIR; a DIR without
plan's marker and header is refused; two plans into one DIR: the second is refused; damaged
cache entries of every shape are evaluated again (or are one located error), never exit 70."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuplane.errors import OutputError
from gpuplane.plan.command import PlanOptions, execute
from gpuplane.plan.folder import LOCK, MARKER, MARKER_HEADER

GPUPLANE = Path(sys.executable).with_name("gpuplane")
FILES = ("plan.json", "designs.csv", "report.html", "winner.yaml")


def _options(inputs: tuple[Path, Path, Path], out: Path) -> PlanOptions:
    trace, spec, space = inputs
    return PlanOptions(
        spec=spec,
        workload=trace,
        space=space,
        out=out,
        goal=["p90-wait<=1d"],
        seeds=1,
        finalists=1,
        failure_rate=0.0,
        ray=False,
    )


def _plan_cli(inputs: tuple[Path, Path, Path], out: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    trace, spec, space = inputs
    args = [
        str(spec),
        "-w",
        str(trace),
        "--space",
        str(space),
        "--seeds",
        "1",
        "--goal",
        "p90-wait<=1d",
        "--node-failure-rate",
        "0",
        "--no-ray",
        "-q",
        "-o",
        out,
    ]
    return subprocess.run(
        [str(GPUPLANE), "plan", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture
def planned(mmc_tiny: tuple[Path, Path, Path], tmp_path: Path) -> Path:
    out = tmp_path / "plan"
    execute(_options(mmc_tiny, out))
    return out


def test_a_first_run_marks_the_folder_with_its_header(planned: Path) -> None:
    assert (planned / MARKER).read_text(encoding="utf-8") == MARKER_HEADER
    assert sorted(p.name for p in planned.iterdir()) == sorted((*FILES, "cache", MARKER, LOCK))


def test_a_link_planted_as_winner_yaml_is_replaced_not_followed(
    planned: Path, mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not plan's\n", encoding="utf-8")
    for name in FILES:
        (planned / name).unlink()
        (planned / name).symlink_to(outside)
    execute(_options(mmc_tiny, planned))
    assert outside.read_text(encoding="utf-8") == "not plan's\n"
    for name in FILES:
        assert not (planned / name).is_symlink() and (planned / name).is_file(), name


def test_a_link_planted_as_a_cache_entry_is_not_read_nor_written_through(
    planned: Path, mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    entries = sorted((planned / "cache").glob("*.json"))
    outside = tmp_path / "outside.json"
    outside.write_text(entries[0].read_text(encoding="utf-8"), encoding="utf-8")
    before = outside.read_bytes()
    entries[0].unlink()
    entries[0].symlink_to(outside)
    run = execute(_options(mmc_tiny, planned))
    assert outside.read_bytes() == before
    assert not entries[0].is_symlink()
    assert [(p, why) for p, why in run.damaged] == [(entries[0], "a symbolic link, not followed")]


def test_a_cache_folder_that_is_a_link_is_refused(
    planned: Path, mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (planned / "cache").rename(elsewhere)
    (planned / "cache").symlink_to(elsewhere)
    before = sorted(p.name for p in elsewhere.iterdir())
    with pytest.raises(OutputError, match="cache: error: is a symbolic link"):
        execute(_options(mmc_tiny, planned))
    assert sorted(p.name for p in elsewhere.iterdir()) == before


@pytest.mark.parametrize(
    "marker",
    [
        "",  # present, empty
        "written by someone else\n",  # present, another header
        None,  # a link to a real marker
    ],
)
def test_a_folder_without_plans_marker_and_header_is_refused(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, marker: str | None
) -> None:
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "notes.txt").write_text("keep\n", encoding="utf-8")
    if marker is None:
        real = tmp_path / "real-marker"
        real.write_text(MARKER_HEADER, encoding="utf-8")
        (out / MARKER).symlink_to(real)
    else:
        (out / MARKER).write_text(marker, encoding="utf-8")
    with pytest.raises(OutputError, match="not written by gpuplane plan"):
        execute(_options(mmc_tiny, out))
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "notes.txt"])


def test_a_second_plan_into_a_locked_folder_is_refused_and_writes_nothing(
    planned: Path, mmc_tiny: tuple[Path, Path, Path]
) -> None:
    before = {p.name: p.read_bytes() for p in planned.iterdir() if p.is_file()}
    cache_before = sorted(p.name for p in (planned / "cache").iterdir())
    fd = os.open(planned / LOCK, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a first plan holds it for its whole run
        with pytest.raises(OutputError, match="another gpuplane plan is writing into this folder"):
            execute(_options(mmc_tiny, planned))
    finally:
        os.close(fd)
    assert {p.name: p.read_bytes() for p in planned.iterdir() if p.is_file()} == before
    assert sorted(p.name for p in (planned / "cache").iterdir()) == cache_before


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (b"[]", "TypeError"),
        (b'{"result": {"design": 5}}', "KeyError"),
        (b'{"result": null}', "TypeError"),
        (b"NaN", "ValueError: NaN is not a finite number"),
        (b"1e400", "ValueError: a number that is not finite"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"{not json", "JSONDecodeError"),
    ],
)
def test_damaged_cache_entries_are_evaluated_again(
    planned: Path, mmc_tiny: tuple[Path, Path, Path], damage: bytes, reason: str
) -> None:
    before = {name: (planned / name).read_bytes() for name in FILES}
    entry = sorted((planned / "cache").glob("*.json"))[0]
    entry.write_bytes(damage)
    run = execute(_options(mmc_tiny, planned))
    assert len(run.damaged) == 1 and run.damaged[0][0] == entry and reason in run.damaged[0][1]
    assert {name: (planned / name).read_bytes() for name in FILES} == before
    assert json.loads(entry.read_text(encoding="utf-8"))["result"]["design"]


def test_a_cache_entry_that_is_a_fifo_is_not_read(planned: Path, mmc_tiny: tuple[Path, Path, Path]) -> None:
    entry = sorted((planned / "cache").glob("*.json"))[0]
    entry.unlink()
    os.mkfifo(entry)  # opening it for reading would block for ever without O_NONBLOCK
    run = execute(_options(mmc_tiny, planned))
    assert run.damaged == [(entry, "not a regular file")]
    assert entry.is_file()


def test_a_cache_entry_that_is_a_directory_is_one_located_error(
    planned: Path, mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    entry = sorted((planned / "cache").glob("*.json"))[0]
    entry.unlink()
    entry.mkdir()
    done = _plan_cli(mmc_tiny, str(planned), tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"{entry}: error: cannot write:")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("kind", ["dangling link", "link to a folder", "under a file", "a file"])
def test_an_unusable_out_is_one_located_line_exit_2(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "plan"
    if kind == "dangling link":
        target.symlink_to(tmp_path / "missing")
    elif kind == "link to a folder":
        (tmp_path / "real").mkdir()
        target.symlink_to(tmp_path / "real")
    elif kind == "under a file":
        (tmp_path / "file").write_text("x", encoding="utf-8")
        target = tmp_path / "file" / "plan"
    else:
        target.write_text("x", encoding="utf-8")
    done = _plan_cli(mmc_tiny, str(target), tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{target}: error: "), done.stderr
    assert (
        not (tmp_path / "missing").exists() and not any((tmp_path / "real").glob("*"))
        if kind != "a file"
        else True
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_out_is_refused_before_the_work(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    locked = tmp_path / "ro"
    locked.mkdir(mode=0o555)
    done = _plan_cli(mmc_tiny, str(locked / "plan"), tmp_path)
    assert done.returncode == 2 and "is not writable" in done.stderr, done.stderr


def test_two_plans_into_one_folder_the_second_is_refused(
    mmc_small: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    trace, spec, space = mmc_small
    out = tmp_path / "plan"
    args = [str(spec), "-w", str(trace), "--space", str(space), "--node-failure-rate", "0", "--no-ray", "-q"]
    first = subprocess.Popen(
        [str(GPUPLANE), "plan", *args, "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while not list((out / "cache").glob("*.json")):  # the first run is evaluating designs
        assert first.poll() is None, first.communicate()
        time.sleep(0.1)
    second = _plan_cli(mmc_small, str(out), tmp_path)
    assert second.returncode == 2, second.stderr
    assert (
        second.stderr.strip()
        == f"{out}: error: another gpuplane plan is writing into this folder; wait for it or choose another -o DIR"
    )
    _, err = first.communicate(timeout=600)
    assert first.returncode in (0, 1), err
    data = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    assert data["spec"] == str(spec)  # the first run's, whole
    assert sorted(p.name for p in out.iterdir() if p.name != "winner.yaml") == sorted(
        n for n in (*FILES, "cache", MARKER, LOCK) if n != "winner.yaml"
    )
