diff -D Q=64 tests/golden/diff/inputs/stray_old.roof tests/golden/diff/inputs/stray_new.roof
