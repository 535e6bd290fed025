"""Cold start: fresh interpreters, ours against the bare import floor, alternated.

Wall time per sample is CLOCK_MONOTONIC from just before the parent spawns the child to the
child's own marker (imports done / first response), so both kinds include the same fork,
exec and interpreter start-up, and neither includes interpreter shutdown. The child's CPU
time at the same marker is kept beside it: on a shared 2-core machine wall time swings with
the neighbours' load, CPU time much less, so agreement between the two ratios is the
check that a verdict is not noise.

Both kinds load bytecode: the floor's modules were compiled when pip installed them, and
ours are compiled here first (`with_our_bytecode`), as Python does on the first import of
any checkout and as SnapStart's init does once per published version. Without that, the
ratio would depend on whether the machine sets PYTHONDONTWRITEBYTECODE (this one does), and
would time our compiler pass against the floor's cached one. The instructions measurement
also runs ours from sources compiled at import, to show what that pass costs.
"""

from __future__ import annotations

import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from harness import BENCHMARKS, EVENTS, ROOT, STATIC_READ_EVENT, child_environment, median

CHILD = str(BENCHMARKS / "cold_child.py")
PACKAGE = ROOT / "functions" / "aws_data_mcp"


@dataclass(frozen=True)
class Mark:
    """Seconds from the spawn (wall) and CPU seconds of the child, at one marker."""

    wall: float
    cpu: float


@dataclass(frozen=True)
class Series:
    """One kind of marker over all runs."""

    marks: tuple[Mark, ...]

    @property
    def median(self) -> Mark:
        return Mark(wall=median([m.wall for m in self.marks]), cpu=median([m.cpu for m in self.marks]))

    @property
    def best(self) -> Mark:
        """The fastest run: contention only ever adds time, so this is the least disturbed one."""
        return Mark(wall=min(m.wall for m in self.marks), cpu=min(m.cpu for m in self.marks))


@dataclass(frozen=True)
class ColdStart:
    floor: Series
    ours_imports: Series
    ours_first_response: Series

    @property
    def runs(self) -> int:
        return len(self.floor.marks)


def with_our_bytecode() -> None:
    """Compile our package's sources to bytecode in place (gitignored), as the floor's are."""
    if not compileall.compile_dir(PACKAGE, quiet=1):
        raise RuntimeError(f"could not compile {PACKAGE}")


def _spawn(*args: str) -> list[Mark]:
    """One fresh interpreter; its markers."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, CHILD, *args], capture_output=True, text=True, env=child_environment(),
                          cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cold start child {args[0]} failed:\n{done.stderr[-2000:]}")
    numbers = [float(value) for value in done.stdout.split()]
    return [Mark(wall=numbers[i] - started, cpu=numbers[i + 1]) for i in range(0, len(numbers), 2)]


def measure(runs: int) -> ColdStart:
    """`runs` pairs, alternating which kind goes first; one discarded pair first warms the page cache."""
    with_our_bytecode()
    event = str(EVENTS / STATIC_READ_EVENT)
    floors: list[Mark] = []
    imports: list[Mark] = []
    responses: list[Mark] = []
    for index in range(runs + 1):
        for kind in ("floor", "ours") if index % 2 else ("ours", "floor"):
            marks = _spawn("floor") if kind == "floor" else _spawn("ours", event)
            if index == 0:
                continue
            if kind == "floor":
                floors.append(marks[0])
            else:
                imports.append(marks[0])
                responses.append(marks[1])
    return ColdStart(floor=Series(tuple(floors)), ours_imports=Series(tuple(imports)),
                     ours_first_response=Series(tuple(responses)))


def _instructions_command(out_file: str, *args: str) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", sys.executable, CHILD, *args]


@dataclass(frozen=True)
class Instructions:
    floor: int
    ours: int
    ours_compiling: int
    """`ours` from a copy of our sources without bytecode: each module compiled as it is imported."""


def instructions() -> Instructions | None:
    """User-space instructions of one floor and one `ours` cold start under callgrind, or None without valgrind.

    Instruction counts do not depend on the neighbours' load, so this is the noise-free
    check of the timed ratio. All run at once (the counts cannot disturb each other);
    under valgrind each takes about a minute.
    """
    if shutil.which("valgrind") is None:
        return None
    with_our_bytecode()
    event = str(EVENTS / STATIC_READ_EVENT)
    with tempfile.TemporaryDirectory() as tmp:
        sources = shutil.copytree(PACKAGE, f"{tmp}/sources/{PACKAGE.name}",
                                  ignore=shutil.ignore_patterns("__pycache__"))
        compiling = child_environment() | {"PYTHONPATH": os.path.dirname(sources), "PYTHONDONTWRITEBYTECODE": "1"}
        runs = [(_instructions_command(f"{tmp}/floor.out", "floor"), child_environment()),
                (_instructions_command(f"{tmp}/ours.out", "ours", event), child_environment()),
                (_instructions_command(f"{tmp}/compiling.out", "ours", event), compiling)]
        children = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env=env, cwd=ROOT) for command, env in runs]
        floor, ours, ours_compiling = (_collected(child) for child in children)
    return Instructions(floor=floor, ours=ours, ours_compiling=ours_compiling)


def _collected(child: subprocess.Popen[str]) -> int:
    _, stderr = child.communicate(timeout=900)
    match = re.search(r"Collected : (\d+)", stderr)
    if child.returncode != 0 or match is None:
        raise RuntimeError(f"callgrind run failed ({child.returncode}):\n{stderr[-2000:]}")
    return int(match.group(1))
