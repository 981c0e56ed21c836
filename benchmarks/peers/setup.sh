#!/usr/bin/env bash
# Create the peer tools' virtual environments, each only if missing (or broken):
#   VENVS_DIR/grouse  grouse==0.4.2 (+ fastapi, orjson, soundfile: LiteLLM imports them on a disk-cache hit)
#   VENVS_DIR/ragas   ragas==0.4.3, langchain-community==0.4.1 (0.4.2 breaks ragas' import), langchain-openai
# Every other package is held to the versions in TOOL-constraints.txt beside this script (pip freeze of
# a working install). Quiet: pip's output goes to VENVS_DIR/TOOL-install.log and is shown only on failure.
# Usage: bash benchmarks/peers/setup.sh VENVS_DIR      (PYTHON=python3.11 by default)
set -euo pipefail
VENVS_DIR=${1:?usage: setup.sh VENVS_DIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
mkdir -p "$VENVS_DIR"

make_venv() {  # NAME IMPORT_CHECK PACKAGES...
  local name=$1 check=$2; shift 2
  local venv="$VENVS_DIR/$name" log="$VENVS_DIR/$name-install.log"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
    return 0
  fi
  echo "setup.sh: installing $name into $venv (a few minutes)" >&2
  rm -rf "$venv"
  if ! { "$PYTHON" -m venv "$venv" &&
         "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
           -c "$HERE/$name-constraints.txt" "$@" &&
         "$venv/bin/python" -c "$check"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "setup.sh: $name install failed (log: $log)" >&2
    exit 1
  fi
}

make_venv grouse \
  "import importlib.metadata as m; assert m.version('grouse') == '0.4.2'; import grouse, litellm, fastapi, orjson, soundfile" \
  grouse==0.4.2 fastapi==0.165.0 orjson==3.13.0 soundfile==0.14.0
make_venv ragas \
  "import importlib.metadata as m; assert m.version('ragas') == '0.4.3' and m.version('langchain-community') == '0.4.1'; import ragas, langchain_openai" \
  ragas==0.4.3 langchain-community==0.4.1 langchain-openai==1.7.3
