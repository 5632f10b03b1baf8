#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""validate_sarif.py: checks SARIF documents written by `rooflint --format sarif`.

Usage: tools/validate_sarif.py FILE.sarif...   ("-" reads standard input)

Two layers:
  1. the OASIS SARIF 2.1.0 JSON schema (draft-04), kept in the repository as
     tests/schema/sarif-schema-2.1.0.json (override with
     ROOFLINT_SARIF_SCHEMA=/path/to/sarif-schema-2.1.0.json);
  2. the references the schema cannot express: every result's ruleId names a
     rule, ruleIndex points at that rule, artifact indexes are in range.

Runs with Debian's python3 and python3-jsonschema (`make deps` installs it).
Exit status: 0 valid, 1 invalid, 2 could not run (no schema, no jsonschema).
"""
import json
import os
import sys

SCHEMA_NAME = "sarif-schema-2.1.0.json"


def fail(msg, status=2):
    print(f"validate_sarif.py: {msg}", file=sys.stderr)
    sys.exit(status)


def schema_path():
    env = os.environ.get("ROOFLINT_SARIF_SCHEMA")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "tests", "schema", SCHEMA_NAME)


def cross_check(doc):
    """Problems the schema does not catch, as a list of strings."""
    problems = []
    for r, run in enumerate(doc.get("runs", [])):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        ids = [rule.get("id") for rule in rules]
        if len(set(ids)) != len(ids):
            problems.append(f"runs[{r}]: duplicate rule ids")
        nart = len(run.get("artifacts", []))

        def check_loc(where, loc):
            idx = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("index")
            if idx is not None and not 0 <= idx < nart:
                problems.append(f"{where}: artifact index {idx} out of range (0..{nart - 1})")

        for i, res in enumerate(run.get("results", [])):
            where = f"runs[{r}].results[{i}]"
            rid, ridx = res.get("ruleId"), res.get("ruleIndex")
            if rid not in ids:
                problems.append(f"{where}: ruleId {rid!r} names no rule")
            if ridx is not None and (not 0 <= ridx < len(ids) or ids[ridx] != rid):
                problems.append(f"{where}: ruleIndex {ridx} is not rule {rid!r}")
            for k, loc in enumerate(res.get("locations", [])):
                check_loc(f"{where}.locations[{k}]", loc)
            for k, loc in enumerate(res.get("relatedLocations", [])):
                check_loc(f"{where}.relatedLocations[{k}]", loc)
    return problems


def main(argv):
    if len(argv) < 2:
        fail("usage: validate_sarif.py FILE.sarif...  ('-' = standard input)")
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is missing: run `make deps` "
             "(or apt-get install python3-jsonschema)")
    path = schema_path()
    if not os.path.isfile(path):
        fail(f"the SARIF schema is missing: {path}")
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft4Validator(schema)

    bad = 0
    for name in argv[1:]:
        try:
            if name == "-":
                doc = json.load(sys.stdin)
            else:
                with open(name, encoding="utf-8") as f:
                    doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{name}: not a JSON document: {e}", file=sys.stderr)
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        problems = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                    for e in errors] + cross_check(doc)
        for p in problems[:20]:
            print(f"{name}: {p}", file=sys.stderr)
        if problems:
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
