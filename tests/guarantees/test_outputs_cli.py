"""Issue 9, "Why" item 1 (data loss) and the write errors of item 4, through the installed CLI:
every refusal is one line and exit 2, and nothing gpuplane should not touch changes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import EXAMPLE, GPUPLANE, assert_one_error, gpuplane, shell, snapshot

TRACE = "id,class,submit_s,pod_sets,work_gpu_s,team\nj1,training,0,worker:1x1,3600,vision\n"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A GitOps checkout: the spec, a .git folder, notes; nothing gpuplane wrote."""
    repo = tmp_path / "gitops"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "platform.yaml").write_text(EXAMPLE.read_text())
    (repo / "notes.md").write_text("keep me\n")
    return repo


def test_render_into_the_checkout_itself_deletes_nothing(checkout: Path) -> None:
    before = snapshot(checkout.parent)
    for target in (".", "..", str(checkout)):
        line = assert_one_error(gpuplane("render", "platform.yaml", "-o", target, cwd=checkout))
        assert "refusing to replace it (--force overrides)" in line
    assert snapshot(checkout.parent) == before


def test_render_into_a_directory_holding_a_git_checkout_or_the_spec_is_refused(checkout: Path) -> None:
    sub = checkout / "manifests"
    sub.mkdir()
    spec = checkout / "platform.yaml"
    before = snapshot(checkout)
    line = assert_one_error(gpuplane("render", spec, "-o", checkout, cwd=sub))
    assert "current directory" in line or "git checkout" in line or "contains the input" in line
    assert snapshot(checkout) == before


def test_render_through_a_symlink_or_onto_a_file_changes_nothing(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "data.txt").write_text("mine")
    (tmp_path / "link").symlink_to(precious)
    (tmp_path / "file.yaml").write_text("a file")
    before = snapshot(tmp_path)
    for target, words in (("link", "symbolic link"), ("file.yaml", "not a directory")):
        for force in ([], ["--force"]):
            line = assert_one_error(gpuplane("render", EXAMPLE, "-o", target, *force, cwd=tmp_path))
            assert words in line
    assert snapshot(tmp_path) == before


def test_render_replaces_only_its_own_tree_and_leaves_no_siblings(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    first = snapshot(out)
    (out / "stray.yaml").write_text("x: 1\n")
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    assert snapshot(out) == first  # replaced whole: the stray file is gone, the tree is the same
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    (out / "index.yaml").write_text("# my own index\n")
    assert "was not written by gpuplane" in assert_one_error(gpuplane("render", EXAMPLE, "-o", out))


def test_sigterm_at_any_moment_leaves_the_old_or_the_new_tree_and_no_temporaries(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    expected = snapshot(out)
    for delay in (0.2, 0.6, 1.0, 1.4, 1.8):
        proc = subprocess.Popen(
            [str(GPUPLANE), "render", str(EXAMPLE), "-o", str(out)], stderr=subprocess.PIPE
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=240)
        assert proc.returncode in (0, 143, -signal.SIGTERM), err  # -15: it died before gpuplane started
        assert b"Traceback" not in err
        assert snapshot(out) == expected  # whichever tree it is, it is whole
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_json_to_dev_stdout_or_a_link_to_it_writes_to_stdout_and_replaces_nothing(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    link = tmp_path / "out.json"
    link.symlink_to("/dev/stdout")
    for target in ("/dev/stdout", str(link), "-"):
        run = gpuplane("simulate", EXAMPLE, "-w", trace, "-q", "--json", target)
        assert run.code == 0, run.err
        assert json.loads(run.out)["platform"]
    assert os.readlink(link) == "/dev/stdout"
    assert os.path.islink("/dev/stdout")


def test_write_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    (tmp_path / "file").write_text("keep")
    cases = {
        "/dev/full": "/dev/full: error: cannot write: No space left on device",
        "/sys/gpuplane.json": "/sys/gpuplane.json: error: cannot write: Permission denied",
        str(tmp_path): f"{tmp_path}: error: is a directory; give a file name",
        str(tmp_path / "file" / "m.json"): "cannot write: Not a directory",
        "/dev/no-such-device": "no such device; gpuplane creates no files under /dev or /proc",
    }
    for target, message in cases.items():
        line = assert_one_error(gpuplane("simulate", EXAMPLE, "-w", trace, "-q", "--json", target))
        assert message in line
    assert (tmp_path / "file").read_text() == "keep"
    assert not os.path.lexists("/dev/no-such-device")


def test_audit_out_and_render_stdout_write_errors(tmp_path: Path) -> None:
    line = assert_one_error(gpuplane("audit", "-f", EXAMPLE, "--out", tmp_path))
    assert line == f"{tmp_path}: error: is a directory; give a file name"
    full = shell(f'gp render "{EXAMPLE}" -o - > /dev/full')
    assert assert_one_error(full) == "<stdout>: error: cannot write: No space left on device"


def test_a_reader_that_hangs_up_ends_gpuplane_quietly(tmp_path: Path) -> None:
    run = shell(f'gp render "{EXAMPLE}" -o - | true; echo "rc=${{PIPESTATUS[0]}}"')
    assert run.out.strip() == "rc=141"
    assert run.err == ""
