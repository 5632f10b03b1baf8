diff tests/golden/diff/inputs/stray_old.roof tests/golden/plan/inputs/decode.roof
