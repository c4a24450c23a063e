#!/usr/bin/env bash
# Build (once) the heavy integration virtual environments that tests/integrations/ drive: vLLM, SGLang and TRL,
# each in its own venv under a cache directory keyed by version (CI runs on the same machine, so the cache
# persists between runs). Idempotent: a venv is reused only when its completion stamp exists; one without
# the stamp (a build that was interrupted) is removed and rebuilt. The builds run side by side (about
# 9 minutes and 22 GB from nothing; TRL with CPU torch is 1.5 GB). Every run then makes sure the venv has
# hermes-toolcall's own runtime dependencies (the tests put the checkout's src/ on PYTHONPATH; nothing is installed editable).
#
# Usage: .ci/heavy-venvs.sh
# Env:   HERMES_TOOLCALL_VENV_CACHE    cache root (default /var/cache/hermes-toolcall/venvs)
#        PYTHON                        interpreter to build with (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${HERMES_TOOLCALL_VENV_CACHE:-/var/cache/hermes-toolcall/venvs}
PY=${PYTHON:-python3}
VLLM_VERSION=0.33.0
SGLANG_VERSION=0.5.23
TRL_VERSION=1.16.0
TORCH_CPU_VERSION=2.13.0
STAMP=.hermes-toolcall-complete
mapfile -t DEPS < <("$PY" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))')

build() {  # build NAME REQUIREMENT...
    local dir="$CACHE/$1"
    if [[ -f "$dir/$STAMP" ]]; then
        echo "== heavy venv $dir: cached ($(head -c 200 "$dir/$STAMP" | head -n 1))"
    else
        echo "== heavy venv $dir: building ${*:2}"
        rm -rf "$dir"
        "$PY" -m venv "$dir"
        "$dir/bin/python" -m pip install --quiet --upgrade pip
        "$dir/bin/python" -m pip install --quiet "${@:2}"
        echo "${*:2} built $(date -u +%FT%TZ)" > "$dir/$STAMP"
        echo "== heavy venv $dir: built"
    fi
    "$dir/bin/python" -m pip install --quiet "${DEPS[@]}" "pytest>=8.0" "hypothesis>=6.100"  # tests/integrations/inside/ run in it (hypothesis: check_xgrammar.py)
}

mkdir -p "$CACHE"
status=0
build "vllm-$VLLM_VERSION" "vllm==$VLLM_VERSION" > "$CACHE/vllm-$VLLM_VERSION.log" 2>&1 &
vllm_pid=$!
build "sglang-$SGLANG_VERSION" "sglang==$SGLANG_VERSION" > "$CACHE/sglang-$SGLANG_VERSION.log" 2>&1 &
sglang_pid=$!
# TRL for tests/integrations/test_trl.py: torch 2.13.0 first, the CPU build this machine's pip finds on disk (a bare
# `torch` requirement would fetch a CUDA build of several GB)
build "trl-$TRL_VERSION" "torch==$TORCH_CPU_VERSION" "trl==$TRL_VERSION" > "$CACHE/trl-$TRL_VERSION.log" 2>&1 &
trl_pid=$!
wait "$vllm_pid" || status=1
wait "$sglang_pid" || status=1
wait "$trl_pid" || status=1
grep -hv "is ignored: it is neither" "$CACHE/vllm-$VLLM_VERSION.log" "$CACHE/sglang-$SGLANG_VERSION.log" \
    "$CACHE/trl-$TRL_VERSION.log" | tail -n 40 || true
exit "$status"
