"""The interpreter wrapper that jobs run through where the interpreter's path has a space: only its user can change it.

Another local user could once plant (or later rewrite) the wrapper at its predictable name in the shared /tmp and have
every job run their code. Each test plants what such a user could, as another user where the tests run as root (CI),
and expects a refusal naming the path, or a wrapper nobody else can write.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from crlrepro.workflow.pipeline import UnsafeWrapperError, interpreter_without_spaces

AS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not AS_ROOT, reason="planting a file as another user needs root (CI runs as root)")


@pytest.fixture
def shared_tmp():
    """A temporary folder as /tmp is: world-writable and sticky, in /tmp itself so that another user can reach it
    (pytest's own folders are closed to others)."""
    folder = Path(tempfile.mkdtemp(prefix="crlrepro-shared-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def spaced_python(tmp_path):
    """An interpreter whose path has a space (a link to this one, as a virtual environment in `My projects/`)."""
    place = tmp_path / "My projects" / "bin"
    place.mkdir(parents=True)
    python = place / "python"
    python.symlink_to(sys.executable)
    return str(python)


def _nobody() -> int:
    return pwd.getpwnam("nobody").pw_uid


def test_an_interpreter_path_without_spaces_is_used_as_it_is(shared_tmp):
    assert interpreter_without_spaces("/usr/bin/python3", tmpdir=shared_tmp) == "/usr/bin/python3"
    assert list(shared_tmp.iterdir()) == []


def test_the_wrapper_lives_in_a_folder_only_this_user_can_write_and_runs_the_interpreter(shared_tmp, spaced_python):
    wrapper = interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    folder = shared_tmp / f"crlrepro-{os.geteuid()}"
    assert os.path.dirname(wrapper) == str(folder) and " " not in wrapper
    info = os.lstat(folder)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.geteuid()
    assert stat.S_IMODE(os.lstat(wrapper).st_mode) & 0o022 == 0
    out = subprocess.run([wrapper, "-c", "import sys; print(sys.argv[1])", "a b"], capture_output=True, text=True)
    assert out.stdout == "a b\n"
    assert interpreter_without_spaces(spaced_python, tmpdir=shared_tmp) == wrapper  # reused


def test_a_wrapper_planted_at_the_old_shared_name_is_never_used(shared_tmp, spaced_python, tmp_path):
    """The reproduction of the hole: `<tmp>/crlrepro-python-<sha256[:16]>`, owned by another user, with any text."""
    marker = tmp_path / "ran"
    planted = shared_tmp / f"crlrepro-python-{hashlib.sha256(spaced_python.encode()).hexdigest()[:16]}"
    planted.write_text(f'#!/bin/sh\ntouch {marker}\nexec {sys.executable} "$@"\n')
    planted.chmod(0o777)
    wrapper = interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    assert wrapper != str(planted)
    subprocess.run([wrapper, "-c", "pass"], check=True)
    assert not marker.exists()


@needs_root
def test_a_folder_planted_by_another_user_is_refused(shared_tmp, spaced_python):
    folder = shared_tmp / f"crlrepro-{os.geteuid()}"
    subprocess.run(["runuser", "-u", "nobody", "--", "mkdir", "-m", "755", str(folder)], check=True)
    assert os.lstat(folder).st_uid == _nobody()
    with pytest.raises(UnsafeWrapperError, match=rf"{folder}.*owned by uid {_nobody()}"):
        interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)


@needs_root
def test_a_wrapper_owned_by_another_user_is_refused_even_with_the_right_text(shared_tmp, spaced_python):
    wrapper = interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    os.chown(wrapper, _nobody(), -1)  # as if it had been planted there
    with pytest.raises(UnsafeWrapperError, match=rf"{wrapper}.*owned by uid {_nobody()}.*rm {wrapper}"):
        interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)


def test_a_folder_open_to_others_or_a_link_is_refused(shared_tmp, spaced_python, tmp_path):
    folder = shared_tmp / f"crlrepro-{os.geteuid()}"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(UnsafeWrapperError, match=rf"{folder} has mode 777"):
        interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    folder.rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder.symlink_to(elsewhere)
    with pytest.raises(UnsafeWrapperError, match=rf"{folder} is not a folder of its own"):
        interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)


def test_a_wrapper_writable_by_others_is_refused_and_a_stale_own_one_rewritten(shared_tmp, spaced_python):
    wrapper = interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    os.chmod(wrapper, 0o777)
    with pytest.raises(UnsafeWrapperError, match="writable by others"):
        interpreter_without_spaces(spaced_python, tmpdir=shared_tmp)
    os.chmod(wrapper, 0o755)
    with open(wrapper, "w") as handle:
        handle.write("#!/bin/sh\nexit 3\n")
    assert interpreter_without_spaces(spaced_python, tmpdir=shared_tmp) == wrapper
    assert subprocess.run([wrapper, "-c", "pass"]).returncode == 0


def test_a_parent_folder_others_can_write_without_the_sticky_bit_is_refused(tmp_path, spaced_python):
    """Where others may rename entries of the parent, they could swap the folder after the check."""
    base = tmp_path / "opentmp"
    base.mkdir()
    base.chmod(0o777)
    with pytest.raises(UnsafeWrapperError, match="not sticky"):
        interpreter_without_spaces(spaced_python, tmpdir=base)
