diff tests/golden/diff/inputs/stray_old.roof tests/golden/diff/inputs/no_such.roof
