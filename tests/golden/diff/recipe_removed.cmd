diff -w tests/golden/plan/inputs/recipe.roof tests/golden/diff/inputs/recipe_old.roof
