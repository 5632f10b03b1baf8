examples/seed/precisions.roof
