#!/bin/sh
# output_precommit.sh (R-OUT-013): .pre-commit-hooks.yaml is a valid pre-commit
# manifest whose one hook runs the installed `rooflint` on staged .roof
# files (language: system, since rooflint is a C program built by make).
# Parsed with Debian's python3-yaml; when pre-commit itself is installed,
# its own validator runs too, and the hook runs end to end in a scratch git
# repository with this build's rooflint first on the PATH.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
fail() { echo "FAIL output_precommit: $*"; exit 1; }

/usr/bin/python3 - <<'PY' || fail "the manifest is wrong (above)"
import re, sys, yaml
hooks = yaml.safe_load(open(".pre-commit-hooks.yaml", encoding="utf-8"))
assert isinstance(hooks, list) and len(hooks) == 1, "one hook expected"
h = hooks[0]
for key, want in (("id", "rooflint"), ("name", "rooflint"), ("entry", "rooflint"),
                  ("language", "system")):
    assert h.get(key) == want, f"{key}: {h.get(key)!r}, expected {want!r}"
files = re.compile(h["files"])
for name in ("model.roof", "examples/seed/six_ops.roof"):
    assert files.search(name), f"files does not match {name}"
for name in ("model.roof.bak", "roof.txt", "README.md"):
    assert not files.search(name), f"files matches {name}"
assert h.get("pass_filenames", True) is True
PY

command -v pre-commit >/dev/null 2>&1 || { echo "output_precommit: pre-commit not installed: manifest parsed only"; exit 0; }
pre-commit validate-manifest .pre-commit-hooks.yaml || fail "pre-commit validate-manifest"

# End to end: the hook's definition as a local hook of a scratch repo.
top=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-precommit.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/repo"
case $ROOFLINT in /*) bin=$ROOFLINT ;; *) bin=$top/$ROOFLINT ;; esac
[ -x "$bin" ] || fail "$bin is not built"
ln -s "$bin" "$T/bin/rooflint"
/usr/bin/python3 - "$T/repo/.pre-commit-config.yaml" <<'PY'
import sys, yaml
hook = yaml.safe_load(open(".pre-commit-hooks.yaml", encoding="utf-8"))[0]
yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}, open(sys.argv[1], "w"))
PY
cp examples/seed/precisions.roof "$T/repo/good.roof"
printf 'model m {\n  input x : [4]\n  y = relu(z)\n}\n' > "$T/repo/bad.roof"
printf 'not a model\n' > "$T/repo/notes.txt"
(
  cd "$T/repo" && git init -q . && git add . &&
  export PATH="$T/bin:$PATH" PRE_COMMIT_HOME="$T/home" &&
  pre-commit run --files good.roof notes.txt > "$T/good.log" 2>&1 || exit 11
  pre-commit run --files bad.roof > "$T/bad.log" 2>&1 && exit 12
  exit 0
)
case $? in
  0) ;;
  11) cat "$T/good.log"; fail "the hook failed on a clean file" ;;
  12) cat "$T/bad.log"; fail "the hook passed a file with an error" ;;
  *) fail "scratch repository" ;;
esac
grep -q "bad.roof:3:[0-9]*: error" "$T/bad.log" || { cat "$T/bad.log"; fail "the hook did not show the error"; }
echo "output_precommit: ok"
