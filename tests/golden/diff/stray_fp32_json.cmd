diff --format json --fail-on-regression 1 tests/golden/diff/inputs/stray_old.roof tests/golden/diff/inputs/stray_new.roof
