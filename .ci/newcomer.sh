#!/usr/bin/env bash
# Run README.md's two set-up commands verbatim, as a newcomer would: in a fresh clone of this checkout (with
# ../shared beside it), a fresh venv with only the extras the README installs ([test]), no heavy venvs.
#
# CI is unset for this run: a newcomer's machine is no CI, and the ci_required tests (the extras, vLLM and
# SGLang) are meant to skip there; .ci/run's own run, with CI=true and every extra, is what makes them run.
# The first command exits 1 by design (the example dataset holds a defect of every kind); any other status,
# or a failing test, fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t COMMANDS < <(python3 - <<'PY'
import re
text = open("README.md", encoding="utf-8").read()
block = re.search(r"```sh\n(.*?)\n```", text, re.S).group(1)  # the first sh block: the set-up
print("\n".join(line for line in block.split("\n") if line.strip()))
PY
)
[[ ${#COMMANDS[@]} -eq 2 ]] || { echo "README's set-up block has ${#COMMANDS[@]} commands, not 2" >&2; exit 1; }

ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
git clone --quiet . "$ROOT/repo"
ln -s "$(cd .. && pwd)/shared" "$ROOT/shared"
cd "$ROOT/repo"
export HERMES_TOOLCALL_VENV_CACHE="$ROOT/no-heavy-venvs"  # a newcomer has not built them
# a newcomer's hypothesis profile (dev: 50 examples) with fixed seeds, so that a CI run is repeatable: random
# exploration belongs to local runs and HYPOTHESIS_PROFILE=long, not to the run that decides whether main lands
export HYPOTHESIS_PROFILE=newcomer
echo "\$ ${COMMANDS[0]}"
status=0
env -u CI bash -c "${COMMANDS[0]}" > "$ROOT/first.out" || status=$?
tail -n 3 "$ROOT/first.out"
# status 1 is the example's findings; the summary line tells it from a failed install (pip exits 1 too)
if [[ $status -ne 1 ]] || ! grep -Eq '^[0-9]+ record\(s\) in 1 file\(s\): [1-9][0-9]* error' "$ROOT/first.out"; then
    echo "README set-up command 1 did not run the validation as the README says (status $status)" >&2
    exit 1
fi
echo "\$ ${COMMANDS[1]}"
env -u CI bash -c "${COMMANDS[1]}"
