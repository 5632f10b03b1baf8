diff tests/golden/diff/inputs/fuse_old.roof tests/golden/diff/inputs/fuse_new.roof --fail-on-regression 0
