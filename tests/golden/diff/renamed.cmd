diff -w tests/golden/diff/inputs/rebound_old.roof tests/golden/diff/inputs/renamed_new.roof
