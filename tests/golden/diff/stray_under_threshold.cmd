diff tests/golden/diff/inputs/stray_old.roof tests/golden/diff/inputs/stray_new.roof --fail-on-regression 500
