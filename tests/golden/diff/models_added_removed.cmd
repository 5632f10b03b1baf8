diff -w tests/golden/diff/inputs/two_models_old.roof tests/golden/diff/inputs/two_models_new.roof
