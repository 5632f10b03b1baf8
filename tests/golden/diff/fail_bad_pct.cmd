diff --fail-on-regression x tests/golden/diff/inputs/stray_old.roof tests/golden/diff/inputs/stray_new.roof
