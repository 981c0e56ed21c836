"""The offline judge's weights re-encoded once from the shipped Q4_1 GGUF to Q8_0, kept in the user's cache folder."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from judges.errors import BackendUnavailable

# Without AVX2 (this project's 2-core CI machines have AVX and F16C only) llama.cpp reads prompts about twice as
# fast from Q8_0 as from Q4_1 and decodes at about the same speed (benchmarks/bench_offline_judge.py). Q8_0 holds each
# Q4_1 weight to within 1/16 of a Q4_1 step, so this is the same model, not a different quantisation of it.
SERVED_ENCODING = "Q8_0"
_LLAMA_FTYPE_MOSTLY_Q8_0 = 7


def cache_folder() -> Path:
    """`$XDG_CACHE_HOME/judgelab` (default `~/.cache/judgelab`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "judgelab"


def served_copy(source: Path, log: IO[bytes] | None = None) -> Path:
    """The Q8_0 copy of `source`, made on first use (a few seconds, in a child process whose llama.cpp output goes
    to `log`) and found again by the source's SHA-256 afterwards."""
    with source.open("rb") as weights:  # read in chunks, not held whole (98 MB)
        digest = hashlib.file_digest(weights, "sha256").hexdigest()[:16]
    target = cache_folder() / "models" / f"{source.name.split('.')[0]}.{SERVED_ENCODING}.{digest}.gguf"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "judges.calls.gguf_encoding", str(source), str(target)],
            stdout=log,
            stderr=subprocess.STDOUT if log is not None else None,
            check=False,
        )
        if done.returncode != 0 or not target.is_file():
            raise BackendUnavailable(f"could not re-encode {source.name} as {SERVED_ENCODING} into {target.parent}")
    return target


def encode(source: Path, target: Path) -> None:
    """Write `source` re-encoded as Q8_0 to `target` (through a temporary file, so a reader never sees half)."""
    import ctypes

    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = _LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        if llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params)) != 0:
            raise RuntimeError(f"llama.cpp could not re-encode {source}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


if __name__ == "__main__":
    encode(Path(sys.argv[1]), Path(sys.argv[2]))
