diff tests/golden/diff/inputs/stray_old.roof
