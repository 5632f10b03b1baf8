diff -w tests/golden/diff/inputs/recipe_old.roof tests/golden/plan/inputs/recipe.roof
