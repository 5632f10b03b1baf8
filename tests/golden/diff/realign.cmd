diff -w tests/golden/diff/inputs/realign_old.roof tests/golden/diff/inputs/realign_new.roof
