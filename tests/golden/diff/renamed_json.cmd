diff -w --format json tests/golden/diff/inputs/rebound_old.roof tests/golden/diff/inputs/renamed_new.roof
